import { makeFolders, writeAtomically } from '../files.js';
import { lstat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { ORIGIN_FILE, readDatasetOrigin, sizeOf, type DatasetOrigin } from '../dataset/index.js';
import { compareDomains } from '../domains.js';
import type { DownloadedDataset, DownloadOptions } from './download.js';
import { progressReporter } from './download-progress.js';
import { fetchVerified, type OpenBody } from './fetch-file.js';
import type { Hub, RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';
import { fileError } from '../rows/index.js';

/* A plain folder (`--dir`): files in the official layout, checked against the Hub's hashes, with a record of where they came from. */

export async function downloadToFolder(
  hub: Hub,
  commit: string,
  entries: Entry[],
  dir: string,
  opts: DownloadOptions,
  retry: RetryPolicy,
  open: (entry: Entry) => OpenBody,
): Promise<DownloadedDataset> {
  await makeFolders(dir, (at) => `${at}: is a file, not a folder; --dir takes a folder`);
  const previous = await readDatasetOrigin(dir);
  // Another repo's record says nothing about this repo's files, except that a size match proves nothing either.
  const trusted = previous?.repo === hub.repo ? previous : undefined;
  const record: DatasetOrigin['files'] = [];
  const files: DownloadedDataset['files'] = [];

  for (const entry of entries) {
    hub.signal?.throwIfAborted();
    const name = posix.basename(entry.path);
    const target = join(dir, name);
    const report = progressReporter(opts.onProgress, entry.path, entry.size);
    const known = trusted?.files.find((f) => f.file === name);
    // Only a plain file counts as already here: a link in its place is replaced, never read or written through.
    const size = await lstat(target).then(
      (st) => (st.isFile() ? st.size : undefined),
      () => undefined,
    );
    // Without any record (files put there by hand or by the official script) the size is all there is to compare.
    const sameContent = previous === undefined || (known !== undefined && sameFile(known, entry));
    if (size === entry.size && sameContent) {
      report(entry.size, true, true);
    } else {
      report(0, false);
      await fetchVerified(hub, entry, target, retry, (bytes) => report(bytes, false), open(entry));
      report(entry.size, true);
    }
    record.push({ domain: entry.domain, file: name, bytes: entry.size, sha256: entry.sha256, gitOid: entry.gitOid, commit });
    files.push({ domain: entry.domain, path: target, bytes: entry.size, sha256: entry.sha256 });
  }

  // Files of other domains from an earlier run stay listed while they are still there, with the commit they came from.
  for (const old of trusted?.files ?? []) {
    if (record.some((f) => f.file === old.file)) continue;
    if ((await sizeOf(join(dir, old.file))) === old.bytes) record.push({ ...old, commit: old.commit ?? trusted!.commit });
  }
  record.sort((a, b) => compareDomains(a.domain, b.domain));
  const origin: DatasetOrigin = {
    ...(hub.kind === 'modelscope' ? { hub: hub.kind } : {}),
    repo: hub.repo,
    revision: hub.revision,
    commit,
    hubUrl: hub.hubUrl,
    downloadedAt: new Date().toISOString(),
    files: record,
  };
  const originPath = join(dir, ORIGIN_FILE);
  await writeAtomically(originPath, JSON.stringify(origin, null, 2) + '\n').catch((err: unknown) => {
    throw fileError(originPath, err);
  });
  return { dir, hub: hub.kind, repo: hub.repo, revision: hub.revision, commit, files };
}

function sameFile(known: DatasetOrigin['files'][number], entry: Entry): boolean {
  if (known.bytes !== entry.size) return false;
  if (entry.sha256 !== undefined && known.sha256 !== undefined) return known.sha256 === entry.sha256;
  if (entry.gitOid !== undefined && known.gitOid !== undefined) return known.gitOid === entry.gitOid;
  // A record without hashes (older files) has only the size to go by; hashes of different kinds cannot vouch for each other.
  return known.sha256 === undefined && known.gitOid === undefined;
}

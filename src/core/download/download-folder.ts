import { makeFolders, replaceAtomically } from '../files.js';
import { join, posix } from 'node:path';
import { ORIGIN_FILE, readDatasetOrigin, unchangedSinceRecord, type DatasetOrigin } from '../dataset/index.js';
import { compareDomains } from '../domains.js';
import type { DownloadedDataset, DownloadOptions } from './download.js';
import { progressReporter } from './download-progress.js';
import { fetchVerified, heldSha256, type OpenBody } from './fetch-file.js';
import type { Hub, RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';
import { fileError } from '../errors.js';

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
  await makeFolders(dir, { name: '--dir', takes: 'folder' });
  const previous = await readDatasetOrigin(dir);
  // Another repo's record says nothing about this repo's files.
  const trusted = previous?.repo === hub.repo ? previous : undefined;
  const record: DatasetOrigin['files'] = [];
  const files: DownloadedDataset['files'] = [];

  for (const entry of entries) {
    hub.signal?.throwIfAborted();
    const name = posix.basename(entry.path);
    const target = join(dir, name);
    const progress = progressReporter(opts.onProgress, entry.path, entry.size);
    // Only a plain file holding exactly the listed bytes counts as already here: a link in its place is replaced, never
    // read or written through, and a file of the right size that differs (stale, edited, from another revision) is fetched again.
    let sha256 = (await recordedUnchanged(trusted, dir, name, entry)) ?? (await heldSha256(target, entry));
    if (sha256 !== undefined) {
      progress.report(entry.size, true, true);
    } else {
      sha256 = await progress.transfer((onBytes) => fetchVerified(hub, entry, target, retry, onBytes, open(entry)));
    }
    // Every file's SHA-256, whatever the hub listed: what `--data` checks the file against before it passes for the hub's.
    record.push({ domain: entry.domain, file: name, bytes: entry.size, sha256, ...(entry.gitOid ? { gitOid: entry.gitOid } : {}), commit });
    files.push({ domain: entry.domain, path: target, bytes: entry.size, sha256 });
  }

  // Files of other domains from an earlier run stay listed while they are still there, with the commit they came from.
  // The record is read again: a download of other domains into this folder may have ended meanwhile (two runs started at once).
  const latest = await readDatasetOrigin(dir);
  const earlier = latest?.repo === hub.repo ? latest : undefined;
  for (const old of earlier?.files ?? []) {
    if (record.some((f) => f.file === old.file)) continue;
    const sha256 =
      old.sha256 !== undefined && (await unchangedSinceRecord(dir, old))
        ? old.sha256
        : await heldSha256(join(dir, old.file), { size: old.bytes, sha256: old.sha256, gitOid: old.gitOid });
    if (sha256 !== undefined) record.push({ ...old, sha256, commit: old.commit ?? earlier!.commit });
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
  // Replaced, never written through a link planted in its place: the folder is the download's own.
  await replaceAtomically(originPath, JSON.stringify(origin, null, 2) + '\n').catch((err: unknown) => {
    throw fileError(originPath, err);
  });
  return { dir, hub: hub.kind, repo: hub.repo, revision: hub.revision, commit, files };
}

/**
 * The SHA-256 the earlier record gives this very file (the same listed hash), when the file is as that
 * download left it: no need to read it again. A record without it (written before every file got one) is read.
 */
async function recordedUnchanged(record: DatasetOrigin | undefined, dir: string, name: string, entry: Entry): Promise<string | undefined> {
  const f = record?.files.find((r) => r.file === name);
  if (!f || f.bytes !== entry.size || (entry.sha256 !== undefined ? f.sha256 !== entry.sha256 : f.gitOid !== entry.gitOid))
    return undefined;
  return f.sha256 !== undefined && (await unchangedSinceRecord(dir, f)) ? f.sha256 : undefined;
}

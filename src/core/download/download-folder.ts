import { writeAtomically } from '../files.js';
import { createHash } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { downloadFile } from '@huggingface/hub';
import { ORIGIN_FILE, readDatasetOrigin, sizeOf, type DatasetOrigin } from '../dataset/index.js';
import { compareDomains } from '../domains.js';
import type { DownloadedDataset, DownloadOptions } from './download.js';
import { progressReporter } from './download-progress.js';
import { UserError } from '../errors.js';
import { withRetries, type Hub, type RetryPolicy } from './hub-failure.js';
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
): Promise<DownloadedDataset> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw fileError(dir, err);
  }
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
    const size = await sizeOf(target);
    // Without any record (files put there by hand or by the official script) the size is all there is to compare.
    const sameContent = previous === undefined || (known !== undefined && sameFile(known, entry));
    if (size === entry.size && sameContent) {
      report(entry.size, true, true);
    } else {
      report(0, false);
      await fetchIntoFile(hub, commit, entry, target, retry, (bytes) => report(bytes, false));
      report(entry.size, true);
    }
    record.push({ domain: entry.domain, file: name, bytes: entry.size, sha256: entry.sha256, gitOid: entry.gitOid, commit });
    files.push({ domain: entry.domain, path: target, bytes: entry.size });
  }

  // Files of other domains from an earlier run stay listed while they are still there, with the commit they came from.
  for (const old of trusted?.files ?? []) {
    if (record.some((f) => f.file === old.file)) continue;
    if ((await sizeOf(join(dir, old.file))) === old.bytes) record.push({ ...old, commit: old.commit ?? trusted!.commit });
  }
  record.sort((a, b) => compareDomains(a.domain, b.domain));
  const origin: DatasetOrigin = {
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
  return { dir, repo: hub.repo, revision: hub.revision, commit, files };
}

function sameFile(known: DatasetOrigin['files'][number], entry: Entry): boolean {
  if (known.bytes !== entry.size) return false;
  if (entry.sha256 !== undefined && known.sha256 !== undefined) return known.sha256 === entry.sha256;
  if (entry.gitOid !== undefined && known.gitOid !== undefined) return known.gitOid === entry.gitOid;
  return true;
}

/**
 * Streams one file into `<target>.incomplete` and renames it when whole and
 * verified, so the final name never holds a partial file. After a broken
 * connection it asks for the rest with a Range request instead of starting over.
 */
async function fetchIntoFile(
  hub: Hub,
  commit: string,
  entry: Entry,
  target: string,
  retry: RetryPolicy,
  onBytes: (bytes: number) => void,
): Promise<void> {
  const partial = `${target}.incomplete`;
  let written = 0;
  const sha256 = createHash('sha256');
  const gitSha1 = createHash('sha1').update(`blob ${entry.size}\0`);
  try {
    let handle;
    try {
      handle = await open(partial, 'w');
    } catch (err) {
      throw fileError(partial, err);
    }
    try {
      await withRetries(hub, retry, `downloading ${entry.path}`, entry.path, undefined, async () => {
        const blob = await downloadFile({
          repo: { type: 'dataset', name: hub.repo },
          path: entry.path,
          revision: commit,
          hubUrl: hub.hubUrl,
          accessToken: hub.accessToken,
          fetch: hub.fetch,
        });
        if (!blob) throw new UserError(`${entry.path} is missing from ${hub.repo} at ${commit} on ${hub.hubUrl}`);
        const stream = (written > 0 ? blob.slice(written) : blob).stream();
        for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
          for (let off = 0; off < chunk.length;) {
            let n: number;
            try {
              ({ bytesWritten: n } = await handle.write(chunk, off, chunk.length - off, written + off));
            } catch (err) {
              throw fileError(partial, err);
            }
            off += n;
          }
          sha256.update(chunk);
          gitSha1.update(chunk);
          written += chunk.length;
          onBytes(written);
        }
      });
    } finally {
      await handle.close();
    }
    if (written !== entry.size) {
      throw new UserError(`${entry.path}: received ${written} bytes from ${hub.hubUrl}, expected ${entry.size}; run the command again`);
    }
    const mismatch =
      (entry.sha256 !== undefined && sha256.digest('hex') !== entry.sha256) ||
      (entry.sha256 === undefined && entry.gitOid !== undefined && gitSha1.digest('hex') !== entry.gitOid);
    if (mismatch) {
      throw new UserError(`${entry.path} from ${hub.hubUrl} does not match the checksum the Hub lists for it; run the command again`);
    }
    try {
      await rename(partial, target);
    } catch (err) {
      throw fileError(target, err);
    }
  } catch (err) {
    // Resuming across runs would need to know the partial is of the same content; starting over is simpler and safe.
    await rm(partial, { force: true }).catch(() => {});
    throw err;
  }
}

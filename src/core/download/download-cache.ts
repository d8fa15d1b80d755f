import { lstat, readlink, rename, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { getHFHubCachePath, getRepoFolderName } from '@huggingface/hub';
import type { DownloadedDataset, DownloadOptions } from './download.js';
import { progressReporter } from './download-progress.js';
import { fetchVerified, heldSha256, type OpenBody } from './fetch-file.js';
import { blobName, sha256Of } from '../dataset/index.js';
import type { Hub, RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';
import { makeFolders, replaceAtomically } from '../files.js';
import { fileError } from '../errors.js';

/*
 * The Hugging Face cache, in the layout the Python client and the library
 * use: `blobs/<hash>` holds the content, `snapshots/<commit>/<path>` links to
 * it. We write it ourselves rather than through the library, which builds
 * paths from a mirror's unchecked answers and checks neither size nor hash:
 * here every name comes from the checked listing and every blob is verified
 * before it gets its name.
 */

export async function downloadToCache(
  hub: Hub,
  commit: string,
  entries: Entry[],
  opts: DownloadOptions,
  retry: RetryPolicy,
  open: (entry: Entry) => OpenBody,
): Promise<DownloadedDataset> {
  const storage = join(getHFHubCachePath(), getRepoFolderName({ type: 'dataset', name: hub.repo }));
  const snapshot = join(storage, 'snapshots', commit);
  if (hub.revision !== commit) {
    // Without a ref, offline runs could not find this snapshot by branch name.
    const ref = join(storage, 'refs', ...hub.revision.split('/'));
    await makeFolders(dirname(ref));
    try {
      await replaceAtomically(ref, commit);
    } catch (err) {
      throw fileError(ref, err);
    }
  }

  const files: DownloadedDataset['files'] = [];
  for (const entry of entries) {
    hub.signal?.throwIfAborted();
    const pointer = join(snapshot, ...entry.path.split('/'));
    // The name the Python client gives the blob: the LFS sha256, else the git blob id.
    const blob = join(storage, 'blobs', (entry.sha256 ?? entry.gitOid)!);
    const progress = progressReporter(opts.onProgress, entry.path, entry.size);
    await makeFolders(dirname(blob));
    await makeFolders(dirname(pointer));
    let sha256: string | undefined;
    if (await untouchedSinceLinked(pointer, blob, entry.size)) {
      // A blob named by its git id (a file under the LFS threshold: small) is read for its SHA-256.
      sha256 = entry.sha256 ?? (await sha256Of(blob));
      progress.report(entry.size, true, true);
    } else if ((sha256 = await heldSha256(blob, entry)) !== undefined) {
      // Same content at another commit, or this one's link missing or older than the blob: only the link is made again.
      await verified(pointer, blob);
      progress.report(entry.size, true, true);
    } else {
      sha256 = await progress.transfer(async (onBytes) => {
        const fetched = await fetchVerified(hub, entry, blob, retry, onBytes, open(entry));
        await verified(pointer, blob);
        return fetched;
      });
    }
    files.push({ domain: entry.domain, path: pointer, bytes: entry.size, ...(sha256 !== undefined ? { sha256 } : {}) });
  }
  const folder = posix.dirname(entries[0]!.path);
  return {
    dir: folder === '.' ? snapshot : join(snapshot, ...folder.split('/')),
    hub: hub.kind,
    repo: hub.repo,
    revision: hub.revision,
    commit,
    files,
  };
}

/*
 * A blob edited by hand (or by a tool through the snapshot's link) must not pass for the hub's file, yet
 * hashing the whole dataset on every run costs seconds. So a blob, once its hash is checked, is dated a
 * second back and its link made after: a blob written since is newer than its link, and is hashed again.
 */

/** The plain file `blob` has `size` bytes and was not written since `pointer` was linked to it, after its hash was checked. */
export async function untouchedSinceLinked(pointer: string, blob: string, size: number): Promise<boolean> {
  const [b, p, target] = await Promise.all([
    lstat(blob).catch(() => undefined),
    lstat(pointer).catch(() => undefined),
    readlink(pointer).catch(() => undefined),
  ]);
  // Strictly older: file times tick in jiffies.
  return !!b?.isFile() && b.size === size && target === relative(dirname(pointer), blob) && b.mtimeMs < p!.mtimeMs;
}

/**
 * The SHA-256 of a file of a snapshot still as the hub sent it: a link to a blob named by its hash that was not
 * written since, or still hashes to its name; undefined for any other.
 */
export async function snapshotFileIntact(pointer: string): Promise<string | undefined> {
  const { target, sha256, gitOid } = await blobName(pointer);
  if (target === undefined) return undefined;
  const blob = resolve(dirname(pointer), target);
  const size = await lstat(blob).then(
    (st) => (st.isFile() ? st.size : undefined),
    () => undefined,
  );
  if (size === undefined) return undefined;
  if (sha256 !== undefined && (await untouchedSinceLinked(pointer, blob, size))) return sha256;
  return heldSha256(blob, { size, sha256, gitOid });
}

/** Dates the checked blob back and links `pointer` to it anew, so that the link is newer than the blob until the blob is written. */
async function verified(pointer: string, blob: string): Promise<void> {
  const past = new Date(Date.now() - 1000);
  // Another user's blob in a shared cache cannot be dated: the next run may only hash it again.
  await utimes(blob, past, past).catch(() => undefined);
  await link(pointer, blob);
}

/** Points `pointer` at `blob` with a relative link, as the Python client does, replacing whatever was there in one step. */
async function link(pointer: string, blob: string): Promise<void> {
  const target = relative(dirname(pointer), blob);
  const tmp = `${pointer}.awb-${process.pid}-${Date.now()}.link`;
  try {
    await symlink(target, tmp);
    await rename(tmp, pointer);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw fileError(pointer, err);
  }
}

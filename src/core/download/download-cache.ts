import { lstat, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, posix, relative } from 'node:path';
import { getHFHubCachePath, getRepoFolderName } from '@huggingface/hub';
import type { DownloadedDataset, DownloadOptions } from './download.js';
import { progressReporter } from './download-progress.js';
import { fetchVerified, type OpenBody } from './fetch-file.js';
import type { Hub, RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';
import { makeFolders } from '../files.js';
import { fileError } from '../rows/index.js';

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
      await writeFile(ref, commit);
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
    const report = progressReporter(opts.onProgress, entry.path, entry.size);
    await makeFolders(dirname(blob));
    await makeFolders(dirname(pointer));
    if ((await plainSize(blob)) === entry.size) {
      // Same content at another commit (or this one): only the link may be missing.
      await link(pointer, blob);
      report(entry.size, true, true);
    } else {
      report(0, false);
      await fetchVerified(hub, entry, blob, retry, (bytes) => report(bytes, false), open(entry));
      await link(pointer, blob);
      report(entry.size, true);
    }
    files.push({ domain: entry.domain, path: pointer, bytes: entry.size, sha256: entry.sha256 });
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

async function plainSize(path: string): Promise<number | undefined> {
  return lstat(path).then(
    (st) => (st.isFile() ? st.size : undefined),
    () => undefined,
  );
}

/** Points `pointer` at `blob` with a relative link, as the Python client does, replacing whatever was there in one step. */
async function link(pointer: string, blob: string): Promise<void> {
  const target = relative(dirname(pointer), blob);
  if ((await readlink(pointer).catch(() => undefined)) === target) return;
  const tmp = `${pointer}.awb-${process.pid}-${Date.now()}.link`;
  try {
    await symlink(target, tmp);
    await rename(tmp, pointer);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw fileError(pointer, err);
  }
}

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { downloadFileToCacheDir, getHFHubCachePath, getRepoFolderName } from '@huggingface/hub';
import { sizeOf } from '../dataset/index.js';
import type { DownloadedDataset, DownloadOptions } from './download.js';
import { progressReporter } from './download-progress.js';
import { withRetries, type Hub, type RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';
import { fileError } from '../rows/index.js';

/* The Hugging Face cache: files written by the library into a snapshot folder, as the Python client does. */

export async function downloadToCache(
  hub: Hub,
  commit: string,
  entries: Entry[],
  opts: DownloadOptions,
  retry: RetryPolicy,
): Promise<DownloadedDataset> {
  const cacheDir = getHFHubCachePath();
  const storage = join(cacheDir, getRepoFolderName({ type: 'dataset', name: hub.repo }));
  const snapshot = join(storage, 'snapshots', commit);
  if (hub.revision !== commit) {
    // The library only writes refs in snapshotDownload; without one, offline runs could not find this snapshot by branch name.
    const ref = join(storage, 'refs', hub.revision);
    try {
      await mkdir(dirname(ref), { recursive: true });
      await writeFile(ref, commit);
    } catch (err) {
      throw fileError(ref, err);
    }
  }

  const files: DownloadedDataset['files'] = [];
  for (const entry of entries) {
    hub.signal?.throwIfAborted();
    const pointer = join(snapshot, ...entry.path.split('/'));
    const report = progressReporter(opts.onProgress, entry.path, entry.size);
    const blob = entry.cacheEtag ? join(storage, 'blobs', entry.cacheEtag) : undefined;
    if ((await exists(pointer)) || (blob !== undefined && (await exists(blob)))) {
      // A blob without the pointer (same content at another commit) is linked by the library without downloading.
      if (!(await exists(pointer))) await libraryDownload(hub, commit, entry, cacheDir, retry);
      report(entry.size, true, true);
    } else {
      report(0, false);
      let bytes = 0;
      hub.countBytes = (n) => report((bytes += n), false);
      try {
        await libraryDownload(hub, commit, entry, cacheDir, retry, () => (bytes = 0));
      } finally {
        hub.countBytes = undefined;
      }
      report(entry.size, true);
    }
    files.push({ domain: entry.domain, path: pointer, bytes: entry.size });
  }
  const folder = posix.dirname(entries[0]!.path);
  return {
    dir: folder === '.' ? snapshot : join(snapshot, ...folder.split('/')),
    repo: hub.repo,
    revision: hub.revision,
    commit,
    files,
  };
}

async function libraryDownload(
  hub: Hub,
  commit: string,
  entry: Entry,
  cacheDir: string,
  retry: RetryPolicy,
  onRetry?: () => void,
): Promise<void> {
  await withRetries(hub, retry, `downloading ${entry.path}`, entry.path, onRetry, () =>
    quietly(() =>
      downloadFileToCacheDir({
        repo: { type: 'dataset', name: hub.repo },
        path: entry.path,
        // A branch name would file each blob under the commit that last touched it; the commit keeps one snapshot folder.
        revision: commit,
        hubUrl: hub.hubUrl,
        accessToken: hub.accessToken,
        cacheDir,
        fetch: hub.fetch,
      }),
    ),
  );
}

/** The library announces each download with console.debug, which Node sends to stdout, where it would mix with our output. */
/* eslint-disable no-console -- muted only while the library runs */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const { debug, info } = console;
  console.debug = () => {};
  console.info = () => {};
  try {
    return await fn();
  } finally {
    console.debug = debug;
    console.info = info;
  }
}
/* eslint-enable no-console */

async function exists(path: string): Promise<boolean> {
  return (await sizeOf(path)) !== undefined;
}

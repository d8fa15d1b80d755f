import { lstat } from 'node:fs/promises';
import { fileDigest, hashFile, isListed, type Listed } from '../dataset/index.js';
import { fail, FaultError, fileError } from '../errors.js';
import { removeAbandonedTemps, replaceAtomically } from '../files.js';
import { shownUrl } from '../shown.js';
import { withRetries, type Hub, type RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';

/**
 * A file's body from `offset` on. `from` says where the body really starts:
 * a server that ignores the Range request answers from 0, and the file is redone.
 */
export type OpenBody = (offset: number) => Promise<{ body: AsyncIterable<Uint8Array>; from: number }>;

/**
 * Where the body a server sent for `entry` starts, asked for from `offset`: a 206 names its range, any
 * other answer is the whole file (a server, proxy or CDN that ignores Range). A range other than the one
 * asked for is refused, its body dropped.
 */
export async function answeredFrom(hub: Hub, entry: Entry, offset: number, res: Response): Promise<number> {
  if (res.status !== 206) return 0;
  const from = Number(/^bytes (\d+)-/.exec(res.headers.get('Content-Range') ?? '')?.[1] ?? NaN);
  if (from === offset) return from;
  await res.body?.cancel().catch(() => undefined);
  throw fail({ kind: 'hub-wrong-range', hub: shownUrl(hub.hubUrl), path: entry.path, offset });
}

/**
 * The SHA-256 of the plain file at `path` when it already holds the listed file: its size, then its hash.
 * A file of the right size put there by hand, edited, or left from another revision must not pass for the
 * listed one. The SHA-256 is what a record keeps whatever the listing named (files under the hub's LFS
 * threshold are listed by their git blob id only).
 */
export async function heldSha256(path: string, entry: Listed): Promise<string | undefined> {
  const size = await lstat(path).then(
    (st) => (st.isFile() ? st.size : undefined),
    () => undefined,
  );
  if (size !== entry.size) return undefined;
  const hashes = await hashFile(path, entry);
  return hashes && isListed(hashes, entry) ? hashes.sha256 : undefined;
}

/**
 * Streams one listed file into a new temporary file next to `target`
 * (created exclusively, so a link planted there is never written through) and
 * renames it over `target` only when its size and hash match the listing. The
 * body is cut at the listed size (see watchedFetch). After a broken
 * connection it asks for the rest (`open` at an offset) instead of starting
 * over; a body short of its listed size or not matching its hash is fetched again from the start
 * `retry.retries` times, then refused. Returns the file's SHA-256.
 */
export async function fetchVerified(
  hub: Hub,
  entry: Entry,
  target: string,
  retry: RetryPolicy,
  onBytes: (bytes: number) => void,
  open: OpenBody,
): Promise<string> {
  const at = shownUrl(hub.hubUrl);
  // A download that is alive writes at least every --timeout, or gives up; an hour covers its retries' waits too.
  await removeAbandonedTemps(target, Math.max(3_600_000, 2 * hub.idleSeconds * 1000));
  hub.fileLimit = entry.size;
  let sha256 = '';
  try {
    // The download folder is the download's own: a link planted there is replaced, never written through,
    // and whatever was there stays until the checked file takes its place.
    await replaceAtomically(target, async (handle) => {
      for (let pass = 0; ; pass++) {
        let written = 0;
        let digest = fileDigest(entry);
        await withRetries(hub, retry, { step: 'download', path: entry.path }, entry.path, undefined, async () => {
          const { body, from } = await open(written);
          if (from !== written) {
            // Redo from the start: the server sent the whole file again.
            [written, digest] = [0, fileDigest(entry)];
            await handle.truncate(0);
          }
          for await (const chunk of body) {
            // Bodies not read through watchedFetch's file limit (a Range answered in full, Xet pieces) are held to the listing here.
            if (written + chunk.length > entry.size) {
              throw fail({ kind: 'hub-file-longer', hub: at, path: entry.path, size: entry.size });
            }
            for (let off = 0; off < chunk.length;) {
              let n: number;
              try {
                ({ bytesWritten: n } = await handle.write(chunk, off, chunk.length - off, written + off));
              } catch (err) {
                throw fileError(target, err);
              }
              off += n;
            }
            digest.update(chunk);
            written += chunk.length;
            onBytes(written);
          }
        });
        const short = written !== entry.size;
        const hashes = short ? undefined : digest.digest();
        if (hashes && isListed(hashes, entry)) {
          sha256 = hashes.sha256;
          return;
        }
        // Cut short or damaged in transit is worth another try (the ModelScope SDK makes three); a mirror that keeps sending it is refused.
        if (pass >= retry.retries) {
          const fault = { kind: 'hub-file-damaged', hub: at, path: entry.path, size: entry.size, tries: pass + 1 } as const;
          throw fail(short ? { ...fault, written } : fault);
        }
        await handle.truncate(0);
      }
    });
  } catch (err) {
    if (err instanceof FaultError || hub.signal?.aborted) throw err;
    throw fileError(target, err);
  } finally {
    hub.fileLimit = undefined;
  }
  return sha256;
}

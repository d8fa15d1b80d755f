import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat } from 'node:fs/promises';
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

/** Hashes bytes as the listing names the file: its SHA-256 (LFS, ModelScope) or its git blob id. */
function entryDigest(entry: Pick<Entry, 'size' | 'sha256' | 'gitOid'>) {
  const sha256 = createHash('sha256');
  // Only the hash that decides is computed: hashing the dataset twice over costs a second a run.
  const gitSha1 = entry.sha256 === undefined ? createHash('sha1').update(`blob ${entry.size}\0`) : undefined;
  return {
    update(chunk: Uint8Array): void {
      if (gitSha1) gitSha1.update(chunk);
      else sha256.update(chunk);
    },
    /** Whether the bytes hashed are the listed file's (only the size is known for a record without hashes). */
    matches(): boolean {
      if (entry.sha256 !== undefined) return sha256.digest('hex') === entry.sha256;
      if (entry.gitOid !== undefined) return gitSha1!.digest('hex') === entry.gitOid;
      return true;
    },
  };
}

/**
 * Whether the plain file at `path` already holds the listed file: its size, then its hash. A file of the
 * right size put there by hand, edited, or left from another revision must not pass for the listed one.
 */
export async function holdsEntry(path: string, entry: Pick<Entry, 'size' | 'sha256' | 'gitOid'>): Promise<boolean> {
  const size = await lstat(path).then(
    (st) => (st.isFile() ? st.size : undefined),
    () => undefined,
  );
  if (size !== entry.size) return false;
  const digest = entryDigest(entry);
  try {
    for await (const chunk of createReadStream(path)) digest.update(chunk as Buffer);
  } catch {
    return false;
  }
  return digest.matches();
}

/**
 * Streams one listed file into a new temporary file next to `target`
 * (created exclusively, so a link planted there is never written through) and
 * renames it over `target` only when its size and hash match the listing. The
 * body is cut at the listed size (see watchedFetch). After a broken
 * connection it asks for the rest (`open` at an offset) instead of starting
 * over; a body short of its listed size or not matching its hash is fetched again from the start
 * `retry.retries` times, then refused.
 */
export async function fetchVerified(
  hub: Hub,
  entry: Entry,
  target: string,
  retry: RetryPolicy,
  onBytes: (bytes: number) => void,
  open: OpenBody,
): Promise<void> {
  const at = shownUrl(hub.hubUrl);
  // A download that is alive writes at least every --timeout, or gives up; an hour covers its retries' waits too.
  await removeAbandonedTemps(target, Math.max(3_600_000, 2 * hub.idleSeconds * 1000));
  hub.fileLimit = entry.size;
  try {
    // The download folder is the download's own: a link planted there is replaced, never written through,
    // and whatever was there stays until the checked file takes its place.
    await replaceAtomically(target, async (handle) => {
      for (let pass = 0; ; pass++) {
        let written = 0;
        let digest = entryDigest(entry);
        await withRetries(hub, retry, { step: 'download', path: entry.path }, entry.path, undefined, async () => {
          const { body, from } = await open(written);
          if (from !== written) {
            // Redo from the start: the server sent the whole file again.
            [written, digest] = [0, entryDigest(entry)];
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
        const matches = !short && digest.matches();
        if (matches) return;
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
}

import { createHash } from 'node:crypto';
import { downloadFile } from '@huggingface/hub';
import { UserError } from '../errors.js';
import { writeAtomically } from '../files.js';
import { fileError } from '../rows/index.js';
import { shownUrl } from '../shown.js';
import { HOSTILE_EXIT, withRetries, type Hub, type RetryPolicy } from './hub-failure.js';
import type { Entry } from './hub-listing.js';

/**
 * Streams one listed file into a new temporary file next to `target`
 * (created exclusively, so a link planted there is never written through) and
 * renames it into place only when its size and hash match the listing. The
 * body is cut at the listed size (see watchedFetch). After a broken
 * connection it asks for the rest with a Range request instead of starting over.
 */
export async function fetchVerified(
  hub: Hub,
  commit: string,
  entry: Entry,
  target: string,
  retry: RetryPolicy,
  onBytes: (bytes: number) => void,
): Promise<void> {
  const at = shownUrl(hub.hubUrl);
  hub.fileLimit = entry.size;
  try {
    await writeAtomically(target, async (handle) => {
      let written = 0;
      const sha256 = createHash('sha256');
      const gitSha1 = createHash('sha1').update(`blob ${entry.size}\0`);
      await withRetries(hub, retry, `downloading ${entry.path}`, entry.path, undefined, async () => {
        const blob = await downloadFile({
          repo: { type: 'dataset', name: hub.repo },
          path: entry.path,
          revision: commit,
          hubUrl: hub.hubUrl,
          accessToken: hub.accessToken,
          fetch: hub.fetch,
        });
        if (!blob) throw new UserError(`${entry.path} is missing from ${hub.repo} at ${commit} on ${at}`);
        const stream = (written > 0 ? blob.slice(written) : blob).stream();
        for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
          // Bodies not read through watchedFetch's file limit (a Range answered in full, Xet pieces) are held to the listing here.
          if (written + chunk.length > entry.size) {
            throw new UserError(
              `${at} sent more than the ${entry.size} bytes listed for ${entry.path}; nothing of it was kept`,
              HOSTILE_EXIT,
            );
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
          sha256.update(chunk);
          gitSha1.update(chunk);
          written += chunk.length;
          onBytes(written);
        }
      });
      if (written !== entry.size) {
        throw new UserError(
          `${entry.path}: received ${written} bytes from ${at}, expected ${entry.size}; run the command again`,
          HOSTILE_EXIT,
        );
      }
      const mismatch = entry.sha256 !== undefined ? sha256.digest('hex') !== entry.sha256 : gitSha1.digest('hex') !== entry.gitOid;
      if (mismatch) {
        throw new UserError(`${entry.path} from ${at} does not match the checksum listed for it; nothing of it was kept`, HOSTILE_EXIT);
      }
    });
  } catch (err) {
    if (err instanceof UserError || hub.signal?.aborted) throw err;
    throw fileError(target, err);
  } finally {
    hub.fileLimit = undefined;
  }
}

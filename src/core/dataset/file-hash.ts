import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { unchangedSinceRecord, type DatasetOrigin } from './dataset-origin.js';

/** What a file's bytes hash to: always its SHA-256; its git blob id when asked (all a hub lists of a file under its LFS threshold). */
export interface FileHashes {
  sha256: string;
  gitOid?: string;
}

/** What a hub's listing (or a download's record) names a file by: its size, and its SHA-256 or git blob id. */
export interface Listed {
  size: number;
  sha256?: string;
  gitOid?: string;
}

/**
 * Hashes bytes as they stream by. The SHA-256 is always kept, whatever the hub
 * listed, so a record can always be checked by it; the git blob id only when
 * the listing names nothing else (small files, where hashing twice costs nothing).
 */
export function fileDigest(listed?: Listed): { update(chunk: Uint8Array): void; digest(): FileHashes } {
  const sha256 = createHash('sha256');
  const git = listed && listed.sha256 === undefined ? createHash('sha1').update(`blob ${listed.size}\0`) : undefined;
  return {
    update(chunk) {
      sha256.update(chunk);
      git?.update(chunk);
    },
    digest: () => ({ sha256: sha256.digest('hex'), ...(git ? { gitOid: git.digest('hex') } : {}) }),
  };
}

/** Whether hashes of `listed.size` bytes are the listed file's (a listing without hashes: its size decides alone). */
export function isListed(hashes: FileHashes, listed: Listed): boolean {
  if (listed.sha256 !== undefined) return hashes.sha256 === listed.sha256;
  if (listed.gitOid !== undefined) return hashes.gitOid === listed.gitOid;
  return true;
}

/** The hashes of a file's bytes as they are now (a link followed), as `listed` names it; undefined when it cannot be read. */
export async function hashFile(path: string, listed?: Listed): Promise<FileHashes | undefined> {
  const digest = fileDigest(listed);
  try {
    for await (const chunk of createReadStream(path)) digest.update(chunk as Buffer);
  } catch {
    return undefined;
  }
  return digest.digest();
}

/** A file a download recorded, as it is now: its SHA-256, and whether it is still the file the hub served. */
export interface CheckedFile {
  domain: string;
  path: string;
  sha256: string;
  asRecorded: boolean;
}

/**
 * Each file a folder's download record lists, checked against it before its
 * rows pass for the hub's: a file as the download left it keeps its recorded
 * SHA-256 unread; any other is hashed, and counts as the hub's only when it
 * hashes to what the record names (its SHA-256, or its git blob id in a record
 * written before every file got one). A file that cannot be read is left out.
 */
export async function checkRecordedFiles(dir: string, record: DatasetOrigin): Promise<CheckedFile[]> {
  const checked = await Promise.all(
    record.files.map(async (f): Promise<CheckedFile | undefined> => {
      const path = join(dir, f.file);
      if (f.sha256 !== undefined && (await unchangedSinceRecord(dir, f)))
        return { domain: f.domain, path, sha256: f.sha256, asRecorded: true };
      const listed = { size: f.bytes, sha256: f.sha256, gitOid: f.gitOid };
      const hashes = await hashFile(path, listed);
      if (!hashes) return undefined;
      // A record naming no hash at all can only vouch for a file it has not seen change.
      const asRecorded = f.sha256 !== undefined || f.gitOid !== undefined ? isListed(hashes, listed) : await unchangedSinceRecord(dir, f);
      return { domain: f.domain, path, sha256: hashes.sha256, asRecorded };
    }),
  );
  return checked.filter((c): c is CheckedFile => c !== undefined);
}

/** The SHA-256 of a file's bytes as they are now; undefined when it cannot be read. */
export async function sha256Of(path: string): Promise<string | undefined> {
  return (await hashFile(path))?.sha256;
}

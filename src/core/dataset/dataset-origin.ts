import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { compareDomains } from '../domains.js';
import type { HubKind } from '../hubs.js';

/*
 * Where a local dataset folder came from, read without loading the Hub
 * client: `awb infer --data DIR` needs only this, not a download.
 */

export const ORIGIN_FILE = '.awb-dataset.json';

/** The branch each hub publishes the dataset on. */
export const DEFAULT_REVISION: Record<HubKind, string> = { huggingface: 'main', modelscope: 'master' };

export interface DatasetOrigin {
  /** Which hub the files came from; absent means Hugging Face (records written before ModelScope). */
  hub?: HubKind;
  repo: string;
  revision: string;
  commit: string;
  hubUrl?: string;
  downloadedAt?: string;
  /** `file` is relative to the folder. `commit` is the commit the file was last checked against. */
  files: { domain: string; file: string; bytes: number; sha256?: string; gitOid?: string; commit?: string }[];
}

export interface LocalFile {
  domain: string;
  path: string;
  bytes: number;
  /** As the hub listed it, when it did: what tells the same file apart from either hub. */
  sha256?: string;
}

export const TEST_FILE = /^(.+)_test\.jsonl$/;
export const COMMIT_SHA = /^[0-9a-f]{40}$/;

/** The record a `--dir` download left in DIR, or what a Hugging Face cache snapshot path says; undefined when neither. */
export async function readDatasetOrigin(dir: string): Promise<DatasetOrigin | undefined> {
  const folder = resolve(dir);
  let text: string | undefined;
  try {
    text = await readFile(join(folder, ORIGIN_FILE), 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    try {
      const parsed = JSON.parse(text) as Partial<DatasetOrigin>;
      if (
        typeof parsed.repo === 'string' &&
        typeof parsed.revision === 'string' &&
        typeof parsed.commit === 'string' &&
        Array.isArray(parsed.files)
      ) {
        return parsed as DatasetOrigin;
      }
    } catch {
      // A damaged record says nothing reliable; fall through as if there were none.
    }
  }
  return originFromCachePath(folder);
}

/** `.../datasets--Qwen--AgentWorldBench/snapshots/<sha>[/sub]` says repo and commit; refs/ say which branch led there. */
async function originFromCachePath(folder: string): Promise<DatasetOrigin | undefined> {
  const parts = folder.split(sep);
  const at = parts.lastIndexOf('snapshots');
  const sha = parts[at + 1];
  const repoFolder = parts[at - 1];
  if (at < 1 || sha === undefined || !COMMIT_SHA.test(sha) || !repoFolder?.startsWith('datasets--')) return undefined;
  const repo = repoFolder.slice('datasets--'.length).split('--').join('/');
  const storage = parts.slice(0, at).join(sep);
  let revision = sha;
  try {
    for (const ref of await readdir(join(storage, 'refs'), { recursive: true })) {
      const refPath = join(storage, 'refs', ref);
      if ((await lstat(refPath)).isFile() && (await readFile(refPath, 'utf8')).trim() === sha) {
        revision = ref.split(sep).join('/');
        if (revision === 'main') break;
      }
    }
  } catch {
    // No refs: the commit is all there is to say.
  }
  const found = await findTestFiles(folder, 2);
  const files: DatasetOrigin['files'] = [];
  for (const f of found?.files ?? []) {
    // A blob named by its git id (a file under the LFS threshold) is checked by it.
    const { gitOid } = await blobName(f.path);
    files.push({ domain: f.domain, file: basename(f.path), bytes: f.bytes, sha256: f.sha256, ...(gitOid ? { gitOid } : {}), commit: sha });
  }
  return { repo, revision, commit: sha, files };
}

/** The `*_test.jsonl` files in a folder, or in its one subfolder that has them (the cache mirrors the repo's layout). */
export async function findTestFiles(folder: string, depth = 0): Promise<{ dir: string; files: LocalFile[] } | undefined> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return undefined;
  }
  const files: LocalFile[] = [];
  for (const name of names.sort()) {
    const m = TEST_FILE.exec(name);
    if (!m) continue;
    const path = join(folder, name);
    const bytes = await sizeOf(path);
    if (bytes === undefined) continue;
    const { sha256 } = await blobName(path);
    files.push({ domain: m[1]!, path, bytes, ...(sha256 ? { sha256 } : {}) });
  }
  if (files.length) return { dir: folder, files: files.sort((a, b) => compareDomains(a.domain, b.domain)) };
  if (depth >= 2) return undefined;
  for (const name of names) {
    const inner = await findTestFiles(join(folder, name), depth + 1);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * A Hugging Face cache snapshot links each file to `blobs/<name>`, the name
 * being the file's SHA-256 for an LFS file (the dataset's are), else its git
 * blob id: so a run from the cache, offline included, records the same hashes
 * as a download.
 */
export async function blobName(path: string): Promise<{ target?: string; sha256?: string; gitOid?: string }> {
  const target = await readlink(path).catch(() => undefined);
  const name = target === undefined ? undefined : /(?:^|[/\\])blobs[/\\]([0-9a-f]{64}|[0-9a-f]{40})$/.exec(target)?.[1];
  return target === undefined || name === undefined ? {} : name.length === 64 ? { target, sha256: name } : { target, gitOid: name };
}

export async function sizeOf(path: string): Promise<number | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a file a folder's download record lists is as that download left it: a plain file of the
 * recorded size, not modified after the record was written. Such a file keeps its recorded hash
 * without being read again (hashing the 400 MB set costs about a second a run); one edited since,
 * or in a folder without a record, has to be hashed.
 */
export async function unchangedSinceRecord(dir: string, file: { file: string; bytes: number }): Promise<boolean> {
  try {
    const [st, record] = await Promise.all([lstat(join(dir, file.file)), stat(join(dir, ORIGIN_FILE))]);
    // Strictly older: file times tick in jiffies, so a write in the record's own tick could be an edit made after it.
    return st.isFile() && st.size === file.bytes && st.mtimeMs < record.mtimeMs;
  } catch {
    return false;
  }
}

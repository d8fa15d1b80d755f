import { posix } from 'node:path';
import { datasetInfo, downloadFile, listFiles, type ListFileEntry } from '@huggingface/hub';
import { COMMIT_SHA, TEST_FILE } from '../dataset/index.js';
import { compareDomains } from '../domains.js';
import { fail } from '../errors.js';
import type { HubStep, ListedField } from './faults.js';
import { shownUrl, visible } from '../shown.js';
import { answeredFrom, type OpenBody } from './fetch-file.js';
import { withRetries, type Hub, type RetryPolicy } from './hub-failure.js';

/* Talking to the Hub: which commit a revision is, and which `*_test.jsonl` files it holds. */

export interface Entry {
  domain: string;
  /** Path in the repo. */
  path: string;
  size: number;
  sha256?: string;
  /** The git blob id (Hugging Face); ModelScope lists only the SHA-256. */
  gitOid?: string;
}

/** The bytes of a listed file on the Hugging Face Hub, at an offset through the library's ranged reads. */
export function openHubFile(hub: Hub, commit: string, entry: Entry): OpenBody {
  return async (offset) => {
    // The library reads a range without checking that the server answered with one: the answer to the ranged request says where the body starts.
    let waiting: { resolve: (from: number) => void; reject: (err: unknown) => void } | undefined;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const mine = waiting && new Headers(init?.headers).get('range')?.startsWith(`bytes=${offset}-`) ? waiting : undefined;
      if (mine) waiting = undefined;
      try {
        const res = await hub.fetch(input, init);
        // A failed answer is the library's to report; the resume point stands.
        mine?.resolve(res.ok ? await answeredFrom(hub, entry, offset, res) : offset);
        return res;
      } catch (err) {
        mine?.reject(err);
        throw err;
      }
    };
    const blob = await downloadFile({
      repo: { type: 'dataset', name: hub.repo },
      path: entry.path,
      revision: commit,
      hubUrl: hub.hubUrl,
      accessToken: hub.accessToken,
      fetch,
    });
    if (!blob) throw fail({ kind: 'hub-file-missing', hub: shownUrl(hub.hubUrl), repo: hub.repo, commit, path: entry.path });
    if (offset === 0) return { body: blob.stream() as unknown as AsyncIterable<Uint8Array>, from: 0 };
    const from = new Promise<number>((resolve, reject) => (waiting = { resolve, reject }));
    const body = blob.slice(offset).stream() as unknown as AsyncIterable<Uint8Array>;
    // A plain file's ranged request goes out as the stream is made; a Xet file reads its ranges itself, trusted to.
    waiting?.resolve(offset);
    waiting = undefined;
    return { body, from: await from };
  };
}

export async function resolveCommit(hub: Hub, retry: RetryPolicy): Promise<string> {
  const doing: HubStep = { step: 'resolve', repo: hub.repo, revision: hub.revision };
  return withRetries(hub, retry, doing, undefined, undefined, async () => {
    const info = await datasetInfo({
      name: hub.repo,
      revision: hub.revision,
      additionalFields: ['sha'],
      hubUrl: hub.hubUrl,
      accessToken: hub.accessToken,
      fetch: hub.fetch,
    });
    const sha = (info as { sha?: unknown }).sha;
    if (typeof sha !== 'string' || !COMMIT_SHA.test(sha)) {
      throw fail({ kind: 'hub-no-commit', hub: shownUrl(hub.hubUrl), repo: hub.repo, revision: hub.revision });
    }
    return sha;
  });
}

export async function listTestFiles(hub: Hub, commit: string, retry: RetryPolicy): Promise<Entry[]> {
  const listed = await withRetries(hub, retry, { step: 'list', repo: hub.repo }, undefined, undefined, async () => {
    const out: (ListFileEntry & { oid: string })[] = [];
    let seen = 0;
    for await (const e of listFiles({
      repo: { type: 'dataset', name: hub.repo },
      revision: commit,
      recursive: true,
      hubUrl: hub.hubUrl,
      accessToken: hub.accessToken,
      fetch: hub.fetch,
    })) {
      // A mirror could page forever; the dataset's repo holds a few dozen files.
      if (++seen > MAX_LISTED) {
        throw fail({ kind: 'hub-too-many-files', hub: shownUrl(hub.hubUrl), repo: hub.repo, max: MAX_LISTED });
      }
      // Only test files are used; every other name is ignored unread, whatever it holds.
      if (e.type === 'file' && typeof e.path === 'string' && TEST_FILE.test(posix.basename(e.path))) out.push(checked(hub, e));
    }
    return out;
  });
  if (listed.length === 0) {
    throw fail({ kind: 'hub-has-no-test-files', repo: hub.repo, revision: hub.revision });
  }
  return chooseFolder(listed)
    .map((e) => ({
      domain: TEST_FILE.exec(posix.basename(e.path))![1]!,
      path: e.path,
      size: e.size,
      sha256: e.lfs?.oid,
      gitOid: e.oid,
    }))
    .sort((a, b) => compareDomains(a.domain, b.domain));
}

const GIT_SHA1 = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** A domain is a plain word; it becomes a file name and a label on the terminal. */
const DOMAIN = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * A listed test file, refused unless every value we build paths from is what
 * the Hub would send: a relative path of plain segments named
 * `{domain}_test.jsonl`, hex hashes of the right length, a whole size. A
 * mirror could otherwise steer writes out of the target folder or the cache.
 */
function checked(hub: Hub, e: ListFileEntry): ListFileEntry & { oid: string } {
  const bad = unsafe(hub);
  checkListed(hub, e.path, e.size);
  if (typeof e.oid !== 'string' || !GIT_SHA1.test(e.oid)) bad({ field: 'oid', path: e.path }, e.oid);
  if (e.lfs !== undefined && (typeof e.lfs.oid !== 'string' || !SHA256.test(e.lfs.oid))) bad({ field: 'LFS oid', path: e.path }, e.lfs.oid);
  if (e.lfs !== undefined && e.lfs.size !== e.size) bad({ field: 'LFS size', path: e.path }, e.lfs.size);
  return e as ListFileEntry & { oid: string };
}

function unsafe(hub: Hub): (what: ListedField, value: unknown) => never {
  return (what, value) => {
    throw fail({ kind: 'hub-listing-unsafe', hub: shownUrl(hub.hubUrl), what, value: JSON.stringify(value) ?? String(value) });
  };
}

/** The checks every hub's listing gets: a path of plain segments ending in `{domain}_test.jsonl`, a whole size. */
export function checkListed(hub: Hub, path: unknown, size: unknown): void {
  const bad = unsafe(hub);
  if (typeof path !== 'string') return bad({ field: 'path' }, path);
  const segments = path.split('/');
  if (!segments.every((s) => s !== '' && s !== '.' && s !== '..' && !/[\\\0:]/.test(s) && visible(s) === s)) bad({ field: 'path' }, path);
  const m = TEST_FILE.exec(segments.at(-1)!);
  if (!m || !DOMAIN.test(m[1]!)) bad({ field: 'file name' }, path);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) bad({ field: 'size', path }, size);
}

/** A listed SHA-256, refused unless it is one. */
export function checkSha256(hub: Hub, path: string, value: unknown): string {
  if (typeof value !== 'string' || !SHA256.test(value)) unsafe(hub)({ field: 'SHA-256', path }, value);
  return value as string;
}

/** The official layout keeps the files side by side; if they ever move into a folder, follow the folder with the most of them. */
export function chooseFolder<T extends { path: string }>(listed: T[]): T[] {
  const byFolder = new Map<string, T[]>();
  for (const e of listed) {
    const folder = posix.dirname(e.path);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), e]);
  }
  const [, chosen] = [...byFolder.entries()].sort(
    ([a, ea], [b, eb]) => eb.length - ea.length || a.split('/').length - b.split('/').length || (a < b ? -1 : 1),
  )[0]!;
  return chosen;
}

export const MAX_LISTED = 100_000;

export function selectDomains(entries: Entry[], requested: string[] | undefined, hub: Pick<Hub, 'repo' | 'revision'>): Entry[] {
  if (!requested || requested.length === 0) return entries;
  const available = entries.map((e) => e.domain);
  const unknown = requested.filter((d) => !available.includes(d));
  if (unknown.length) {
    throw fail({ kind: 'domains-not-in-dataset', domains: unknown, repo: hub.repo, revision: hub.revision, available });
  }
  return entries.filter((e) => requested.includes(e.domain));
}

import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import {
  datasetInfo,
  downloadFile,
  downloadFileToCacheDir,
  getHFHubCachePath,
  getRepoFolderName,
  HubApiError,
  InvalidApiResponseFormatError,
  listFiles,
  type ListFileEntry,
} from '@huggingface/hub';
import { compareDomains } from './domains.js';
import { UserError } from './errors.js';
import { fileError } from './jsonl.js';
import { COMMIT_SHA, findTestFiles, ORIGIN_FILE, readDatasetOrigin, sizeOf, TEST_FILE, type DatasetOrigin, type LocalFile } from './dataset-origin.js';

export { ORIGIN_FILE, readDatasetOrigin, type DatasetOrigin } from './dataset-origin.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';
/** Written into a `--dir` download so later runs on that folder can say which data they used. */

export interface DownloadProgress {
  file: string;
  bytes: number;
  total: number;
  done: boolean;
  skipped?: boolean;
}

export interface DownloadOptions {
  repo: string;
  /** Branch, tag or commit. */
  revision: string;
  /** Plain folder target (official layout); default: the Hugging Face cache (snapshot folder). */
  dir?: string;
  /** Default: every `*_test.jsonl` in the repo. */
  domains?: string[];
  /** Default: `$HF_ENDPOINT`, else https://huggingface.co. */
  hubUrl?: string;
  /** Default: `$HF_TOKEN`, else `$HUGGING_FACE_HUB_TOKEN`, else the token `hf auth login` saved. */
  token?: string;
  onProgress?: (e: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Further attempts after a broken connection, a 5xx or a 429 (default 2). */
  retries?: number;
  /** Wait before the first retry, doubled each time (default 2000 ms). */
  retryDelayMs?: number;
}

export interface DownloadedDataset {
  /** Folder holding `{domain}_test.jsonl`, usable as `--data`. */
  dir: string;
  repo: string;
  revision: string;
  /** Resolved commit sha. */
  commit: string;
  files: LocalFile[];
  /** True when the Hub was not asked (HF_HUB_OFFLINE, or unreachable) and a complete local copy was used. */
  offline?: boolean;
}



interface Entry {
  domain: string;
  /** Path in the repo. */
  path: string;
  size: number;
  sha256?: string;
  gitOid?: string;
  /** The name of the blob in the Hugging Face cache, as the library chooses it. */
  cacheEtag?: string;
}

interface Hub {
  repo: string;
  revision: string;
  hubUrl: string;
  accessToken: string | undefined;
  tokenSource: string | undefined;
  signal: AbortSignal | undefined;
  fetch: typeof fetch;
  failures: FailureLog;
  /** Cache downloads are written by the library; the only place to count their bytes is the response body. */
  countBytes: ((n: number) => void) | undefined;
}

/** Downloads (or finds up to date) the dataset's `*_test.jsonl` files and says where they are. */
export async function downloadDataset(opts: DownloadOptions): Promise<DownloadedDataset> {
  const hubUrl = resolveHubUrl(opts.hubUrl);
  const { token, source: tokenSource } = await resolveToken(opts.token);
  const failures = new FailureLog();
  const hub: Hub = {
    repo: opts.repo,
    revision: opts.revision,
    hubUrl,
    accessToken: token,
    tokenSource,
    signal: opts.signal,
    failures,
    fetch: (input, init) => watched(input, init),
    countBytes: undefined,
  };
  const watched = watchedFetch(hub);
  const dir = opts.dir === undefined ? undefined : resolve(opts.dir);

  if (isTruthy(process.env.HF_HUB_OFFLINE)) {
    const local = await findLocalCopy(opts, dir);
    if (local) return local;
    throw new UserError(
      `HF_HUB_OFFLINE is set and there is no complete local copy of ${opts.repo} at ${opts.revision} in ${dir ?? cacheStorage(opts.repo)}`,
    );
  }

  let commit: string;
  let entries: Entry[];
  try {
    commit = await resolveCommit(hub);
    entries = await listTestFiles(hub, commit);
  } catch (err) {
    // Re-running on a machine that has lost the network (or never had it, on a cluster node) should not need the Hub.
    if (err instanceof UserError && failures.network && !failures.network.midBody) {
      const local = await findLocalCopy(opts, dir);
      if (local) return local;
    }
    throw err;
  }
  const wanted = selectDomains(entries, opts.domains, `${opts.repo} at ${opts.revision}`);
  const retry = { retries: opts.retries ?? 2, delayMs: opts.retryDelayMs ?? 2000 };
  return dir === undefined
    ? downloadToCache(hub, commit, wanted, opts, retry)
    : downloadToFolder(hub, commit, wanted, dir, opts, retry);
}


// ---------------------------------------------------------------------------
// Settings

function resolveHubUrl(explicit: string | undefined): string {
  const fromEnv = process.env.HF_ENDPOINT?.trim() || undefined;
  const value = explicit ?? fromEnv ?? DEFAULT_HUB_URL;
  const what = explicit !== undefined ? 'the hub URL' : fromEnv !== undefined ? 'HF_ENDPOINT' : 'the hub URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UserError(`${what} is not a URL: "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UserError(`${what} must be an http(s) URL, got "${value}"`);
  return value.replace(/\/+$/, '');
}

function hfHome(): string {
  return process.env.HF_HOME || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
}

/** Same order as the Python client: explicit, HF_TOKEN, the legacy variable, then the file `hf auth login` writes. */
async function resolveToken(explicit: string | undefined): Promise<{ token?: string; source?: string }> {
  let token: string | undefined;
  let source: string | undefined;
  if (explicit !== undefined && explicit.trim() !== '') {
    [token, source] = [explicit.trim(), 'the access token'];
  } else if (process.env.HF_TOKEN?.trim()) {
    [token, source] = [process.env.HF_TOKEN.trim(), 'HF_TOKEN'];
  } else if (process.env.HUGGING_FACE_HUB_TOKEN?.trim()) {
    [token, source] = [process.env.HUGGING_FACE_HUB_TOKEN.trim(), 'HUGGING_FACE_HUB_TOKEN'];
  } else {
    const path = process.env.HF_TOKEN_PATH || join(hfHome(), 'token');
    try {
      const saved = (await readFile(path, 'utf8')).trim();
      if (saved) [token, source] = [saved, `the token saved in ${path}`];
    } catch {
      // No saved login: anonymous access, which is all a public dataset needs.
    }
  }
  // The library throws a bare TypeError for these before sending anything; say which setting is wrong instead.
  if (token !== undefined && !token.startsWith('hf_')) {
    throw new UserError(`${source} does not look like a Hugging Face access token (those start with "hf_"); fix it or unset it`);
  }
  return { token, source };
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

function cacheStorage(repo: string): string {
  return join(getHFHubCachePath(), getRepoFolderName({ type: 'dataset', name: repo }));
}

// ---------------------------------------------------------------------------
// Talking to the Hub

async function resolveCommit(hub: Hub): Promise<string> {
  const doing = `resolving ${hub.repo} at ${hub.revision}`;
  return hubCall(hub, doing, undefined, async () => {
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
      throw new UserError(`${hub.hubUrl} did not say which commit ${hub.repo} at ${hub.revision} is (no "sha" in its answer); is it a Hugging Face Hub or mirror?`);
    }
    return sha;
  });
}

async function listTestFiles(hub: Hub, commit: string): Promise<Entry[]> {
  const listed = await hubCall(hub, `listing the files of ${hub.repo}`, undefined, async () => {
    const out: ListFileEntry[] = [];
    for await (const e of listFiles({
      repo: { type: 'dataset', name: hub.repo },
      revision: commit,
      recursive: true,
      hubUrl: hub.hubUrl,
      accessToken: hub.accessToken,
      fetch: hub.fetch,
    })) {
      if (e.type === 'file' && TEST_FILE.test(posix.basename(e.path))) out.push(e);
    }
    return out;
  });
  if (listed.length === 0) {
    throw new UserError(`${hub.repo} at ${hub.revision} has no *_test.jsonl files; is it the AgentWorldBench dataset?`);
  }
  // The official layout keeps the files side by side; if they ever move into a folder, follow the folder with the most of them.
  const byFolder = new Map<string, ListFileEntry[]>();
  for (const e of listed) {
    const folder = posix.dirname(e.path);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), e]);
  }
  const [, chosen] = [...byFolder.entries()].sort(
    ([a, ea], [b, eb]) => eb.length - ea.length || a.split('/').length - b.split('/').length || (a < b ? -1 : 1),
  )[0]!;
  return chosen
    .map((e) => ({
      domain: TEST_FILE.exec(posix.basename(e.path))![1]!,
      path: e.path,
      size: e.size,
      sha256: e.lfs?.oid,
      gitOid: e.oid,
      cacheEtag: e.lfs?.oid ?? e.xetHash ?? e.oid,
    }))
    .sort((a, b) => compareDomains(a.domain, b.domain));
}

function selectDomains(entries: Entry[], requested: string[] | undefined, where: string): Entry[] {
  if (!requested || requested.length === 0) return entries;
  const available = entries.map((e) => e.domain);
  const unknown = requested.filter((d) => !available.includes(d));
  if (unknown.length) {
    const list = unknown.map((d) => `"${d}"`).join(', ');
    throw new UserError(`no domain ${list} in ${where}; it has: ${available.join(', ')}`);
  }
  return entries.filter((e) => requested.includes(e.domain));
}

// ---------------------------------------------------------------------------
// The Hugging Face cache

async function downloadToCache(
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

async function libraryDownload(hub: Hub, commit: string, entry: Entry, cacheDir: string, retry: RetryPolicy, onRetry?: () => void): Promise<void> {
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

// ---------------------------------------------------------------------------
// A plain folder

async function downloadToFolder(
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
  await writeAtomically(join(dir, ORIGIN_FILE), JSON.stringify(origin, null, 2) + '\n');
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
          for (let off = 0; off < chunk.length; ) {
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

async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw fileError(path, err);
  }
}

// ---------------------------------------------------------------------------
// Local copies (offline)

async function findLocalCopy(opts: DownloadOptions, dir: string | undefined): Promise<DownloadedDataset | undefined> {
  if (dir !== undefined) {
    const origin = await readDatasetOrigin(dir);
    if (!origin || origin.repo !== opts.repo || (origin.revision !== opts.revision && origin.commit !== opts.revision)) return undefined;
    const wanted = opts.domains?.length ? origin.files.filter((f) => opts.domains!.includes(f.domain)) : origin.files;
    if (opts.domains?.length && wanted.length !== opts.domains.length) return undefined;
    for (const f of wanted) {
      if ((await sizeOf(join(dir, f.file))) !== f.bytes) return undefined;
    }
    if (wanted.length === 0) return undefined;
    return {
      dir,
      repo: origin.repo,
      revision: opts.revision,
      commit: origin.commit,
      files: wanted.map((f) => ({ domain: f.domain, path: join(dir, f.file), bytes: f.bytes })),
      offline: true,
    };
  }
  const storage = cacheStorage(opts.repo);
  let commit = COMMIT_SHA.test(opts.revision) ? opts.revision : undefined;
  if (commit === undefined) {
    try {
      commit = (await readFile(join(storage, 'refs', opts.revision), 'utf8')).trim();
    } catch {
      return undefined;
    }
  }
  const snapshot = join(storage, 'snapshots', commit);
  const found = await findTestFiles(snapshot);
  if (!found) return undefined;
  const wanted = opts.domains?.length ? found.files.filter((f) => opts.domains!.includes(f.domain)) : found.files;
  if (wanted.length === 0 || (opts.domains?.length && wanted.length !== opts.domains.length)) return undefined;
  return { dir: found.dir, repo: opts.repo, revision: opts.revision, commit, files: wanted, offline: true };
}



async function exists(path: string): Promise<boolean> {
  return (await sizeOf(path)) !== undefined;
}


function progressReporter(onProgress: DownloadOptions['onProgress'], file: string, total: number) {
  let last = 0;
  return (bytes: number, done: boolean, skipped?: boolean): void => {
    if (!onProgress) return;
    const now = Date.now();
    // Chunks arrive every few KB; a tenth of a second is plenty for a progress bar.
    if (!done && bytes > 0 && now - last < 100) return;
    last = now;
    onProgress({ file, bytes, total, done, ...(skipped ? { skipped: true } : {}) });
  };
}

// ---------------------------------------------------------------------------
// Failures: the library throws HubApiError for HTTP errors, undici's
// TypeError('fetch failed') for network errors, and, when a download stream
// fails, only the error's message as a string. Watching every request in our
// own fetch keeps the status, error code and URL whatever reaches us.

interface NetworkFailure {
  url: string;
  code: string;
  /** The connection broke after the response had started. */
  midBody: boolean;
}

interface HttpFailure {
  url: string;
  status: number;
  errorCode: string | undefined;
}

class FailureLog {
  network: NetworkFailure | undefined;
  http: HttpFailure | undefined;
  clear(): void {
    this.network = undefined;
    this.http = undefined;
  }
}

class HubNetworkError extends Error {
  constructor(readonly failure: NetworkFailure) {
    super(`${failure.midBody ? 'connection broke while reading' : 'cannot reach'} ${failure.url} (${failure.code})`);
  }
}

function watchedFetch(hub: Hub): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const signal = hub.signal;
    let res: Response;
    try {
      res = await fetch(input, { ...init, ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = { url, code: errorCode(err), midBody: false };
      hub.failures.network = failure;
      throw new HubNetworkError(failure);
    }
    if (!res.ok) {
      hub.failures.http = { url, status: res.status, errorCode: res.headers.get('X-Error-Code') ?? undefined };
      return res;
    }
    const isProbe = new Headers(init?.headers).get('range') === 'bytes=0-0';
    if (!res.body || isProbe || (init?.method ?? 'GET') !== 'GET' || !new URL(url).pathname.includes('/resolve/')) return res;
    const reader = res.body.getReader();
    const count = hub.countBytes;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
          } else {
            count?.(value.byteLength);
            controller.enqueue(value);
          }
        } catch (err) {
          if (signal?.aborted) return controller.error(err);
          const failure = { url, code: errorCode(err), midBody: true };
          hub.failures.network = failure;
          controller.error(new HubNetworkError(failure));
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    const wrapped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    // The library compares the response URL's origin with the hub's; a new Response has none of its own.
    Object.defineProperty(wrapped, 'url', { value: res.url });
    return wrapped;
  };
}

/** undici wraps the system error (ECONNREFUSED, ENOTFOUND, ...) in `cause`, sometimes in an AggregateError; else the innermost message says most. */
function errorCode(err: unknown): string {
  let e: unknown = err;
  let message = err instanceof Error ? err.message : String(err);
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (e instanceof Error && e.message) message = e.message;
    const errors = (e as { errors?: unknown[] }).errors;
    e = (e as { cause?: unknown }).cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return message;
}

interface RetryPolicy {
  retries: number;
  delayMs: number;
}

const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

async function withRetries<T>(
  hub: Hub,
  retry: RetryPolicy,
  doing: string,
  file: string | undefined,
  onRetry: (() => void) | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await hubCall(hub, doing, file, fn);
    } catch (err) {
      const net = hub.failures.network;
      const status = hub.failures.http?.status;
      const transient = (net && (net.midBody || TRANSIENT_CODES.has(net.code))) || (status !== undefined && (status >= 500 || status === 429));
      if (!transient || attempt >= retry.retries || hub.signal?.aborted) throw err;
      await sleep(retry.delayMs * 2 ** attempt, hub.signal);
      onRetry?.();
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort(): void {
      clearTimeout(timer);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** Runs one step against the Hub and turns what can go wrong into a one-line UserError naming the hub and the file. */
async function hubCall<T>(hub: Hub, doing: string, file: string | undefined, fn: () => Promise<T>): Promise<T> {
  hub.failures.clear();
  try {
    return await fn();
  } catch (err) {
    if (hub.signal?.aborted) throw hub.signal.reason ?? err;
    throw explain(hub, err, doing, file);
  }
}

function explain(hub: Hub, err: unknown, doing: string, file: string | undefined): unknown {
  if (err instanceof UserError) return err;
  const what = `${hub.repo} at ${hub.revision}`;
  const net = err instanceof HubNetworkError ? err.failure : hub.failures.network;
  if (net) {
    if (net.midBody) {
      return new UserError(`the connection to ${hub.hubUrl} broke while ${doing} (${net.code}); nothing partial was kept, run the command again`);
    }
    const hint = hub.hubUrl === DEFAULT_HUB_URL ? '; check the network, or set HF_ENDPOINT to a mirror' : '; check the network and HF_ENDPOINT';
    return new UserError(`cannot reach ${hub.hubUrl} (${net.code}) while ${doing}${hint}`);
  }
  const http = err instanceof HubApiError ? { status: err.statusCode, url: err.url, errorCode: hub.failures.http?.errorCode } : hub.failures.http;
  if (http) {
    const { status, errorCode: code } = http;
    if (code === 'RevisionNotFound') return new UserError(`no revision "${hub.revision}" in dataset ${hub.repo} on ${hub.hubUrl}`);
    if (code === 'EntryNotFound') return new UserError(`${file ?? 'a file'} is missing from ${what} on ${hub.hubUrl}`);
    if (code === 'RepoNotFound' && status === 404) return new UserError(`no dataset repo ${hub.repo} on ${hub.hubUrl}`);
    if (status === 401 || status === 403) {
      const fix = hub.tokenSource
        ? `${hub.tokenSource} was sent but does not give access: check it, and accept the dataset's terms on its page if it is gated`
        : 'if it exists and is private or gated, set HF_TOKEN to a token that can read it';
      return new UserError(`access denied to dataset ${hub.repo} on ${hub.hubUrl} (HTTP ${status}) while ${doing}; ${fix}`);
    }
    if (status === 404) return new UserError(`no dataset repo/revision ${what} on ${hub.hubUrl} (HTTP 404 for ${http.url})`);
    if (status === 429) return new UserError(`${hub.hubUrl} is rate-limiting requests (HTTP 429) while ${doing}; wait a while and run the command again`);
    return new UserError(`${hub.hubUrl} answered HTTP ${status} while ${doing}; try again later`);
  }
  if (err instanceof InvalidApiResponseFormatError) {
    return new UserError(`unexpected answer from ${hub.hubUrl} while ${doing} (${err.message}); is it a Hugging Face Hub or mirror?`);
  }
  // The library passes stream failures on as bare strings; keep them debuggable as errors with a stack.
  return typeof err === 'string' ? new Error(`${doing} from ${hub.hubUrl}: ${err}`) : err;
}

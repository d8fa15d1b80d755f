import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { checkRecordedFiles, COMMIT_SHA, findTestFiles, type HubKind, readDatasetOrigin, type LocalFile } from '../dataset/index.js';
import { downloadToCache, snapshotFileIntact } from './download-cache.js';
import { downloadToFolder } from './download-folder.js';
import type { DownloadProgress } from './download-progress.js';
import { DATASET_REPO } from '../domains.js';
import { FaultError, fail } from '../errors.js';
import { FailureLog, watchedFetch, type Hub } from './hub-failure.js';
import { shownUrl } from '../shown.js';
import { listTestFiles, openHubFile, resolveCommit, selectDomains, type Entry } from './hub-listing.js';
import { cacheStorage, isTruthy, resolveHubUrl, resolveToken } from './hub-settings.js';
import { listModelScope, modelScopeCache, modelScopeToken, modelScopeUrl, openModelScopeFile } from './modelscope.js';

export type { DownloadProgress } from './download-progress.js';

export interface DownloadOptions {
  /** Which hub (default huggingface). ModelScope keeps its files in a plain folder, as its SDK does. */
  source?: HubKind;
  repo: string;
  /** Branch, tag or commit. */
  revision: string;
  /** Plain folder target (official layout); default: the Hugging Face cache (snapshot folder), or ModelScope's dataset cache. */
  dir?: string;
  /** Default: every `*_test.jsonl` in the repo. */
  domains?: string[];
  /** Default: `$HF_ENDPOINT`, else https://huggingface.co (ModelScope: `$MODELSCOPE_ENDPOINT`, `$MODELSCOPE_DOMAIN`). */
  hubUrl?: string;
  /** Default: `$HF_TOKEN`, else `$HUGGING_FACE_HUB_TOKEN`, else the token `hf auth login` saved (ModelScope: `$MODELSCOPE_API_TOKEN`). */
  token?: string;
  onProgress?: (e: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Further attempts after a broken connection, a 5xx or a 429 (default 2). */
  retries?: number;
  /** Wait before the first retry, doubled each time (default 2000 ms). */
  retryDelayMs?: number;
  /** Seconds without a byte from the hub before a request is given up (default 60). */
  timeoutSeconds?: number;
  /** Largest file size accepted from a listing, in bytes (default MAX_FILE_BYTES). */
  maxFileBytes?: number;
}

const REPO_PART = '[A-Za-z0-9][A-Za-z0-9._-]*';
const HF_REPO = new RegExp(`^(?:${REPO_PART}/)?${REPO_PART}$`);
const MODELSCOPE_REPO = new RegExp(`^${REPO_PART}/${REPO_PART}$`);

/** Far above any test file of the dataset (all seven are about 400 MB together), far below a disk's worth. */
const MAX_FILE_BYTES = 2 * 1024 ** 3;
const IDLE_SECONDS = 60;

export type OfflineReason = 'HF_HUB_OFFLINE' | 'unreachable';

export interface DownloadedDataset {
  /** Folder holding `{domain}_test.jsonl`, usable as `--data`. */
  dir: string;
  hub: HubKind;
  repo: string;
  revision: string;
  /** Resolved commit sha (ModelScope: the commit its listing names). */
  commit: string;
  files: LocalFile[];
  /** Set when a complete local copy was used without the hub: why (HF_HUB_OFFLINE set, or the hub unreachable). */
  offline?: OfflineReason;
}

/** Downloads (or finds up to date) the dataset's `*_test.jsonl` files and says where they are. */
export async function downloadDataset(opts: DownloadOptions): Promise<DownloadedDataset> {
  // The revision names a ref file in the cache; it must not be able to name one elsewhere.
  if (opts.revision.split('/').some((s) => s === '' || s === '.' || s === '..' || /[\\\0]/.test(s))) {
    throw fail({ kind: 'revision-invalid', revision: opts.revision });
  }
  const kind = opts.source ?? 'huggingface';
  const ms = kind === 'modelscope';
  // It names routes on the hub and folders in the cache: plain segments only (ModelScope has no repo without an owner).
  if (!(ms ? MODELSCOPE_REPO : HF_REPO).test(opts.repo) || opts.repo.includes('..')) {
    throw fail({ kind: 'repo-invalid', repo: opts.repo, example: DATASET_REPO });
  }
  const hubUrl = ms ? (opts.hubUrl ?? modelScopeUrl()) : resolveHubUrl(opts.hubUrl);
  const { token, source: tokenSource } = ms
    ? {
        token: opts.token ?? modelScopeToken(),
        source: opts.token ? 'the access token' : modelScopeToken() ? 'MODELSCOPE_API_TOKEN' : undefined,
      }
    : await resolveToken(opts.token);
  const failures = new FailureLog();
  const hub: Hub = {
    kind,
    repo: opts.repo,
    revision: opts.revision,
    hubUrl,
    accessToken: token,
    tokenSource,
    signal: opts.signal,
    failures,
    fetch: (input, init) => watched(input, init),
    idleSeconds: opts.timeoutSeconds ?? IDLE_SECONDS,
    fileLimit: undefined,
  };
  const watched = watchedFetch(hub);
  const dir = opts.dir === undefined ? (ms ? modelScopeCache(opts.repo) : undefined) : resolve(opts.dir);

  if (!ms && isTruthy(process.env.HF_HUB_OFFLINE)) {
    const local = await findLocalCopy(opts, dir, 'HF_HUB_OFFLINE');
    if (local) return local;
    throw fail({ kind: 'offline-no-copy', repo: opts.repo, revision: opts.revision, where: dir ?? cacheStorage(opts.repo) });
  }

  const retry = { retries: opts.retries ?? 2, delayMs: opts.retryDelayMs ?? 2000 };
  let commit: string;
  let entries: Entry[];
  try {
    if (ms) ({ commit, entries } = await listModelScope(hub, retry));
    else {
      commit = await resolveCommit(hub, retry);
      entries = await listTestFiles(hub, commit, retry);
    }
  } catch (err) {
    // Re-running on a machine that has lost the network (or never had it, on a cluster node) should not need the Hub.
    if (err instanceof FaultError && failures.network && !failures.network.midBody) {
      const local = await findLocalCopy(opts, dir, 'unreachable');
      if (local) return local;
    }
    throw err;
  }
  const wanted = selectDomains(entries, opts.domains, opts);
  const cap = opts.maxFileBytes ?? MAX_FILE_BYTES;
  const huge = wanted.find((e) => e.size > cap);
  if (huge) {
    throw fail({ kind: 'hub-file-too-big', hub: shownUrl(hubUrl), path: huge.path, size: huge.size, cap });
  }
  const open = (entry: Entry) => (ms ? openModelScopeFile(hub, entry) : openHubFile(hub, commit, entry));
  return dir === undefined
    ? downloadToCache(hub, commit, wanted, opts, retry, open)
    : downloadToFolder(hub, commit, wanted, dir, opts, retry, open);
}

// Local copies (offline)

async function findLocalCopy(
  opts: DownloadOptions,
  dir: string | undefined,
  offline: OfflineReason,
): Promise<DownloadedDataset | undefined> {
  if (dir !== undefined) {
    const origin = await readDatasetOrigin(dir);
    if (!origin || origin.repo !== opts.repo || (origin.hub ?? 'huggingface') !== (opts.source ?? 'huggingface')) return undefined;
    if (origin.revision !== opts.revision && origin.commit !== opts.revision) return undefined;
    const wanted = opts.domains?.length ? origin.files.filter((f) => opts.domains!.includes(f.domain)) : origin.files;
    if (opts.domains?.length && wanted.length !== opts.domains.length) return undefined;
    if (wanted.length === 0) return undefined;
    const checked = await checkRecordedFiles(dir, { ...origin, files: wanted });
    if (checked.length !== wanted.length || !checked.every((c) => c.asRecorded)) return undefined;
    return {
      dir,
      hub: opts.source ?? 'huggingface',
      repo: origin.repo,
      revision: opts.revision,
      commit: origin.commit,
      files: wanted.map((f, i) => ({ domain: f.domain, path: join(dir, f.file), bytes: f.bytes, sha256: checked[i]!.sha256 })),
      offline,
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
  // A blob edited since the download is not the hub's file, whatever its name says.
  const files: LocalFile[] = [];
  for (const f of wanted) {
    const sha256 = await snapshotFileIntact(f.path);
    if (sha256 === undefined) return undefined;
    files.push({ ...f, sha256 });
  }
  return { dir: found.dir, hub: 'huggingface', repo: opts.repo, revision: opts.revision, commit, files, offline };
}

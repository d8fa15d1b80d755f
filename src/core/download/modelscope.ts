import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import { TEST_FILE } from '../dataset/index.js';
import { compareDomains } from '../domains.js';
import { fail } from '../errors.js';
import type { HubStep } from './faults.js';
import { shownUrl } from '../shown.js';
import { answeredFrom, type OpenBody } from './fetch-file.js';
import { withRetries, type Hub, type RetryPolicy } from './hub-failure.js';
import { checkListed, checkSha256, chooseFolder, MAX_LISTED, type Entry } from './hub-listing.js';
import { checkedHubUrl } from './hub-settings.js';

/*
 * ModelScope, the hub users in China reach without a proxy: its own routes
 * and JSON envelope (`{Code, Data, Message, Success}`), the same files. The
 * bytes go through the same checked, resumable fetchVerified as the
 * Hugging Face path.
 */

const DEFAULT_MODELSCOPE_URL = 'https://www.modelscope.cn';
const PAGE_SIZE = 200;
/** A commit id as entries name it: a word, never a path. */
const REVISION = /^[0-9A-Za-z._-]{1,128}$/;

/** MODELSCOPE_ENDPOINT (a URL, the newer SDK), else MODELSCOPE_DOMAIN (a host, the older one), else modelscope.cn. */
export function modelScopeUrl(): string {
  const endpoint = process.env.MODELSCOPE_ENDPOINT?.trim();
  if (endpoint) return checkedHubUrl(endpoint, 'MODELSCOPE_ENDPOINT', 'MODELSCOPE_API_TOKEN');
  const domain = process.env.MODELSCOPE_DOMAIN?.trim();
  if (domain) return checkedHubUrl(/^https?:\/\//.test(domain) ? domain : `https://${domain}`, 'MODELSCOPE_DOMAIN', 'MODELSCOPE_API_TOKEN');
  return DEFAULT_MODELSCOPE_URL;
}

export function modelScopeToken(): string | undefined {
  return process.env.MODELSCOPE_API_TOKEN?.trim() || undefined;
}

/** Where the modelscope SDK keeps a dataset: `$MODELSCOPE_CACHE` (default ~/.cache/modelscope) `/hub/datasets/{owner}/{name}`. */
export function modelScopeCache(repo: string): string {
  const root = process.env.MODELSCOPE_CACHE || join(homedir(), '.cache', 'modelscope');
  return join(root, 'hub', 'datasets', ...repo.split('/'));
}

/** The token goes as the SDK sends it: a bearer token and the `m_session_id` cookie. */
function modelScopeFetch(hub: Hub): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (hub.accessToken) {
      headers.set('Authorization', `Bearer ${hub.accessToken}`);
      headers.set('Cookie', `m_session_id=${hub.accessToken}`);
    }
    return hub.fetch(input, { ...init, headers });
  };
}

function datasetUrl(hub: Hub, route: string, query: Record<string, string>): string {
  const [owner, name] = hub.repo.split('/').map(encodeURIComponent);
  return `${hub.hubUrl}/api/v1/datasets/${owner}/${name}${route}?${new URLSearchParams(query).toString()}`;
}

/** An error answer: its small envelope is read to the end so the connection is reused; hub.failures has the status for the message. */
async function failed(res: Response): Promise<never> {
  await res.text().catch(() => undefined);
  throw new Error(`HTTP ${res.status}`);
}

/** The `Data` of an answer; a failed one throws (its status is in hub.failures for the message). */
async function envelope(hub: Hub, res: Response, doing: HubStep): Promise<unknown> {
  if (!res.ok) return failed(res);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw fail({ kind: 'hub-unexpected-answer', hubKind: 'modelscope', hub: shownUrl(hub.hubUrl), doing });
  }
  const env = body as { Success?: unknown; Data?: unknown } | null;
  if (env?.Success !== true) {
    throw fail({ kind: 'hub-not-success', hub: shownUrl(hub.hubUrl), doing });
  }
  return env.Data;
}

/**
 * Lists the `*_test.jsonl` files page by page until a page comes back short
 * or empty, each checked like a Hugging Face listing, with its SHA-256. The
 * commit is what the entries name (`Revision`).
 */
export async function listModelScope(hub: Hub, retry: RetryPolicy): Promise<{ commit: string; entries: Entry[] }> {
  const doing: HubStep = { step: 'list', repo: hub.repo };
  const msFetch = modelScopeFetch(hub);
  const listed = await withRetries(hub, retry, doing, undefined, undefined, async () => {
    const out: (Entry & { revision: string })[] = [];
    let seen = 0;
    for (let page = 1; ; page++) {
      const url = datasetUrl(hub, '/repo/tree', {
        Revision: hub.revision,
        Recursive: 'True',
        PageNumber: String(page),
        PageSize: String(PAGE_SIZE),
      });
      const data = (await envelope(hub, await msFetch(url), doing)) as { Files?: unknown } | null;
      const files = data?.Files ?? [];
      if (!Array.isArray(files)) throw fail({ kind: 'hub-no-file-list', hub: shownUrl(hub.hubUrl) });
      for (const f of files as Record<string, unknown>[]) {
        if (++seen > MAX_LISTED) {
          throw fail({ kind: 'hub-too-many-files', hub: shownUrl(hub.hubUrl), repo: hub.repo, max: MAX_LISTED });
        }
        const path = f?.Path;
        // Only test files are used; every other name is ignored unread, whatever it holds.
        if (f?.Type !== 'blob' || typeof path !== 'string' || !TEST_FILE.test(posix.basename(path))) continue;
        checkListed(hub, path, f.Size);
        const sha256 = checkSha256(hub, path, f.Sha256);
        const revision = f.Revision;
        if (typeof revision !== 'string' || !REVISION.test(revision)) {
          throw fail({ kind: 'hub-bad-revision', hub: shownUrl(hub.hubUrl), path, value: JSON.stringify(revision) ?? 'none' });
        }
        out.push({ domain: TEST_FILE.exec(posix.basename(path))![1]!, path, size: f.Size as number, sha256, revision });
      }
      if (files.length < PAGE_SIZE) return out;
    }
  });
  if (listed.length === 0) {
    throw fail({ kind: 'hub-has-no-test-files', repo: hub.repo, revision: hub.revision });
  }
  const chosen = chooseFolder(listed).sort((a, b) => compareDomains(a.domain, b.domain));
  return { commit: chosen[0]!.revision, entries: chosen.map(({ revision: _, ...e }) => e) };
}

/** The bytes of a listed file, from an offset with a Range request. */
export function openModelScopeFile(hub: Hub, entry: Entry): OpenBody {
  const msFetch = modelScopeFetch(hub);
  return async (offset) => {
    const url = datasetUrl(hub, '/repo', { Revision: hub.revision, FilePath: entry.path });
    const res = await msFetch(url, offset > 0 ? { headers: { Range: `bytes=${offset}-` } } : {});
    if (!res.ok || !res.body) return failed(res);
    const from = await answeredFrom(hub, entry, offset, res);
    return { body: res.body as unknown as AsyncIterable<Uint8Array>, from };
  };
}

import { HubApiError, InvalidApiResponseFormatError } from '@huggingface/hub';
import { honouredWaitMs } from '../endpoints/index.js';
import type { HubKind } from '../dataset/index.js';
import { FaultError, fail } from '../errors.js';
import type { HubStep } from './faults.js';
import { brief, shownUrl } from '../shown.js';
import { DEFAULT_HUB_URL } from './hub-settings.js';

/** Any answer that is not a file's content (listings, commit info, errors) is far below this; a bigger one is not a Hub. */
const API_BODY_LIMIT = 32 * 1024 * 1024;

// Failures: the library throws HubApiError for HTTP errors, undici's
// TypeError('fetch failed') for network errors, and, when a download stream
// fails, only the error's message as a string. Watching every request in our
// own fetch keeps the status, error code and URL whatever reaches us.

/** One run against the Hub: what every request needs, and what went wrong with the last one. */
export interface Hub {
  /** Which service: their routes, variables and error wording differ. */
  kind: HubKind;
  repo: string;
  revision: string;
  hubUrl: string;
  accessToken: string | undefined;
  tokenSource: string | undefined;
  signal: AbortSignal | undefined;
  fetch: typeof fetch;
  failures: FailureLog;
  /** Seconds without a byte (headers or body) before a request is given up. */
  idleSeconds: number;
  /** The listed size of the file being downloaded: a file body longer than this is cut off. */
  fileLimit: number | undefined;
}

interface NetworkFailure {
  url: string;
  /** What failed, as shown: the system's code, else the innermost error's message (networkCause). */
  code: string;
  /** The system's error code alone (ECONNRESET, UND_ERR_SOCKET, …): what a retry decides on. */
  systemCode: string | undefined;
  /** The connection broke after the response had started. */
  midBody: boolean;
  /** Nothing arrived for `idleSeconds`. */
  stalled?: boolean;
  /** The body went past what was expected of it. */
  oversize?: number;
}

interface HttpFailure {
  url: string;
  status: number;
  errorCode: string | undefined;
  /** The wait its Retry-After asks for, when it is one to honour. */
  waitMs?: number;
}

export class FailureLog {
  network: NetworkFailure | undefined;
  http: HttpFailure | undefined;
  clear(): void {
    this.network = undefined;
    this.http = undefined;
  }
}

class HubNetworkError extends Error {
  constructor(readonly failure: NetworkFailure) {
    super(`${failure.midBody ? 'connection broke while reading' : 'cannot reach'} ${shownUrl(failure.url)} (${failure.code})`);
  }
}

/** A body that sends less than this within the idle timeout is given up as stalled. */
const PROGRESS_BYTES = 16 * 1024;

/**
 * The fetch every library call gets: it records what failed, gives a request
 * up after `idleSeconds` without a byte, and cuts a body longer than it may be
 * (a file at its listed size, anything else at API_BODY_LIMIT), so a hostile
 * server can neither hang a run nor fill the disk or memory.
 */
export function watchedFetch(hub: Hub): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const idle = new AbortController();
    const signal = hub.signal ? AbortSignal.any([hub.signal, idle.signal]) : idle.signal;
    let stalled = false;
    let timer: NodeJS.Timeout | undefined;
    // Time spent waiting for the server since it last sent PROGRESS_BYTES: a trickle (a byte every
    // few seconds) is as stuck as silence, and is given up after as long.
    let waitedMs = 0;
    let sinceProgress = 0;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(
        () => {
          stalled = true;
          idle.abort();
        },
        Math.max(0, hub.idleSeconds * 1000 - waitedMs),
      );
      timer.unref();
    };
    const fail = (err: unknown, midBody: boolean, oversize?: number): HubNetworkError => {
      clearTimeout(timer);
      const cause = networkCause(err);
      const failure: NetworkFailure = { url, code: stalled ? 'stalled' : cause.shown, systemCode: cause.code, midBody, stalled, oversize };
      hub.failures.network = failure;
      return new HubNetworkError(failure);
    };
    arm();
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
    } catch (err) {
      if (hub.signal?.aborted) throw err;
      throw fail(err, false);
    }
    // After a redirect, the URL that answered (the CDN the Hub sends files to), not the one asked.
    if (!res.ok) {
      hub.failures.http = {
        url: res.url || url,
        status: res.status,
        errorCode: res.headers.get('X-Error-Code') ?? undefined,
        waitMs: honouredWaitMs(res.headers, Date.now()),
      };
    }
    if (!res.body) {
      clearTimeout(timer);
      return res;
    }
    const isProbe = new Headers(init?.headers).get('range') === 'bytes=0-0';
    const parsed = new URL(url);
    // Hugging Face serves files under /resolve/, ModelScope at repo?FilePath=.
    const fileRoute = parsed.pathname.includes('/resolve/') || parsed.searchParams.has('FilePath');
    const isFile = res.ok && !isProbe && (init?.method ?? 'GET') === 'GET' && fileRoute;
    const limit = isFile && hub.fileLimit !== undefined ? hub.fileLimit : API_BODY_LIMIT;
    const reader = res.body.getReader();
    let received = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          // The clock runs only while waiting for the server, not while the reader is busy writing to disk.
          arm();
          const started = performance.now();
          const { done, value } = await reader.read();
          clearTimeout(timer);
          if (done) {
            controller.close();
            return;
          }
          waitedMs += performance.now() - started;
          sinceProgress += value.byteLength;
          if (sinceProgress >= PROGRESS_BYTES) {
            waitedMs = 0;
            sinceProgress = 0;
          }
          received += value.byteLength;
          if (received > limit) {
            controller.error(fail(undefined, true, limit));
            await reader.cancel().catch(() => undefined);
            return;
          }
          controller.enqueue(value);
        } catch (err) {
          if (hub.signal?.aborted) return controller.error(err);
          controller.error(fail(err, true));
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    });
    const wrapped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    // The library compares the response URL's origin with the hub's; a new Response has none of its own.
    Object.defineProperty(wrapped, 'url', { value: res.url });
    return wrapped;
  };
}

/**
 * undici wraps the system error (ECONNREFUSED, ENOTFOUND, ...) in `cause`, sometimes in an AggregateError: its
 * code, for the retry; shown, that code, else the innermost message, which says most (never decided on).
 */
function networkCause(err: unknown): { code: string | undefined; shown: string } {
  let e: unknown = err;
  let message = err instanceof Error ? err.message : String(err);
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { code, shown: code };
    if (e instanceof Error && e.message) message = e.message;
    const errors = (e as { errors?: unknown[] }).errors;
    e = (e as { cause?: unknown }).cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return { code: undefined, shown: message };
}

export interface RetryPolicy {
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

export async function withRetries<T>(
  hub: Hub,
  retry: RetryPolicy,
  doing: HubStep,
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
      const transient =
        (net &&
          net.oversize === undefined &&
          (net.midBody || net.stalled || (net.systemCode !== undefined && TRANSIENT_CODES.has(net.systemCode)))) ||
        (status !== undefined && (status >= 500 || status === 429)) ||
        // The host a file was redirected to refusing it (a signed link expired): the next try gets a fresh link from the hub.
        redirectedHost(hub) !== undefined;
      if (!transient || attempt >= retry.retries || hub.signal?.aborted) throw err;
      await sleep(hub.failures.http?.waitMs ?? retry.delayMs * 2 ** attempt, hub.signal);
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

/** Runs one step against the Hub and turns what can go wrong into a fault naming the hub and the file. */
export async function hubCall<T>(hub: Hub, doing: HubStep, file: string | undefined, fn: () => Promise<T>): Promise<T> {
  hub.failures.clear();
  try {
    return await fn();
  } catch (err) {
    if (hub.signal?.aborted) throw hub.signal.reason ?? err;
    throw explain(hub, err, doing, file);
  }
}

function explain(hub: Hub, err: unknown, doing: HubStep, file: string | undefined): unknown {
  if (err instanceof FaultError) return err;
  const { repo, revision } = hub;
  const at = shownUrl(hub.hubUrl);
  const net = err instanceof HubNetworkError ? err.failure : hub.failures.network;
  if (net) {
    if (net.oversize !== undefined) return fail({ kind: 'hub-oversize', hub: at, limit: net.oversize, doing });
    if (net.stalled) return fail({ kind: 'hub-stalled', hub: at, seconds: hub.idleSeconds, doing });
    if (net.midBody) return fail({ kind: 'hub-connection-broke', hub: at, code: net.code, doing });
    return fail({ kind: 'hub-unreachable', hubKind: hub.kind, hub: at, isDefault: hub.hubUrl === DEFAULT_HUB_URL, code: net.code, doing });
  }
  const http =
    err instanceof HubApiError ? { status: err.statusCode, url: err.url, errorCode: hub.failures.http?.errorCode } : hub.failures.http;
  if (http) {
    const { status, errorCode: code } = http;
    const host = redirectedHost(hub);
    // Not the hub's answer: neither the token nor the repo is to blame.
    if (host !== undefined) return fail({ kind: 'hub-redirect-failed', host, hub: at, file, status, doing });
    // A wrong repo, revision or file name is the user's to fix (exit 2); the rest is the service's (exit 3).
    if (code === 'RevisionNotFound') return fail({ kind: 'hub-revision-not-found', hub: at, repo, revision });
    if (code === 'EntryNotFound') return fail({ kind: 'hub-file-not-found', hub: at, repo, revision, file });
    if (code === 'RepoNotFound' && status === 404) return fail({ kind: 'hub-repo-not-found', hub: at, repo });
    if (status === 401 || status === 403) {
      return fail({ kind: 'hub-access-denied', hubKind: hub.kind, hub: at, repo, status, doing, tokenSource: hub.tokenSource });
    }
    if (status === 404) return fail({ kind: 'hub-not-found', hub: at, repo, revision, url: shownUrl(http.url) });
    if (status === 429) return fail({ kind: 'hub-rate-limited', hub: at, doing });
    return fail({ kind: 'hub-http-error', hub: at, status, doing });
  }
  if (err instanceof InvalidApiResponseFormatError) {
    return fail({ kind: 'hub-unexpected-answer', hubKind: hub.kind, hub: at, doing, detail: brief(err.message, [hub.accessToken]) });
  }
  // The library reads an answer as JSON without looking at it first: a mirror's HTML page (a login or maintenance page) lands here.
  if (err instanceof SyntaxError) return fail({ kind: 'hub-unexpected-answer', hubKind: hub.kind, hub: at, doing });
  // The library passes stream failures on as bare strings, whose text may come from the server.
  if (typeof err === 'string') return fail({ kind: 'hub-stream-failed', hub: at, doing, detail: brief(err, [hub.accessToken]) });
  return err;
}

/** The origin of the host that answered the last failed request, when a redirect took it away from the hub's. */
function redirectedHost(hub: Hub): string | undefined {
  const url = hub.failures.http?.url;
  if (url === undefined) return undefined;
  const origin = new URL(url).origin;
  return origin === new URL(hub.hubUrl).origin ? undefined : shownUrl(origin);
}

import { HubApiError, InvalidApiResponseFormatError } from '@huggingface/hub';
import { UserError } from '../errors.js';
import { DEFAULT_HUB_URL } from './hub-settings.js';

// Failures: the library throws HubApiError for HTTP errors, undici's
// TypeError('fetch failed') for network errors, and, when a download stream
// fails, only the error's message as a string. Watching every request in our
// own fetch keeps the status, error code and URL whatever reaches us.

/** One run against the Hub: what every request needs, and what went wrong with the last one. */
export interface Hub {
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
    super(`${failure.midBody ? 'connection broke while reading' : 'cannot reach'} ${failure.url} (${failure.code})`);
  }
}

export function watchedFetch(hub: Hub): typeof fetch {
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
      const transient =
        (net && (net.midBody || TRANSIENT_CODES.has(net.code))) || (status !== undefined && (status >= 500 || status === 429));
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
export async function hubCall<T>(hub: Hub, doing: string, file: string | undefined, fn: () => Promise<T>): Promise<T> {
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
      return new UserError(
        `the connection to ${hub.hubUrl} broke while ${doing} (${net.code}); nothing partial was kept, run the command again`,
      );
    }
    const hint =
      hub.hubUrl === DEFAULT_HUB_URL ? '; check the network, or set HF_ENDPOINT to a mirror' : '; check the network and HF_ENDPOINT';
    return new UserError(`cannot reach ${hub.hubUrl} (${net.code}) while ${doing}${hint}`);
  }
  const http =
    err instanceof HubApiError ? { status: err.statusCode, url: err.url, errorCode: hub.failures.http?.errorCode } : hub.failures.http;
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
    if (status === 429)
      return new UserError(`${hub.hubUrl} is rate-limiting requests (HTTP 429) while ${doing}; wait a while and run the command again`);
    return new UserError(`${hub.hubUrl} answered HTTP ${status} while ${doing}; try again later`);
  }
  if (err instanceof InvalidApiResponseFormatError) {
    return new UserError(`unexpected answer from ${hub.hubUrl} while ${doing} (${err.message}); is it a Hugging Face Hub or mirror?`);
  }
  // The library passes stream failures on as bare strings; keep them debuggable as errors with a stack.
  return typeof err === 'string' ? new Error(`${doing} from ${hub.hubUrl}: ${err}`) : err;
}

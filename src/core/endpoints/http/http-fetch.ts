import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

interface ReplyLimits {
  /** A reply body larger than this is a failed attempt, cut off at the limit. */
  maxReplyBytes: number;
  /** A reply body that sends nothing for this long (once its headers came) is a failed attempt. */
  idleMs: number;
}

/** Why this fetch gave up on a reply body: over the size limit, stalled, closed before it was complete. */
type ReplyLimit = 'too-large' | 'stalled' | 'closed';

/** A reply body cut off: by a limit (too large, stalled), or by its connection closing before it was complete. */
class ReplyLimitError extends Error {
  override name = 'ReplyLimitError';
  constructor(
    readonly limit: ReplyLimit,
    message: string,
  ) {
    super(message);
  }
}

/** zlib's codes (Z_DATA_ERROR, …) say a compressed body did not decode; an API error's `code` may be anything the server sent. */
function isUndecodable(err: unknown): err is Error {
  const code: unknown = (err as { code?: unknown } | undefined)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

/** Why a reply could not be read, in words for a row's error, when the reason is this fetch's own (a limit, a damaged compressed body). */
export function replyFault(err: unknown): string | undefined {
  if (err instanceof ReplyLimitError && err.limit !== 'closed') return err.message;
  if (isUndecodable(err)) return `the compressed reply could not be decoded (${err.message})`;
  return undefined;
}

/** The same as data, for the retry policy: which of this fetch's reasons ended the reply, if one did. */
export function replyCause(err: unknown): ReplyLimit | 'undecodable' | undefined {
  if (err instanceof ReplyLimitError) return err.limit;
  return isUndecodable(err) ? 'undecodable' : undefined;
}

/**
 * The fetch given to the openai client (its documented `fetch` option), over
 * Node's own HTTP client: undici's fetch cuts a reply whose headers take over
 * 300 s, which a long generation without streaming does. It sends the body
 * the client gives it, and nothing times out a generation but the client's
 * own timeout (through the signal). The reply is read whole, up to
 * `maxReplyBytes`, and fails if it stalls for `idleMs`: a server cannot make
 * awb hold an endless or giant reply until the timeout.
 */
export function nodeFetch(limits: ReplyLimits): typeof globalThis.fetch {
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 1024 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 1024 }),
  };
  return (async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = init?.body ?? undefined;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('awb fetch: a request body must be a string or bytes');
    }
    const secure = url.protocol === 'https:';
    const req = (secure ? httpsRequest : httpRequest)(url, {
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init?.headers)),
      agent: secure ? agents.https : agents.http,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
      // As bytes: Node would prepend the headers to a string body, copying the whole (multi-MB) string once more.
      req.end(typeof body === 'string' ? Buffer.from(body) : (body ?? undefined));
    });
    const replyBody = decoded(res);
    const headers: [string, string][] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      const name = res.rawHeaders[i]!;
      // The body handed on is decoded: its encoding and length headers no longer describe it.
      if (replyBody !== res && /^content-(encoding|length)$/i.test(name)) continue;
      headers.push([name, res.rawHeaders[i + 1]!]);
    }
    const status = res.statusCode ?? 0;
    // Server-sent events are the reply arriving piece by piece: handed on as they come, under the same limits.
    if (status === 200 && String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      return new Response(streamCapped(replyBody, res, limits, init?.signal ?? undefined), { status, headers });
    }
    try {
      const bytes = await readCapped(replyBody, res, limits);
      const empty = status === 204 || status === 205 || status === 304;
      return new Response(empty ? null : bytes, { status, headers });
    } catch (err) {
      res.destroy();
      // Cut off while reading, the stream says only "aborted": the client must see its own abort (a timeout) as such.
      throw init?.signal?.aborted ? (init.signal.reason ?? err) : err;
    }
  }) as typeof globalThis.fetch;
}

const tooLarge = (maxReplyBytes: number) =>
  new ReplyLimitError('too-large', `reply larger than ${Math.round(maxReplyBytes / 2 ** 20)} MB (--max-reply-mb)`);
const closedEarly = () => new ReplyLimitError('closed', 'the connection closed before the reply was complete');

/** Where a capped body goes: each chunk as it comes, then its end or the one failure that cut it. */
interface BodySink {
  chunk(chunk: Buffer): void;
  end(): void;
  fail(err: Error): void;
}

/**
 * The reply body as sent before its content coding: a server may gzip (or deflate, or brotli) a reply
 * unasked, as HTTP lets it when the request names no Accept-Encoding. Limits apply to the decoded bytes,
 * so a small compressed body cannot unpack into more than --max-reply-mb.
 */
function decoded(res: IncomingMessage): Readable {
  const coding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? createGunzip()
      : coding === 'deflate'
        ? createInflate()
        : coding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return res;
  // A connection cut while the body arrives must fail the decoded body too, not end it early.
  res.once('close', () => {
    if (!res.complete) decoder.destroy(closedEarly());
  });
  res.on('error', (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

/**
 * Feeds a reply body to `sink` and ends it with an error as soon as it passes
 * the size limit, sends nothing for `idleMs`, or its connection closes before
 * it is complete. The sink hears `end` or `fail` once, and nothing after.
 * Returns a stop for a reader that gives up first.
 */
function capBody(body: Readable, res: IncomingMessage, { maxReplyBytes, idleMs }: ReplyLimits, what: string, sink: BodySink): () => void {
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const stop = () => {
    done = true;
    clearTimeout(timer);
    body.removeAllListeners('data');
  };
  const fail = (err: Error) => {
    if (done) return;
    stop();
    sink.fail(err);
  };
  const idle = () => {
    clearTimeout(timer);
    const option = what === 'stream' ? ' (--stream-idle)' : '';
    timer = setTimeout(() => fail(new ReplyLimitError('stalled', `${what} stalled: no bytes for ${idleMs / 1000} s${option}`)), idleMs);
  };
  idle();
  body.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxReplyBytes) return fail(tooLarge(maxReplyBytes));
    sink.chunk(chunk);
    idle();
  });
  body.once('end', () => {
    if (done) return;
    stop();
    sink.end();
  });
  body.on('error', fail);
  res.once('close', () => {
    if (!res.complete) fail(closedEarly());
  });
  return stop;
}

/** The body of a reply, refused as soon as it passes the size limit or stalls. */
async function readCapped(body: Readable, res: IncomingMessage, limits: ReplyLimits): Promise<Buffer> {
  if (Number(res.headers['content-length']) > limits.maxReplyBytes) throw tooLarge(limits.maxReplyBytes);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    capBody(body, res, limits, 'reply', {
      chunk: (chunk) => chunks.push(chunk),
      end: () => resolve(Buffer.concat(chunks)),
      fail: reject,
    });
  });
}

/** A streamed reply body, failing as soon as it passes the size limit or sends nothing for `idleMs`. */
function streamCapped(
  body: Readable,
  res: IncomingMessage,
  limits: ReplyLimits,
  signal: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  let stop = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stop = capBody(body, res, limits, 'stream', {
        chunk: (chunk) => controller.enqueue(new Uint8Array(chunk)),
        end: () => controller.close(),
        fail: (err) => {
          res.destroy();
          // An abort (the client's timeout, Ctrl-C) must reach the client as its own reason.
          controller.error(signal?.aborted ? (signal.reason ?? err) : err);
        },
      });
    },
    cancel() {
      stop();
      res.destroy();
    },
  });
}

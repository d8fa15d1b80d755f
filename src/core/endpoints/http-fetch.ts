import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import type { BodyPlan } from './request-body.js';

/**
 * The fetch the openai client is given, over Node's own HTTP client. fetch
 * (undici) measured three times the memory per request in flight, copies a
 * byte body on every attempt and, by default, cuts a reply that takes over
 * 300 s to start, which a long generation without streaming can. Here
 * nothing times out but the client's own timeout (through the signal), a
 * request body planned over the input file is read out piece by piece as
 * the socket takes it, and replies (chat completions, model lists: small)
 * are read whole.
 */
export function nodeFetch(): (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => Promise<Response> {
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 1024 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 1024 }),
  };
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = Object.fromEntries(new Headers(init?.headers));
    const plan = init?.body instanceof Uint8Array ? plans.get(init.body) : undefined;
    if (plan) headers['content-length'] = String(plan.length);
    const secure = url.protocol === 'https:';
    const req = (secure ? httpsRequest : httpRequest)(url, {
      method: init?.method ?? 'GET',
      headers,
      agent: secure ? agents.https : agents.http,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const replied = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.on('error', reject);
    });
    if (plan) pipeline(Readable.from(plan.chunks(), { objectMode: false }), req).catch((err: unknown) => req.destroy(err as Error));
    else req.end((init?.body ?? undefined) as Buffer | string | undefined);
    const res = await replied;
    // Cut off while reading the reply, the stream says only "aborted"; the client must see its own abort (a timeout) as such.
    const bytes = await buffer(res).catch((err: unknown) => {
      throw init?.signal?.aborted ? (init.signal.reason ?? err) : err;
    });
    const replyHeaders: [string, string][] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) replyHeaders.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
    const status = res.statusCode ?? 0;
    const empty = status === 204 || status === 205 || status === 304;
    return new Response(empty ? null : bytes, { status, headers: replyHeaders });
  };
}

/** Request bodies by the stand-in the openai client passes to fetch. */
const plans = new WeakMap<Uint8Array, BodyPlan>();

/** A body for the openai client to pass on to the fetch above, which sends the plan it stands for. */
export function standIn(plan: BodyPlan): Uint8Array {
  const body = new Uint8Array(0);
  plans.set(body, plan);
  return body;
}

/*
 * A local server that answers as Hugging Face `transformers serve` does (its
 * FastAPI app, src/transformers/cli/serving/ and the older single-file
 * src/transformers/cli/serve.py), where it differs from OpenAI:
 *
 * - errors are FastAPI's `{"detail": …}`: a string for its HTTPExceptions
 *   (422 for fields it does not know, 400 `Server is pinned to 'A'; requested
 *   'B'.` for a model other than the pinned one), a list of pydantic errors for
 *   a failed validation (422);
 * - a stream has no `data: [DONE]` line: it ends after the chunk that carries
 *   the finish reason, and that chunk carries the usage (no usage-only chunk,
 *   whatever `stream_options` says);
 * - `/v1/models` lists the generative models in the Hub cache, whatever model
 *   the server was started with (`transformers serve /local/path` serves a
 *   model the list never names), `owned_by` a list and `created` a float;
 * - replies name the model as `<id>@main`; `max_tokens` absent means 1024.
 *
 * Tokens are the reply's words (each with the spaces before it), so a
 * streamed reply and its unstreamed twin have the same text and usage.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { estimateTokens, messageText, type ChatRequest, type ReplyFn } from './openai-server.js';

export interface TransformersOptions {
  /** The model given on the command line (`transformers serve <model>`); requests naming another get 400. Undefined: not pinned. */
  pinned?: string;
  /** Model ids found in the Hub cache: what `/v1/models` lists. */
  cached?: string[];
  reply?: ReplyFn;
  /** Fields the server takes but does not use (stream_options, max_completion_tokens, …): ignored with a warning (current), or refused with 422 (earlier versions). */
  unusedFields?: 'ignore' | 'refuse';
  /** `--input-validation` of serve.py: the body is checked against OpenAI's streaming request type, so a request without `stream: true` gets 422 with pydantic's list. */
  inputValidation?: boolean;
  /** Keep a stream's connection open after its last chunk, as a proxy that never closes it would. */
  holdOpen?: boolean;
}

export interface TransformersServer {
  url: string;
  /** Each chat request as received, and the status it got. */
  readonly chats: Array<{ body: Record<string, unknown> | undefined; status: number; stream: boolean }>;
  /** Streams the client closed before the server ended them (awb cutting a stream that stayed open). */
  readonly cutByClient: number;
  close(): Promise<void>;
}

/** Taken by the schema, not used by the server (UNUSED_CHAT_COMPLETION_FIELDS). */
const UNUSED_FIELDS = new Set([
  'audio',
  'function_call',
  'functions',
  'logprobs',
  'max_completion_tokens',
  'metadata',
  'modalities',
  'n',
  'parallel_tool_calls',
  'prediction',
  'presence_penalty',
  'reasoning_effort',
  'response_format',
  'service_tier',
  'store',
  'stream_options',
  'tool_choice',
  'top_logprobs',
  'user',
  'web_search_options',
]);

/** The request fields of OpenAI's `CompletionCreateParamsStreaming` and transformers' own additions: any other is refused. */
const KNOWN_FIELDS = new Set([
  ...UNUSED_FIELDS,
  'messages',
  'model',
  'frequency_penalty',
  'logit_bias',
  'max_tokens',
  'prompt_cache_key',
  'safety_identifier',
  'seed',
  'stop',
  'stream',
  'temperature',
  'tools',
  'top_p',
  'verbosity',
  'generation_config',
  'processor',
]);

/** The server's default cap when a request gives no max_tokens (serving defaults raise smaller ones to it). */
const DEFAULT_MAX_NEW_TOKENS = 1024;

/** A set of names as Python prints one, which is how the server's messages name fields. */
const pySet = (names: string[]) => `{${names.map((n) => `'${n}'`).join(', ')}}`;

/** The reply cut into tokens: each word with the whitespace before it. */
const tokensOf = (text: string) => text.match(/\s*\S+/g) ?? [];

export async function startTransformersServer(opts: TransformersOptions = {}): Promise<TransformersServer> {
  const chats: TransformersServer['chats'] = [];
  const sockets = new Set<Socket>();
  let cutByClient = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const detail = (res: ServerResponse, status: number, said: unknown) => send(res, status, { detail: said });

  /** What FastAPI and the handler refuse before any generation: [status, detail], or undefined when the request is taken. */
  function refusal(raw: string, body: unknown): [number, unknown] | undefined {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return [422, [{ type: 'dict_type', loc: ['body'], msg: 'Input should be a valid dictionary', input: raw }]];
    }
    const fields = Object.keys(body);
    const unexpected = fields.filter((f) => !KNOWN_FIELDS.has(f));
    if (unexpected.length) return [422, `Unexpected fields in the request: ${pySet(unexpected)}`];
    const b = body as Record<string, unknown>;
    if (opts.inputValidation && b.stream !== true) {
      // pydantic's errors() as the server hands them on: the offending input (here the whole body) echoed back.
      const missing = b.stream === undefined;
      return [
        422,
        [
          {
            type: missing ? 'missing' : 'literal_error',
            loc: ['stream'],
            msg: missing ? 'Field required' : 'Input should be True',
            input: missing ? b : b.stream,
            ...(missing ? {} : { ctx: { expected: 'True' } }),
            url: `https://errors.pydantic.dev/2.11/v/${missing ? 'missing' : 'literal_error'}`,
          },
        ],
      ];
    }
    const unused = fields.filter((f) => UNUSED_FIELDS.has(f));
    if (unused.length && (opts.unusedFields === 'refuse' || opts.inputValidation)) {
      return [422, `Unsupported fields in the request: ${pySet(unused)}`];
    }
    if (opts.pinned !== undefined && typeof b.model === 'string' && b.model !== '' && b.model !== opts.pinned) {
      // transformers 5.18's words, as its server answers a name other than the one it was started with.
      return [400, `Server is pinned to '${opts.pinned}'; requested '${b.model}'.`];
    }
    const model = typeof b.model === 'string' && b.model !== '' ? b.model : opts.pinned;
    // Unpinned, a model outside the cache fails to load: an unhandled error, which Starlette answers in plain text.
    if (model === undefined || (opts.pinned === undefined && !(opts.cached ?? []).includes(model))) return [500, undefined];
    return undefined;
  }

  async function chat(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      chats.push({ body: undefined, status: 422, stream: false });
      return detail(res, 422, [
        { type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } },
      ]);
    }
    const refused = refusal(raw, body);
    const b = body as Record<string, unknown>;
    const stream = typeof b === 'object' && b !== null && b.stream === true;
    chats.push({ body: typeof b === 'object' && b !== null ? b : undefined, status: refused?.[0] ?? 200, stream });
    if (refused?.[0] === 500) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end('Internal Server Error');
    }
    if (refused) return detail(res, refused[0], refused[1]);

    const request = b as unknown as ChatRequest;
    const said = await (opts.reply ?? (() => 'an answer'))(request, { requestNo: chats.length });
    const text = typeof said === 'string' ? said : (said.content ?? '');
    const cap = typeof b.max_tokens === 'number' ? b.max_tokens : DEFAULT_MAX_NEW_TOKENS;
    const tokens = tokensOf(text).slice(0, cap);
    const finish = tokens.length >= cap ? 'length' : 'stop';
    const promptTokens = estimateTokens(request.messages.map((m) => messageText(m)).join('\n'));
    const usage = { completion_tokens: tokens.length, prompt_tokens: promptTokens, total_tokens: promptTokens + tokens.length };
    const id = String(req.headers['x-request-id'] ?? randomUUID());
    const model = `${String(b.model || opts.pinned)}@main`;
    const created = Math.floor(Date.now() / 1000);
    if (!stream) {
      const message = { content: tokens.join(''), role: 'assistant' };
      return send(res, 200, {
        id,
        choices: [{ finish_reason: finish, index: 0, message }],
        created,
        model,
        object: 'chat.completion',
        usage,
      });
    }
    // exclude_none: a chunk leaves out every field that is None (no `finish_reason: null`, no `usage: null`).
    const chunk = (delta: object, finish: object = {}, usageField: object = {}) =>
      `data: ${JSON.stringify({ id, choices: [{ delta, index: 0, ...finish }], created, model, object: 'chat.completion.chunk', system_fingerprint: '', ...usageField })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': id });
    res.on('close', () => {
      if (!res.writableEnded) cutByClient++;
    });
    res.write(chunk({ role: 'assistant' }));
    for (const t of tokens) res.write(chunk({ content: t }));
    const last = chunk({}, { finish_reason: finish }, { usage });
    if (opts.holdOpen) res.write(last);
    else res.end(last);
  }

  function models(res: ServerResponse): void {
    const data = (opts.cached ?? []).map((id) => ({
      owned_by: id.includes('/') ? id.split('/') : '',
      id,
      object: 'model',
      created: 1_717_000_000.25,
    }));
    send(res, 200, { object: 'list', data });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/v1/chat/completions' && req.method === 'POST') {
        chat(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
          if (!res.headersSent) detail(res, 500, `test server bug: ${String(err)}`);
        });
      } else if (path === '/v1/models' && req.method === 'GET') models(res);
      else if (path === '/health' && req.method === 'GET') send(res, 200, { status: 'ok' });
      else if (path === '/v1/chat/completions' || path === '/v1/models' || path === '/health') detail(res, 405, 'Method Not Allowed');
      else detail(res, 404, 'Not Found');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    chats,
    get cutByClient() {
      return cutByClient;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

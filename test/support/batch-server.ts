/*
 * A local server speaking OpenAI's Batch API for tests: file upload
 * (multipart), batch create / retrieve / list / cancel, and file content.
 * Each batch advances one status per poll (validating → in_progress →
 * finalizing → completed) and answers its lines through `reply`, writing the
 * results in reverse order, since the real API keeps no order either.
 * Like OpenAI and LiteLLM's proxy, it also answers chat completions (through
 * `reply`, with custom_id "online") and lists models, so a --batch run can
 * ask online what the batch did not answer.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatRequest, ReplyFn } from './openai-server.js';

export interface BatchLine {
  custom_id: string;
  method: string;
  url: string;
  body: { model: string; messages: Array<{ role: string; content: string }>; [k: string]: unknown };
}

/** A chat completion body for a line, a failure of that line, or the line of the error file as given (its custom_id added). */
export type BatchReplyFn = (line: BatchLine) => { status: number; body: unknown } | { error: string } | { errorLine: object } | 'expire';

export interface BatchServerOptions {
  reply: BatchReplyFn;
  /** Polls spent in each of validating, in_progress and finalizing. Default 1. */
  pollsPerStatus?: number;
  /** The results files hold this text instead of JSONL. */
  garbledResults?: string;
  apiKey?: string;
  /** Validation fails for the whole batch with this message. */
  failValidation?: string;
  /** The first this many creates make their batch, then hang up before answering (a reply lost on the way). */
  dropCreateAnswers?: number;
  /** Batches created after the first this many stay in_progress until `release()` (a batch the provider takes hours over). */
  holdAfter?: number;
}

export interface BatchServer {
  url: string;
  files: Map<string, { purpose: string; name: string; content: string }>;
  batches: Map<string, StoredBatch>;
  /** Number of POST /v1/batches calls. */
  created: number;
  uploads: number;
  /** Chat completions asked online, their bodies. */
  online: BatchLine['body'][];
  /** Changes pollsPerStatus from the next poll on (a batch that was kept waiting may then finish). */
  setPollsPerStatus(n: number): void;
  /** Lets the batches held by `holdAfter` go on. */
  release(): void;
  close(): Promise<void>;
}

interface StoredBatch {
  id: string;
  object: 'batch';
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  created_at: number;
  output_file_id: string | null;
  error_file_id: string | null;
  request_counts: { total: number; completed: number; failed: number };
  polls: number;
  /** Held in_progress (holdAfter) until released. */
  held: boolean;
  errors?: { object: 'list'; data: Array<{ code: string; message: string; line?: number }> };
}

const STEPS = ['validating', 'in_progress', 'finalizing', 'completed'];

export async function startBatchServer(opts: BatchServerOptions): Promise<BatchServer> {
  const files = new Map<string, { purpose: string; name: string; content: string }>();
  const batches = new Map<string, StoredBatch>();
  const state = { created: 0, uploads: 0, released: false };
  const online: BatchLine['body'][] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const finish = (b: StoredBatch) => {
    const lines = files
      .get(b.input_file_id)!
      .content.split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as BatchLine);
    const out: string[] = [];
    const errors: string[] = [];
    let expired = false;
    for (const line of lines) {
      const r = opts.reply(line);
      if (r === 'expire') {
        expired = true;
        errors.push(
          JSON.stringify({
            id: `batch_req_${randomUUID()}`,
            custom_id: line.custom_id,
            response: null,
            error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
          }),
        );
        continue;
      }
      if ('errorLine' in r) {
        b.request_counts.failed++;
        errors.push(JSON.stringify({ custom_id: line.custom_id, ...r.errorLine }));
        continue;
      }
      if ('error' in r) {
        b.request_counts.failed++;
        errors.push(
          JSON.stringify({
            id: `batch_req_${randomUUID()}`,
            custom_id: line.custom_id,
            response: null,
            error: { code: 'server_error', message: r.error },
          }),
        );
        continue;
      }
      const ok = r.status === 200;
      if (ok) b.request_counts.completed++;
      else b.request_counts.failed++;
      (ok ? out : errors).push(
        JSON.stringify({
          id: `batch_req_${randomUUID()}`,
          custom_id: line.custom_id,
          response: { status_code: r.status, request_id: randomUUID(), body: r.body },
          error: null,
        }),
      );
    }
    const store = (lines: string[]) => {
      if (!lines.length) return null;
      const id = `file-${randomUUID()}`;
      const content = opts.garbledResults ?? lines.reverse().join('\n') + '\n';
      files.set(id, { purpose: 'batch_output', name: `${id}.jsonl`, content });
      return id;
    };
    b.output_file_id = store(out);
    b.error_file_id = store(errors);
    b.status = expired ? 'expired' : 'completed';
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://x');
      if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`) return json(res, 401, { error: { message: 'bad key' } });
      let m: RegExpExecArray | null;
      if (req.method === 'GET' && url.pathname === '/v1/models') return json(res, 200, { object: 'list', data: [] });
      if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
        const line: BatchLine = {
          custom_id: 'online',
          method: 'POST',
          url: '/v1/chat/completions',
          body: JSON.parse(body.toString('utf8')),
        };
        online.push(line.body);
        const r = opts.reply(line);
        if (r === 'expire' || 'error' in r || 'errorLine' in r) return json(res, 500, { error: { message: 'failed online too' } });
        return json(res, r.status, r.body);
      }
      if (req.method === 'POST' && url.pathname === '/v1/files') {
        const file = parseMultipart(String(req.headers['content-type'] ?? ''), body);
        if (!file || file.fields.purpose !== 'batch')
          return json(res, 400, { error: { message: 'purpose=batch and a file are required' } });
        state.uploads++;
        const id = `file-${randomUUID()}`;
        files.set(id, { purpose: 'batch', name: file.name, content: file.content });
        return json(res, 200, {
          id,
          object: 'file',
          bytes: Buffer.byteLength(file.content),
          created_at: Date.now() / 1000,
          filename: file.name,
          purpose: 'batch',
        });
      }
      if (req.method === 'POST' && url.pathname === '/v1/batches') {
        const p = JSON.parse(body.toString('utf8')) as { input_file_id: string; endpoint: string; completion_window: string };
        if (!files.has(p.input_file_id)) return json(res, 404, { error: { message: 'no such file' } });
        state.created++;
        const total = files
          .get(p.input_file_id)!
          .content.split('\n')
          .filter((l) => l.trim()).length;
        const b: StoredBatch = {
          id: `batch_${randomUUID()}`,
          object: 'batch',
          endpoint: p.endpoint,
          input_file_id: p.input_file_id,
          completion_window: p.completion_window,
          status: 'validating',
          created_at: Math.floor(Date.now() / 1000),
          output_file_id: null,
          error_file_id: null,
          request_counts: { total, completed: 0, failed: 0 },
          polls: 0,
          held: opts.holdAfter !== undefined && state.created > opts.holdAfter,
        };
        batches.set(b.id, b);
        if (state.created <= (opts.dropCreateAnswers ?? 0)) return res.socket?.destroy();
        return json(res, 200, view(b));
      }
      if (req.method === 'GET' && url.pathname === '/v1/batches') {
        const data = [...batches.values()].reverse().map(view);
        return json(res, 200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
      }
      if (req.method === 'GET' && (m = /^\/v1\/batches\/([^/]+)$/.exec(url.pathname))) {
        const b = batches.get(m[1]!);
        if (!b) return json(res, 404, { error: { message: 'no such batch' } });
        if (!['completed', 'failed', 'expired', 'cancelled'].includes(b.status)) {
          b.polls++;
          if (b.held && !state.released) {
            b.status = 'in_progress';
          } else if (opts.failValidation) {
            b.status = 'failed';
            b.errors = { object: 'list', data: [{ code: 'invalid_request', message: opts.failValidation, line: 1 }] };
          } else {
            const step = Math.min(Math.floor((b.polls - 1) / (opts.pollsPerStatus ?? 1)), STEPS.length - 1);
            if (STEPS[step] === 'completed') finish(b);
            else b.status = STEPS[step]!;
          }
        }
        return json(res, 200, view(b));
      }
      if (req.method === 'POST' && (m = /^\/v1\/batches\/([^/]+)\/cancel$/.exec(url.pathname))) {
        const b = batches.get(m[1]!);
        if (!b) return json(res, 404, { error: { message: 'no such batch' } });
        b.status = 'cancelled';
        return json(res, 200, view(b));
      }
      if (req.method === 'GET' && (m = /^\/v1\/files\/([^/]+)\/content$/.exec(url.pathname))) {
        const f = files.get(m[1]!);
        if (!f) return json(res, 404, { error: { message: 'no such file' } });
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(f.content);
      }
      json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    files,
    batches,
    online,
    setPollsPerStatus: (n) => {
      opts.pollsPerStatus = n;
    },
    release: () => {
      state.released = true;
    },
    get created() {
      return state.created;
    },
    get uploads() {
      return state.uploads;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function view(b: StoredBatch): Omit<StoredBatch, 'polls' | 'held'> {
  const { polls: _polls, held: _held, ...rest } = b;
  return rest;
}

/** The file and plain fields of a multipart/form-data body. */
function parseMultipart(contentType: string, body: Buffer): { name: string; content: string; fields: Record<string, string> } | undefined {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return undefined;
  const sep = `--${boundary[1] ?? boundary[2]}`;
  const fields: Record<string, string> = {};
  let file: { name: string; content: string } | undefined;
  for (const part of body.toString('utf8').split(sep)) {
    const split = part.indexOf('\r\n\r\n');
    if (split === -1) continue;
    const head = part.slice(0, split);
    const content = part.slice(split + 4).replace(/\r\n$/, '');
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename !== undefined) file = { name: filename, content };
    else if (name) fields[name] = content;
  }
  return file && { ...file, fields };
}

/** A chat completion of `text`; its usage depends only on the request, so batch and online replies are the same. */
export function completion(req: ChatRequest, text: string) {
  const prompt = JSON.stringify(req.messages).length;
  return {
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 0,
    model: req.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: prompt, completion_tokens: 7, total_tokens: prompt + 7 },
  };
}

/** Answers every line, batched or online, with `reply`'s text. */
export const answering =
  (reply: ReplyFn): BatchReplyFn =>
  (line: BatchLine) => ({
    status: 200,
    body: completion(line.body as ChatRequest, reply(line.body as ChatRequest, { requestNo: 0 }) as string),
  });

/** The models of a server's batch files, one entry per file, with its lines. */
export const batchFiles = (s: BatchServer) =>
  [...s.files.values()]
    .filter((f) => f.purpose === 'batch')
    .map((f) => {
      const lines = f.content
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as BatchLine);
      return { models: [...new Set(lines.map((l) => l.body.model))], lines: lines.length };
    });

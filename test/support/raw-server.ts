/*
 * A bare HTTP server on 127.0.0.1 for endpoints that break the protocol in
 * ways the OpenAI fake (openai-server.ts) does not play: answers as `handle`
 * says, or not at all.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after } from 'node:test';

/** Serves `handle` until the test (or file) that started it ends; `seen` lists each request as `METHOD url`. */
export async function rawServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const s = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  s.on('connection', (c) => {
    sockets.add(c);
    c.on('close', () => sockets.delete(c));
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  after(
    () =>
      new Promise<void>((r) => {
        for (const c of sockets) c.destroy();
        s.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, seen };
}

export const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** The models list, naming `test-model`. */
export const models = (res: ServerResponse) => json(res, 200, { object: 'list', data: [{ id: 'test-model', object: 'model' }] });

/** A raw server that lists `test-model` and hands every other request, its body drained, to `reply`. */
export const chatServer = (reply: (req: IncomingMessage, res: ServerResponse) => void) =>
  rawServer((req, res) => {
    req.resume();
    if (req.url?.endsWith('/models')) return models(res);
    reply(req, res);
  });

/** One server-sent event of a chat completion stream. */
export const streamEvent = (choices: unknown[], extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices, ...extra })}\n\n`;
/** The event of one delta of choice 0. */
export const streamDelta = (d: object, finish: string | null = null) => streamEvent([{ index: 0, delta: d, finish_reason: finish }]);
/** A usage chunk: 5 prompt tokens, 3 completion tokens. */
export const usageEvent = streamEvent([], { usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });

import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo, Socket } from 'node:net';
import { makeDataset, type Dataset } from './dataset.js';

/*
 * A stand-in for ModelScope, serving one dataset repo from memory over real
 * HTTP with its routes and its JSON envelope: `repo/tree` (paged by
 * PageNumber/PageSize, entries with Path, Type, Size, Sha256, Revision) and
 * `repo?FilePath=` for the bytes, Range honoured.
 */

export interface ModelScopeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface ModelScopeServerOptions {
  /** Default `Qwen/AgentWorldBench`. */
  repo?: string;
  files: Record<string, string | Buffer>;
  /** Require this token (Bearer, or the m_session_id cookie); 401 otherwise. */
  token?: string;
  /** Serve these bytes for a path in place of the real ones (the listing keeps the real hash). */
  corrupt?: Record<string, Buffer>;
  /** Send half of a path's body and cut the connection, this many times. */
  cut?: Record<string, number>;
  /** Answer Range requests with the whole file (200), as a server without Range support does. */
  ignoreRange?: boolean;
  /** Answer every request with 403 (a token without access). */
  forbidden?: boolean;
}

export interface ModelScopeServer {
  url: string;
  /** The commit every entry names. */
  commit: string;
  requests: ModelScopeRequest[];
  close(): Promise<void>;
}

export async function startModelScopeServer(opts: ModelScopeServerOptions): Promise<ModelScopeServer> {
  const repo = opts.repo ?? 'Qwen/AgentWorldBench';
  const files = new Map(Object.entries(opts.files).map(([p, c]) => [p, Buffer.isBuffer(c) ? c : Buffer.from(c, 'utf8')]));
  const commit = createHash('sha1')
    .update([...files.keys()].join('\n'))
    .digest('hex');
  const cutsLeft = new Map(Object.entries(opts.cut ?? {}));
  const requests: ModelScopeRequest[] = [];
  const sockets = new Set<Socket>();

  const envelope = (res: ServerResponse, status: number, data: unknown, message = 'success') => {
    const text = JSON.stringify({ Code: status, Data: data, Message: message, RequestId: 'req-0', Success: status === 200 });
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://ms.invalid');
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: { ...req.headers } });
    if (opts.token !== undefined) {
      const cookie = /(?:^|;\s*)m_session_id=([^;]*)/.exec(String(req.headers.cookie ?? ''))?.[1];
      if (req.headers.authorization !== `Bearer ${opts.token}` && cookie !== opts.token) return envelope(res, 401, null, 'unauthorized');
    }
    if (opts.forbidden) return envelope(res, 403, null, 'forbidden');
    const prefix = `/api/v1/datasets/${repo}`;
    if (!url.pathname.startsWith(prefix)) return envelope(res, 404, null, 'dataset not found');
    const route = url.pathname.slice(prefix.length);
    const revision = url.searchParams.get('Revision') ?? 'master';
    if (revision !== 'master' && revision !== commit) return envelope(res, 404, null, `revision ${revision} not found`);
    if (route === '/repo/tree') {
      const size = Number(url.searchParams.get('PageSize') ?? '200');
      const page = Number(url.searchParams.get('PageNumber') ?? '1');
      const all = [...files.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      const entries = all.slice((page - 1) * size, page * size).map(([path, data]) => ({
        Name: path.split('/').pop(),
        Path: path,
        Type: 'blob',
        Size: data.length,
        Sha256: createHash('sha256').update(data).digest('hex'),
        Revision: commit,
      }));
      return envelope(res, 200, { Files: entries });
    }
    if (route === '/repo') {
      const path = url.searchParams.get('FilePath') ?? '';
      const real = files.get(path);
      if (!real) return envelope(res, 404, null, `file ${path} not found`);
      const data = opts.corrupt?.[path] ?? real;
      const range = opts.ignoreRange ? null : /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
      const start = range ? Number(range[1]) : 0;
      const body = data.subarray(start);
      res.writeHead(range ? 206 : 200, {
        'Content-Type': 'application/octet-stream',
        'Content-Length': body.length,
        ...(range ? { 'Content-Range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}),
      });
      const cuts = cutsLeft.get(path) ?? 0;
      if (cuts > 0) {
        cutsLeft.set(path, cuts - 1);
        res.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => res.socket?.destroy(), 20));
        return;
      }
      res.end(body);
      return;
    }
    envelope(res, 404, null, 'not found');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    commit,
    requests,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * A dataset of three domains made under `parent`, and the repository serving it: repo path → content, the test
 * files plus enough other files that the listing takes two pages.
 */
export async function sampleRepo(parent: string): Promise<{ data: Dataset; files: Record<string, Buffer> }> {
  const data = await makeDataset(parent, 4, ['mcp', 'search', 'terminal']);
  const files: Record<string, Buffer> = {};
  for (const [domain, path] of data.files) files[`${domain}_test.jsonl`] = await readFile(path);
  for (let i = 0; i < 230; i++) files[`assets/${String(i).padStart(3, '0')}.txt`] = Buffer.from(`asset ${i}\n`);
  return { data, files };
}

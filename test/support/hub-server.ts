import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/*
 * A stand-in for the Hugging Face Hub, serving one dataset repo from memory
 * over real HTTP, so tests exercise @huggingface/hub exactly as it talks to
 * the Hub: the routes, the headers it reads (Content-Range, ETag,
 * X-Repo-Commit, X-Error-Code, Link) and the errors it turns into exceptions.
 */

export interface HubRequest {
  method: string;
  /** Path with the query string, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FailRule {
  /**
   * `status500` answers 500; `cut` sends the headers and half the body, then destroys the socket;
   * `stall` sends the headers and half the body, then nothing until the client gives up.
   */
  mode: 'status500' | 'cut' | 'stall';
  /** How many downloads of the file fail before it is served normally (default: all of them). */
  times?: number;
}

export interface HubServerOptions {
  /** Repo id, default `Qwen/AgentWorldBench`. */
  repo?: string;
  /** Repo files by path. */
  files: Record<string, string | Buffer>;
  /** Commit sha the repo is at (default: derived from the files). */
  commit?: string;
  /** Branch and tag names and the commits they point to (default: `{ main: commit }`). */
  refs?: Record<string, string>;
  /** Serve files whose path matches as Git LFS files (`lfs` in the listings, sha256 ETag), default: `*.jsonl`. */
  lfs?: (path: string) => boolean;
  /** Require `Authorization: Bearer <token>` on every request; 401 otherwise. */
  token?: string;
  /** Make downloads of these paths fail. Only full downloads fail: the library's `bytes=0-0` probe still works. */
  fail?: Record<string, FailRule>;
  /** Entries per page of the tree listing (default: all on one page). */
  pageSize?: number;
  /** Send file bodies in 64 KiB pieces this many ms apart, so progress can be seen mid-file. */
  slowBodyMs?: number;
  /** Send the first 64 KiB piece of these paths' bodies, then the rest once the promise settles: a download held mid-file as long as a test needs. */
  heldBody?: Record<string, Promise<void>>;
  /** A lying mirror: rewrites each file's entry in the tree listing and in paths-info. */
  tamper?: (entry: TreeEntry) => TreeEntry;
  /** A lying mirror: raw entries added to the tree listing, for files it does not have. */
  extraEntries?: TreeEntry[];
  /**
   * A lying mirror: how a file's body is sent. `endless` sends the file and then zeros
   * forever, with no Content-Length; `trickle` sends one byte, then nothing until the client gives up;
   * `drip` sends one byte every 200 ms, never pausing long enough to look silent, until the client gives up.
   */
  body?: Record<string, 'endless' | 'trickle' | 'drip'>;
  /** A lying mirror: the tree listing never ends (pages of other files, each with a next link). */
  endlessListing?: boolean;
  /** A server (or proxy, or CDN) that answers a ranged download with the whole file, 200; the `bytes=0-0` probe still gets its range. */
  ignoreRange?: boolean;
  /**
   * Answers a request in place of the Hub when it returns something (a mirror's HTML page, a 503 with
   * Retry-After, a CDN's 403); `count` is how many requests it was asked about before, from 0.
   */
  answer?: (req: HubRequest, count: number) => { status: number; headers?: Record<string, string>; body?: string } | undefined;
  /** Redirect file requests (the probe too) with a 302 to this base URL, as the Hub sends large files to its CDN with a signed query. */
  cdn?: string;
}

export type TreeEntry = Record<string, unknown> & { path: string };

export interface HubServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`, to pass as `hubUrl` or `HF_ENDPOINT`. */
  url: string;
  commit: string;
  requests: HubRequest[];
  /** Requests that downloaded file content (GET on a resolve URL other than the `bytes=0-0` probe), by path. */
  downloads(): string[];
  close(): Promise<void>;
}

interface StoredFile {
  path: string;
  data: Buffer;
  gitOid: string;
  sha256: string;
  lfs: boolean;
}

export async function startHubServer(opts: HubServerOptions): Promise<HubServer> {
  const repo = opts.repo ?? 'Qwen/AgentWorldBench';
  const isLfs = opts.lfs ?? ((p: string) => p.endsWith('.jsonl'));
  const files = new Map<string, StoredFile>();
  for (const [path, content] of Object.entries(opts.files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const gitOid = createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
    const sha256 = createHash('sha256').update(data).digest('hex');
    files.set(path, { path, data, gitOid, sha256, lfs: isLfs(path) });
  }
  const commit =
    opts.commit ??
    createHash('sha1')
      .update([...files.values()].map((f) => `${f.path}:${f.gitOid}`).join('\n'))
      .digest('hex');
  const refs = opts.refs ?? { main: commit };
  const failuresLeft = new Map<string, number>();
  for (const [path, rule] of Object.entries(opts.fail ?? {})) failuresLeft.set(path, rule.times ?? Infinity);

  const requests: HubRequest[] = [];
  let answered = 0;
  const sockets = new Set<Socket>();

  const resolveRev = (rev: string): string | undefined => (rev === commit ? commit : refs[rev] === commit ? commit : undefined);

  const treeEntry = (f: StoredFile): TreeEntry =>
    (opts.tamper ?? ((e) => e))({
      type: 'file',
      oid: f.gitOid,
      size: f.data.length,
      path: f.path,
      ...(f.lfs ? { lfs: { oid: f.sha256, size: f.data.length, pointerSize: 134 } } : {}),
    });

  function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  function notFound(res: ServerResponse, code: 'RepoNotFound' | 'RevisionNotFound' | 'EntryNotFound', message: string): void {
    sendJson(res, 404, { error: message }, { 'X-Error-Code': code });
  }

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const rawPath = req.url ?? '/';
    requests.push({ method, path: rawPath, headers: { ...req.headers } });
    const url = new URL(rawPath, 'http://hub.invalid');
    const answer = opts.answer?.(requests.at(-1)!, answered++);
    if (answer) {
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
      return;
    }

    if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
      sendJson(res, 401, { error: 'Invalid credentials in Authorization header' });
      return;
    }

    const apiPrefix = `/api/datasets/${repo}/`;
    const resolvePrefix = `/datasets/${repo}/resolve/`;
    const path = url.pathname;

    if (path.startsWith('/api/datasets/') && !path.startsWith(apiPrefix)) {
      // The real Hub answers 401 to anonymous requests for repos that do not exist, so as not to reveal private ones.
      sendJson(res, 401, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound' });
      return;
    }

    if (path.startsWith(apiPrefix)) {
      const [route, revEncoded] = path.slice(apiPrefix.length).split('/');
      const rev = decodeURIComponent(revEncoded ?? '');
      const sha = resolveRev(rev);
      if (route === 'revision' && method === 'GET') {
        if (!sha) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
        sendJson(res, 200, {
          _id: '0123456789abcdef01234567',
          id: repo,
          sha,
          private: false,
          gated: false,
          downloads: 0,
          likes: 0,
          lastModified: '2026-01-01T00:00:00.000Z',
        });
        return;
      }
      if (route === 'tree' && method === 'GET') {
        if (!sha) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
        if (opts.endlessListing) {
          const from = Number(url.searchParams.get('cursor') ?? '0');
          const junk = Array.from({ length: 1000 }, (_, i) => ({
            type: 'file',
            oid: 'd'.repeat(40),
            size: 1,
            path: `junk/${from + i}.bin`,
          }));
          const next = new URL(rawPath, `http://${req.headers.host}`);
          next.searchParams.set('cursor', String(from + 1000));
          sendJson(res, 200, junk, { Link: `<${next.href}>; rel="next"` });
          return;
        }
        const all = [...[...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1)).map(treeEntry), ...(opts.extraEntries ?? [])];
        const start = Number(url.searchParams.get('cursor') ?? '0');
        const size = opts.pageSize ?? all.length;
        const page = all.slice(start, start + size);
        const headers: Record<string, string> = {};
        if (start + size < all.length) {
          const next = new URL(rawPath, `http://${req.headers.host}`);
          next.searchParams.set('cursor', String(start + size));
          headers['Link'] = `<${next.href}>; rel="next"`;
        }
        sendJson(res, 200, page, headers);
        return;
      }
      if (route === 'paths-info' && method === 'POST') {
        if (!sha) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
        const body = JSON.parse((await readBody(req)) || '{}') as { paths?: string[] };
        const found = (body.paths ?? []).flatMap((p) => {
          const f = files.get(p);
          return f
            ? [
                {
                  ...treeEntry(f),
                  lastCommit: { id: sha, title: 'Upload dataset', date: '2026-01-01T00:00:00.000Z' },
                  securityFileStatus: { status: 'safe' },
                },
              ]
            : [];
        });
        sendJson(res, 200, found);
        return;
      }
      sendJson(res, 404, { error: "Sorry, we can't find the page you are looking for." });
      return;
    }

    if (path.startsWith(resolvePrefix) && (method === 'GET' || method === 'HEAD')) {
      const rest = path.slice(resolvePrefix.length);
      const slash = rest.indexOf('/');
      const rev = decodeURIComponent(slash === -1 ? rest : rest.slice(0, slash));
      const filePath = slash === -1 ? '' : decodeURIComponent(rest.slice(slash + 1));
      const sha = resolveRev(rev);
      if (!sha) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
      const f = files.get(filePath);
      if (!f) return notFound(res, 'EntryNotFound', `${filePath} does not exist on "${rev}"`);
      if (opts.cdn !== undefined) {
        res.writeHead(302, { Location: `${opts.cdn}${path}?X-Amz-Signature=cdn-signature-secret` });
        res.end();
        return;
      }

      const total = f.data.length;
      let start = 0;
      let end = total - 1;
      let range = /^bytes=(\d*)-(\d*)$/.exec(String(req.headers.range ?? ''));
      if (opts.ignoreRange && range && range[0] !== 'bytes=0-0') range = null;
      if (range) {
        start = range[1] ? Number(range[1]) : 0;
        end = range[2] ? Math.min(Number(range[2]), total - 1) : total - 1;
        if (start >= total && total > 0) {
          res.writeHead(416, { 'Content-Range': `bytes */${total}` });
          res.end();
          return;
        }
      }
      const probe = range !== null && start === 0 && end === 0;
      const lie = method === 'GET' && !probe ? opts.body?.[filePath] : undefined;
      if (lie !== undefined) {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', ETag: `"${f.lfs ? f.sha256 : f.gitOid}"` });
        if (lie === 'trickle') {
          res.write(f.data.subarray(0, 1));
          return;
        }
        if (lie === 'drip') {
          // Bounded: a client that never gives up still ends the test in 60 s.
          for (let i = 0; i < 300 && !res.destroyed; i++) {
            res.write(f.data.subarray(i % f.data.length, (i % f.data.length) + 1));
            await new Promise((r) => setTimeout(r, 200));
          }
          res.destroy();
          return;
        }
        res.write(f.data);
        const zeros = Buffer.alloc(65536);
        while (!res.destroyed && !res.writableEnded) {
          if (res.write(zeros)) continue;
          await new Promise<void>((r) => {
            const done = () => {
              res.off('drain', done).off('close', done);
              r();
            };
            res.on('drain', done).on('close', done);
          });
        }
        return;
      }
      if (method === 'GET' && !probe && (failuresLeft.get(filePath) ?? 0) > 0) {
        failuresLeft.set(filePath, failuresLeft.get(filePath)! - 1);
        const rule = opts.fail![filePath]!;
        if (rule.mode === 'status500') {
          sendJson(res, 500, { error: "Internal Error - We're working hard to fix this as soon as possible!" });
          return;
        }
        const slice = f.data.subarray(start, end + 1);
        res.writeHead(range ? 206 : 200, {
          'Content-Type': 'application/octet-stream',
          'Content-Length': slice.length,
          ...(range ? { 'Content-Range': `bytes ${start}-${end}/${total}` } : {}),
        });
        res.write(slice.subarray(0, Math.floor(slice.length / 2)), () => {
          // Give the bytes time to leave before the connection dies mid-body.
          if (rule.mode === 'cut') setTimeout(() => res.socket?.destroy(), 20);
        });
        return;
      }
      const etag = `"${f.lfs ? f.sha256 : f.gitOid}"`;
      const headers: Record<string, string | number> = {
        'Content-Type': 'application/octet-stream',
        'Accept-Ranges': 'bytes',
        ETag: etag,
        'X-Repo-Commit': sha,
        'Content-Length': end - start + 1,
      };
      if (f.lfs) {
        headers['X-Linked-ETag'] = etag;
        headers['X-Linked-Size'] = total;
      }
      if (range) headers['Content-Range'] = `bytes ${start}-${end}/${total}`;
      res.writeHead(range ? 206 : 200, headers);
      const body = f.data.subarray(start, end + 1);
      const held = opts.heldBody?.[filePath];
      if (held && method === 'GET' && !probe) {
        res.write(body.subarray(0, 65536));
        await held;
        res.end(body.subarray(65536));
        return;
      }
      if (method === 'HEAD' || !opts.slowBodyMs || probe) {
        res.end(method === 'HEAD' ? undefined : body);
        return;
      }
      for (let off = 0; off < body.length && !res.destroyed; off += 65536) {
        res.write(body.subarray(off, off + 65536));
        await new Promise((r) => setTimeout(r, opts.slowBodyMs));
      }
      res.end();
      return;
    }

    sendJson(res, 404, { error: 'Not found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    commit,
    requests,
    downloads() {
      return requests
        .filter((r) => r.method === 'GET' && r.path.startsWith(`/datasets/${repo}/resolve/`) && r.headers.range !== 'bytes=0-0')
        .map((r) => {
          const rest = (r.path.split('?')[0] ?? '').slice(`/datasets/${repo}/resolve/`.length);
          return decodeURIComponent(rest.slice(rest.indexOf('/') + 1));
        });
    },
    close() {
      if (!server.listening) return Promise.resolve();
      // Keep-alive connections would hold close() open until they time out.
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

/** A row file of `n` rows of `domain`, each with a raw U+2028 and a longer text than the one before. */
export function hubRows(domain: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++)
    out += JSON.stringify({ id: `${domain}-${i}`, task: `agentworld/${domain}`, text: `row ${i} \u2028 ${'x'.repeat(i * 37)}` }) + '\n';
  return out;
}

/** A small dataset repository: three domains' files and what else such a repository holds. */
export const SAMPLE_FILES: Record<string, string> = {
  'mcp_test.jsonl': hubRows('mcp', 5),
  'search_test.jsonl': hubRows('search', 40),
  'terminal_test.jsonl': hubRows('terminal', 3),
  'README.md': '# AgentWorldBench\n',
  '.gitattributes': '*.jsonl filter=lfs diff=lfs merge=lfs -text\n',
};

/*
 * The Hub's write side, for `awb publish`: repos made and listed, preupload, the Git LFS batch API with its uploads
 * going to a storage server of another origin (as the Hub's go to S3), NDJSON commits to main or as pull requests
 * (`?create_pr=1`). Tokens are users; a user writes to main only under its own namespace, anyone can open a pull
 * request on an existing repo, as on the Hub. Wording follows the Hub's answers as @huggingface/hub reports them.
 */

export type RepoType = 'model' | 'dataset';

export interface PullRequest {
  num: number;
  title: string;
  description: string;
  author: string;
  /** The pull request's files: main's, with the commit's changes. */
  files: Map<string, Buffer>;
}

export interface WritableRepo {
  type: RepoType;
  id: string;
  /** Files on main. */
  files: Map<string, Buffer>;
  commits: { oid: string; title: string; author: string }[];
  prs: PullRequest[];
}

export interface WriteHubOptions {
  /** token → user name. */
  users: Record<string, string>;
  /** Repos there from the start (`model:owner/name` or `dataset:owner/name`). */
  repos?: string[];
  /** Files larger than this many bytes go through LFS (the Hub's own threshold is 10 MB). */
  lfsAbove?: number;
}

export interface WriteHub {
  url: string;
  /** The LFS storage's base URL (another origin). */
  storageUrl: string;
  repos: Map<string, WritableRepo>;
  requests: HubRequest[];
  /** Requests the storage received, with their headers: the token must never be among them. */
  storageRequests: HubRequest[];
  close(): Promise<void>;
}

const repoKey = (type: RepoType, id: string) => `${type}:${id}`;

export async function startWriteHub(opts: WriteHubOptions): Promise<WriteHub> {
  const repos = new Map<string, WritableRepo>();
  const addRepo = (type: RepoType, id: string) =>
    repos.set(repoKey(type, id), { type, id, files: new Map(), commits: [], prs: [] }).get(repoKey(type, id))!;
  for (const spec of opts.repos ?? []) {
    const [type, id] = spec.split(':') as [RepoType, string];
    addRepo(type, id);
  }
  const lfsAbove = opts.lfsAbove ?? 10 * 1024 * 1024;
  const stored = new Map<string, Buffer>();
  const requests: HubRequest[] = [];
  const storageRequests: HubRequest[] = [];
  let prCount = 0;

  const body = async (req: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(value);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const notFound = (res: ServerResponse) => json(res, 404, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound' });
  const noRights = (res: ServerResponse) =>
    json(res, 403, { error: 'Forbidden: pass `create_pr=1` as a query parameter to create a Pull Request' });

  const storage = createServer((req, res) => {
    void (async () => {
      storageRequests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: { ...req.headers } });
      const oid = /^\/upload\/([0-9a-f]{64})$/.exec(req.url ?? '')?.[1];
      const data = await body(req);
      if (req.method !== 'PUT' || !oid) return json(res, 404, { error: 'Not found' });
      if (createHash('sha256').update(data).digest('hex') !== oid) return json(res, 400, { error: 'content does not match its oid' });
      stored.set(oid, data);
      res.writeHead(200, { ETag: `"${oid}"` });
      res.end();
    })();
  });
  await new Promise<void>((resolve) => storage.listen(0, '127.0.0.1', resolve));
  const storageUrl = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;

  let url = '';
  const server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      requests.push({ method, path: req.url ?? '/', headers: { ...req.headers } });
      const u = new URL(req.url ?? '/', 'http://hub.invalid');
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const user = token === undefined ? undefined : opts.users[token];
      if (user === undefined) return json(res, 401, { error: 'Invalid credentials in Authorization header' });
      const path = u.pathname;

      if (method === 'POST' && path === '/api/repos/create') {
        const b = JSON.parse((await body(req)).toString('utf8')) as { name: string; organization?: string; type: RepoType };
        const owner = b.organization ?? user;
        if (owner !== user) return json(res, 403, { error: `You don't have the rights to create a ${b.type} under this namespace` });
        const id = `${owner}/${b.name}`;
        if (repos.has(repoKey(b.type, id)))
          return json(res, 409, { error: `You already created this ${b.type} repo`, url: `${url}/${id}` });
        addRepo(b.type, id);
        return json(res, 200, { url: `${url}/${b.type === 'dataset' ? 'datasets/' : ''}${id}`, name: id, id });
      }

      const api = /^\/api\/(models|datasets)\/([\w.-]+\/[\w.-]+)(?:\/(preupload|commit)\/([^/]+))?$/.exec(path);
      const lfs = /^\/(datasets\/)?([\w.-]+\/[\w.-]+)\.git\/info\/lfs\/objects\/batch$/.exec(path);
      if (api) {
        const type: RepoType = api[1] === 'models' ? 'model' : 'dataset';
        const repo = repos.get(repoKey(type, api[2]!));
        if (!repo) return notFound(res);
        const owner = repo.id.split('/')[0] === user;
        const pr = u.searchParams.get('create_pr') === '1';
        if (!api[3] && method === 'GET') return json(res, 200, { id: repo.id, private: false, likes: 0 });
        if (decodeURIComponent(api[4] ?? '') !== 'main')
          return json(res, 404, { error: `Invalid rev id: ${api[4]}` }, { 'X-Error-Code': 'RevisionNotFound' });
        if (!owner && !pr) return noRights(res);
        const payload = await body(req);
        if (api[3] === 'preupload' && method === 'POST') {
          const b = JSON.parse(payload.toString('utf8')) as { files: { path: string; size: number; sample: string }[] };
          const binary = (sample: string) => Buffer.from(sample, 'base64').includes(0);
          return json(res, 200, {
            files: b.files.map((f) => ({
              path: f.path,
              uploadMode: f.size > lfsAbove || binary(f.sample) ? 'lfs' : 'regular',
              shouldIgnore: false,
            })),
            commitOid: repo.commits.at(-1)?.oid ?? '0'.repeat(40),
          });
        }
        if (api[3] === 'commit' && method === 'POST') {
          if (!String(req.headers['content-type']).startsWith('application/x-ndjson'))
            return json(res, 400, { error: 'Invalid content type' });
          const lines = payload
            .toString('utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { key: string; value: Record<string, unknown> });
          const header = lines[0];
          if (header?.key !== 'header' || typeof header.value.summary !== 'string' || !header.value.summary) {
            return json(res, 400, { error: 'Missing commit header with a summary' });
          }
          const changes = new Map<string, Buffer | undefined>();
          for (const { key, value } of lines.slice(1)) {
            const p = String(value.path);
            if (key === 'file') changes.set(p, Buffer.from(String(value.content), value.encoding === 'base64' ? 'base64' : 'utf8'));
            else if (key === 'lfsFile') {
              const blob = stored.get(String(value.oid));
              // The Hub answers a pointer to an object its storage lacks with a 400 naming the file.
              if (!blob || blob.length !== value.size)
                return json(res, 400, {
                  error: `Your push was rejected because an LFS pointer pointed to a file that does not exist. Offending file: - ${p}`,
                });
              changes.set(p, blob);
            } else if (key === 'deletedFile') changes.set(p, undefined);
            else return json(res, 400, { error: `Unknown operation ${key}` });
          }
          const base = new Map(repo.files);
          for (const [p, data] of changes) {
            if (data === undefined) base.delete(p);
            else base.set(p, data);
          }
          const oid = createHash('sha1').update(`${repo.id}:${repo.commits.length}:${prCount}:${header.value.summary}`).digest('hex');
          const prefix = `${url}/${type === 'dataset' ? 'datasets/' : ''}${repo.id}`;
          repo.commits.push({ oid, title: header.value.summary, author: user });
          if (pr) {
            const num = ++prCount;
            repo.prs.push({
              num,
              title: header.value.summary,
              description: String(header.value.description ?? ''),
              author: user,
              files: base,
            });
            return json(res, 200, {
              success: true,
              commitOid: oid,
              commitUrl: `${prefix}/commit/${oid}`,
              pullRequestUrl: `${prefix}/discussions/${num}`,
              hookOutput: '',
            });
          }
          repo.files = base;
          return json(res, 200, { success: true, commitOid: oid, commitUrl: `${prefix}/commit/${oid}`, hookOutput: '' });
        }
        return json(res, 404, { error: "Sorry, we can't find the page you are looking for." });
      }
      if (lfs && method === 'POST') {
        const repo = repos.get(repoKey(lfs[1] ? 'dataset' : 'model', lfs[2]!));
        if (!repo) return notFound(res);
        const b = JSON.parse((await body(req)).toString('utf8')) as {
          operation: string;
          objects: { oid: string; size: number }[];
        };
        // The Hub refuses LFS uploads to a repo the user cannot write, pull request or not (huggingface_hub changed its
        // own tests when the Hub began to, early 2026): a pull request from outside carries regular files only.
        if (repo.id.split('/')[0] !== user) return json(res, 403, { message: 'Authorization error.' });
        return json(
          res,
          200,
          {
            transfer: 'basic',
            objects: b.objects.map((o) => ({
              oid: o.oid,
              size: o.size,
              authenticated: true,
              ...(stored.has(o.oid)
                ? {}
                : { actions: { upload: { href: `${storageUrl}/upload/${o.oid}`, expires_at: '2099-01-01T00:00:00Z' } } }),
            })),
          },
          { 'Content-Type': 'application/vnd.git-lfs+json' },
        );
      }
      return json(res, 404, { error: 'Not found' });
    })().catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = (s: ReturnType<typeof createServer>) => new Promise<void>((r) => s.close(() => r()));
  return {
    url,
    storageUrl,
    repos,
    requests,
    storageRequests,
    close: async () => {
      server.closeAllConnections();
      storage.closeAllConnections();
      await Promise.all([close(server), close(storage)]);
    },
  };
}

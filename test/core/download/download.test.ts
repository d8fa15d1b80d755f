import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ORIGIN_FILE, readDatasetOrigin, unchangedSinceRecord } from '../../../src/core/dataset/index.js';
import { downloadDataset, type DownloadFault, type DownloadOptions, type DownloadProgress } from '../../../src/core/download/index.js';
import { FaultError } from '../../../src/core/errors.js';
import { isFault } from '../../support/fault-kind.js';
import { waitFor } from '../../support/dataset.js';
import { SAMPLE_FILES, startHubServer, type HubServer, type HubServerOptions, type TreeEntry } from '../../support/hub-server.js';

const ENV_KEYS = [
  'HF_HOME',
  'HF_ENDPOINT',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'HF_TOKEN_PATH',
  'HF_HUB_CACHE',
  'HUGGINGFACE_HUB_CACHE',
  'XDG_CACHE_HOME',
  'HF_HUB_OFFLINE',
];

/** About 3 MB, sent in many chunks. */
function bigRows(): string {
  return Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: `search-${i}`, text: 'y'.repeat(1000) }) + '\n').join('');
}

const FILES = SAMPLE_FILES;

let tmp: string;
let savedEnv: Record<string, string | undefined>;
const servers: HubServer[] = [];

async function hub(opts: Partial<HubServerOptions> = {}): Promise<HubServer> {
  const server = await startHubServer({ files: FILES, ...opts });
  servers.push(server);
  return server;
}

function fileRequests(server: HubServer): string[] {
  return server.downloads();
}

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'awb-download-'));
  savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const k of ENV_KEYS) delete process.env[k];
  // A developer's own `hf auth login` token must not leak into the tests.
  process.env.HF_HOME = join(tmp, 'hf-home');
});

afterEach(async () => {
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(tmp, { recursive: true, force: true });
});

describe('downloadDataset into a folder (--dir)', () => {
  it('downloads every *_test.jsonl byte for byte and records the commit', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    const events: DownloadProgress[] = [];
    const got = await downloadDataset({
      repo: 'Qwen/AgentWorldBench',
      revision: 'main',
      dir,
      hubUrl: server.url,
      onProgress: (e) => events.push(e),
    });

    assert.equal(got.commit, server.commit);
    assert.equal(got.dir, resolve(dir));
    assert.deepEqual(
      got.files.map((f) => f.domain),
      ['mcp', 'search', 'terminal'],
    );
    for (const f of got.files) {
      assert.equal(await readFile(f.path, 'utf8'), FILES[`${f.domain}_test.jsonl`]);
      assert.equal(f.bytes, Buffer.byteLength(FILES[`${f.domain}_test.jsonl`]!));
    }
    assert.deepEqual((await readdir(dir)).sort(), ['.awb-dataset.json', 'mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl']);
    assert.deepEqual(fileRequests(server).sort(), ['mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl']);

    const origin = await readDatasetOrigin(dir);
    assert.equal(origin?.repo, 'Qwen/AgentWorldBench');
    assert.equal(origin?.revision, 'main');
    assert.equal(origin?.commit, server.commit);
    assert.deepEqual(
      origin?.files.map((f) => f.file),
      ['mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl'],
    );

    for (const file of ['mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl']) {
      const mine = events.filter((e) => e.file === file);
      assert.deepEqual(mine[0], { file, bytes: 0, total: Buffer.byteLength(FILES[file]!), done: false });
      assert.deepEqual(mine.at(-1), { file, bytes: Buffer.byteLength(FILES[file]!), total: Buffer.byteLength(FILES[file]!), done: true });
    }
  });

  it('skips files already complete on a second run', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url });
    const before = fileRequests(server).length;
    const events: DownloadProgress[] = [];
    const again = await downloadDataset({
      repo: 'Qwen/AgentWorldBench',
      revision: 'main',
      dir,
      hubUrl: server.url,
      onProgress: (e) => events.push(e),
    });
    assert.equal(before, 3);
    assert.equal(fileRequests(server).length, 3, 'no file was downloaded again');
    assert.equal(again.commit, server.commit);
    assert.ok(events.length === 3 && events.every((e) => e.done && e.skipped));
  });

  it('downloads again a file whose content changed on the Hub even at the same size', async () => {
    const first = await hub();
    const dir = join(tmp, 'data');
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: first.url });
    const changed = FILES['mcp_test.jsonl']!.replace('mcp-0', 'mcp-Z');
    const second = await hub({ files: { ...FILES, 'mcp_test.jsonl': changed } });
    const got = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: second.url });
    assert.deepEqual(fileRequests(second), ['mcp_test.jsonl']);
    assert.equal(await readFile(join(dir, 'mcp_test.jsonl'), 'utf8'), changed);
    assert.equal((await readDatasetOrigin(dir))?.commit, second.commit);
    assert.equal(got.commit, second.commit);
  });

  it('fetches again a file of the listed size whose bytes differ: stale with no record, or edited after the download', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    await mkdir(dir, { recursive: true });
    // Same length, other bytes: left there by hand or by another revision, with no record of where it came from.
    await writeFile(join(dir, 'mcp_test.jsonl'), FILES['mcp_test.jsonl']!.replace('mcp-0', 'mcp-Z'));
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url });
    assert.deepEqual(fileRequests(server).sort(), ['mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl']);
    assert.equal(await readFile(join(dir, 'mcp_test.jsonl'), 'utf8'), FILES['mcp_test.jsonl']);

    // Edited in place after a download, at the same size: the record's hash no longer vouches for it.
    await writeFile(join(dir, 'search_test.jsonl'), FILES['search_test.jsonl']!.replace('search-1', 'search-Z'));
    process.env.HF_HUB_OFFLINE = '1';
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url }),
      isFault('offline-no-copy', { repo: 'Qwen/AgentWorldBench', revision: 'main', where: dir }),
    );
    delete process.env.HF_HUB_OFFLINE;
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url });
    assert.deepEqual(fileRequests(server).slice(3), ['search_test.jsonl']);
    assert.equal(await readFile(join(dir, 'search_test.jsonl'), 'utf8'), FILES['search_test.jsonl']);
  });

  it('fetches only the --domains asked for, and keeps earlier domains in the record', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    const got = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, domains: ['terminal'] });
    assert.deepEqual(
      got.files.map((f) => f.domain),
      ['terminal'],
    );
    assert.deepEqual(fileRequests(server), ['terminal_test.jsonl']);
    assert.equal(existsSync(join(dir, 'mcp_test.jsonl')), false);

    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, domains: ['mcp'] });
    assert.deepEqual(
      (await readDatasetOrigin(dir))?.files.map((f) => f.domain),
      ['mcp', 'terminal'],
    );
  });

  it('keeps in the record the domains another download put into the folder while it ran', { timeout: 300_000 }, async () => {
    // The search download is held mid-file until the mcp one has ended, however fast either goes.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const server = await hub({ files: { ...FILES, 'search_test.jsonl': bigRows() }, heldBody: { 'search_test.jsonl': held } });
    const dir = join(tmp, 'data');
    let ended = false;
    const slow = downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, domains: ['search'] }).finally(
      () => (ended = true),
    );
    // Told by the server: a progress event may be held back (at most one each tenth of a second) while the body is.
    await waitFor(() => server.downloads().includes('search_test.jsonl'), slow, 'the search download to start');
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, domains: ['mcp'] });
    assert.equal(ended, false, 'the mcp download ended while the search download ran');
    release();
    await slow;
    assert.deepEqual(
      (await readDatasetOrigin(dir))?.files.map((f) => f.domain),
      ['mcp', 'search'],
    );
  });

  it('names the domains the repo has when asked for one it does not', async () => {
    const server = await hub();
    await assert.rejects(
      downloadDataset({
        repo: 'Qwen/AgentWorldBench',
        revision: 'main',
        dir: join(tmp, 'data'),
        hubUrl: server.url,
        domains: ['mcp', 'chess'],
      }),
      isFault('domains-not-in-dataset', { domains: ['chess'], available: ['mcp', 'search', 'terminal'] }),
    );
    assert.deepEqual(fileRequests(server), []);
  });

  it('follows the paginated tree listing', async () => {
    const server = await hub({ pageSize: 2 });
    const got = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url });
    assert.deepEqual(
      got.files.map((f) => f.domain),
      ['mcp', 'search', 'terminal'],
    );
    assert.ok(server.requests.some((r) => r.path.includes('/tree/') && r.path.includes('cursor=')));
  });

  it('resolves a tag to its commit and lists files at that commit', async () => {
    const commit = 'c0ffee0000000000000000000000000000000001';
    const server = await hub({ commit, refs: { main: commit, 'v1.0': commit } });
    const got = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'v1.0', dir: join(tmp, 'data'), hubUrl: server.url });
    assert.equal(got.commit, commit);
    assert.ok(server.requests.some((r) => r.path.startsWith(`/api/datasets/Qwen/AgentWorldBench/tree/${commit}`)));
    assert.ok(
      server.downloads().length === 3 &&
        server.requests.filter((r) => r.path.includes('/resolve/')).every((r) => r.path.includes(`/resolve/${commit}/`)),
    );
  });

  it('says which revision does not exist', async () => {
    const server = await hub();
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'nope', dir: join(tmp, 'data'), hubUrl: server.url }),
      isFault('hub-revision-not-found', { hub: server.url, repo: 'Qwen/AgentWorldBench', revision: 'nope' }),
    );
  });
});

describe('downloadDataset into the Hugging Face cache', () => {
  it('uses HF_ENDPOINT and HF_HOME, one snapshot folder per commit, and skips on a second run', async () => {
    const server = await hub();
    process.env.HF_ENDPOINT = server.url + '/';
    const got = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main' });
    const storage = join(tmp, 'hf-home', 'hub', 'datasets--Qwen--AgentWorldBench');
    assert.equal(got.dir, join(storage, 'snapshots', server.commit));
    assert.equal(got.commit, server.commit);
    for (const f of got.files) assert.equal(await readFile(f.path, 'utf8'), FILES[`${f.domain}_test.jsonl`]);
    assert.equal((await readFile(join(storage, 'refs', 'main'), 'utf8')).trim(), server.commit);
    assert.deepEqual(fileRequests(server).sort(), ['mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl']);

    const events: DownloadProgress[] = [];
    const again = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', onProgress: (e) => events.push(e) });
    assert.equal(again.dir, got.dir);
    assert.equal(fileRequests(server).length, 3, 'no file was downloaded again');
    assert.ok(events.every((e) => e.skipped));

    const origin = await readDatasetOrigin(got.dir);
    assert.deepEqual(
      { repo: origin?.repo, revision: origin?.revision, commit: origin?.commit, n: origin?.files.length },
      { repo: 'Qwen/AgentWorldBench', revision: 'main', commit: server.commit, n: 3 },
    );
  });

  it('honours HF_HUB_CACHE and reports byte progress while the library downloads', async () => {
    const big = bigRows();
    const server = await hub({ files: { ...FILES, 'search_test.jsonl': big }, slowBodyMs: 10 });
    process.env.HF_HUB_CACHE = join(tmp, 'elsewhere');
    const events: DownloadProgress[] = [];
    const got = await downloadDataset({
      repo: 'Qwen/AgentWorldBench',
      revision: 'main',
      hubUrl: server.url,
      domains: ['search'],
      onProgress: (e) => events.push(e),
    });
    assert.ok(got.dir.startsWith(join(tmp, 'elsewhere', 'datasets--Qwen--AgentWorldBench')));
    assert.equal(await readFile(got.files[0]!.path, 'utf8'), big);
    assert.equal(events.at(-1)?.bytes, Buffer.byteLength(big));
    assert.ok(events.at(-1)?.done);
    assert.ok(
      events.some((e) => !e.done && e.bytes > 0 && e.bytes < e.total),
      'bytes reported mid-file',
    );
  });

  it('reports byte progress mid-file into a folder too', async () => {
    const big = bigRows();
    const server = await hub({ files: { ...FILES, 'search_test.jsonl': big }, slowBodyMs: 10 });
    const events: DownloadProgress[] = [];
    await downloadDataset({
      repo: 'Qwen/AgentWorldBench',
      revision: 'main',
      dir: join(tmp, 'data'),
      hubUrl: server.url,
      domains: ['search'],
      onProgress: (e) => events.push(e),
    });
    assert.ok(
      events.some((e) => !e.done && e.bytes > 0 && e.bytes < e.total),
      'bytes reported mid-file',
    );
    const mid = events.filter((e) => !e.done).map((e) => e.bytes);
    assert.deepEqual(
      mid,
      [...mid].sort((a, b) => a - b),
      'never goes backwards',
    );
  });

  it('uses the cached copy without the Hub when HF_HUB_OFFLINE is set or the Hub is unreachable, with the same hashes', async () => {
    const server = await hub();
    const online = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url });
    const seen = server.requests.length;
    process.env.HF_HUB_OFFLINE = '1';
    const offline = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url, domains: ['search'] });
    assert.equal(server.requests.length, seen);
    assert.equal(offline.offline, 'HF_HUB_OFFLINE');
    assert.equal(offline.commit, server.commit);
    assert.deepEqual(
      offline.files.map((f) => f.domain),
      ['search'],
    );
    delete process.env.HF_HUB_OFFLINE;

    await server.close();
    const unreachable = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url });
    assert.equal(unreachable.offline, 'unreachable');
    // The hashes a run records (what tells the same files apart from either hub) do not depend on the network.
    const hashes = (ds: typeof online) => ds.files.map((f) => [f.domain, f.bytes, f.sha256]);
    assert.ok(online.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256 ?? '')));
    assert.deepEqual(hashes(unreachable), hashes(online));
    assert.deepEqual(
      hashes(offline),
      hashes(online).filter(([d]) => d === 'search'),
    );
    // `--data` naming the snapshot folder reads them too.
    const origin = await readDatasetOrigin(online.dir);
    assert.deepEqual(
      origin?.files.map((f) => [f.domain, f.bytes, f.sha256]),
      hashes(online),
    );
  });
});

describe('a file of the Hugging Face cache edited by hand', () => {
  it('is fetched again even at the same size and is not used offline; the same bytes written back pass without a download', async () => {
    const server = await hub();
    const online = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url });
    const mcp = online.files.find((f) => f.domain === 'mcp')!.path;
    // Written through the snapshot's link, as an editor does: the blob changes, its name (the hub's SHA-256) does not.
    const edit = () => writeFile(mcp, FILES['mcp_test.jsonl']!.replace('mcp-0', 'mcp-9'));
    await edit();

    process.env.HF_HUB_OFFLINE = '1';
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url }),
      isFault('offline-no-copy', { where: join(tmp, 'hf-home', 'hub', 'datasets--Qwen--AgentWorldBench') }),
    );
    const others = await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', domains: ['search', 'terminal'] });
    assert.equal(others.offline, 'HF_HUB_OFFLINE', 'the files left alone are still used offline');
    delete process.env.HF_HUB_OFFLINE;

    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url });
    assert.deepEqual(fileRequests(server).sort(), ['mcp_test.jsonl', 'mcp_test.jsonl', 'search_test.jsonl', 'terminal_test.jsonl']);
    assert.equal(await readFile(mcp, 'utf8'), FILES['mcp_test.jsonl']);

    // Rewritten with the same bytes: read again, found to be the hub's file, and not downloaded.
    await writeFile(mcp, FILES['mcp_test.jsonl']!);
    process.env.HF_HUB_OFFLINE = '1';
    assert.equal((await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main' })).offline, 'HF_HUB_OFFLINE');
    delete process.env.HF_HUB_OFFLINE;
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url });
    assert.equal(fileRequests(server).length, 4);
  });
});

describe('downloadDataset tokens', () => {
  it('sends HF_TOKEN as a Bearer header on every request', async () => {
    const server = await hub({ token: 'hf_secret123' });
    process.env.HF_TOKEN = 'hf_secret123';
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url });
    assert.ok(server.requests.length >= 5);
    for (const r of server.requests) assert.equal(r.headers.authorization, 'Bearer hf_secret123', `${r.method} ${r.path}`);
  });

  it('sends no Authorization header without a token', async () => {
    const server = await hub();
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url });
    assert.ok(server.requests.every((r) => r.headers.authorization === undefined));
  });

  it('reads the token `hf auth login` saved under HF_HOME', async () => {
    const server = await hub({ token: 'hf_saved' });
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(process.env.HF_HOME!, { recursive: true });
    await writeFile(join(process.env.HF_HOME!, 'token'), 'hf_saved\n');
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url });
    assert.ok(server.requests.every((r) => r.headers.authorization === 'Bearer hf_saved'));
  });

  it('explains a token that does not start with hf_ before sending anything', async () => {
    const server = await hub();
    process.env.HF_TOKEN = 'sk-not-a-hub-token';
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url }),
      isFault('hub-token-malformed', { source: 'HF_TOKEN' }),
    );
    assert.equal(server.requests.length, 0);
  });

  it('says to set HF_TOKEN when the Hub denies access', async () => {
    const server = await hub({ token: 'hf_right' });
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url }),
      isFault('hub-access-denied', {
        hub: server.url,
        status: 401,
        doing: { step: 'resolve', repo: 'Qwen/AgentWorldBench', revision: 'main' },
        tokenSource: undefined,
      }),
    );
    process.env.HF_TOKEN = 'hf_wrong';
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url }),
      isFault('hub-access-denied', { status: 401, tokenSource: 'HF_TOKEN' }),
    );
  });
});

describe('downloadDataset failures', () => {
  it('names the hub URL when nothing listens there', async () => {
    const server = await hub();
    await server.close();
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url }),
      isFault('hub-unreachable', {
        hub: server.url,
        code: 'ECONNREFUSED',
        doing: { step: 'resolve', repo: 'Qwen/AgentWorldBench', revision: 'main' },
      }),
    );
  });

  it('leaves no partial file under the final name when the connection is cut (--dir)', async () => {
    const server = await hub({ fail: { 'search_test.jsonl': { mode: 'cut' } } });
    const dir = join(tmp, 'data');
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, retries: 0 }),
      isFault('hub-connection-broke', { hub: server.url, doing: { step: 'download', path: 'search_test.jsonl' } }),
    );
    assert.deepEqual(await readdir(dir), ['mcp_test.jsonl'], 'no search_test.jsonl, no .incomplete, no record');
  });

  it('never has a partial file under the final name while downloading, and cleans up when aborted', async () => {
    const server = await hub({ fail: { 'search_test.jsonl': { mode: 'stall' } } });
    const dir = join(tmp, 'data');
    const abort = new AbortController();
    const pending = downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, signal: abort.signal });
    pending.catch(() => {});
    let partial: string | undefined;
    // A deadline, not a count of waits: on a loaded machine each wait lasts longer than asked.
    for (const deadline = Date.now() + 60_000; !partial && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 20));
      for (const name of existsSync(dir) ? await readdir(dir) : []) {
        if (name.startsWith('search_test.jsonl') && (await stat(join(dir, name))).size > 0) partial = name;
      }
    }
    assert.ok(partial, 'half of search_test.jsonl arrived');
    assert.notEqual(partial, 'search_test.jsonl');
    abort.abort();
    await assert.rejects(pending, (err: unknown) => (err as Error).name === 'AbortError');
    assert.deepEqual(await readdir(dir), ['mcp_test.jsonl']);
  });

  it("keeps what was under a file's name (a stale copy, a link) there while its new copy downloads, and after an abort", async () => {
    const server = await hub({ fail: { 'search_test.jsonl': { mode: 'stall' } } });
    const dir = join(tmp, 'data');
    await mkdir(dir);
    const victim = join(tmp, 'victim.txt');
    await writeFile(victim, 'precious\n');
    await symlink(victim, join(dir, 'search_test.jsonl'));
    await writeFile(join(dir, ORIGIN_FILE), '{"stale": true}\n');
    const abort = new AbortController();
    const pending = downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, signal: abort.signal });
    pending.catch(() => {});
    const temp = async () => {
      for (const name of await readdir(dir)) {
        if (name.startsWith('search_test.jsonl.') && (await stat(join(dir, name))).size > 0) return name;
      }
      return undefined;
    };
    for (const deadline = Date.now() + 60_000; !(await temp()) && Date.now() < deadline;) {
      assert.ok((await lstat(join(dir, 'search_test.jsonl'))).isSymbolicLink(), 'the old search_test.jsonl is there');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(await temp(), 'half of the new search_test.jsonl arrived');
    assert.ok((await lstat(join(dir, 'search_test.jsonl'))).isSymbolicLink(), 'the old search_test.jsonl is there mid-download');
    abort.abort();
    await assert.rejects(pending, (err: unknown) => (err as Error).name === 'AbortError');
    assert.ok((await lstat(join(dir, 'search_test.jsonl'))).isSymbolicLink(), 'the old search_test.jsonl is there after the abort');
    assert.equal(await readFile(join(dir, ORIGIN_FILE), 'utf8'), '{"stale": true}\n');
    assert.equal(await readFile(victim, 'utf8'), 'precious\n');
    assert.deepEqual((await readdir(dir)).sort(), [ORIGIN_FILE, 'mcp_test.jsonl', 'search_test.jsonl']);
  });

  it('replaces a link planted in place of the download record, never writing through it', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    await mkdir(dir);
    const victim = join(tmp, 'victim.json');
    await writeFile(victim, '{"precious": true}\n');
    await symlink(victim, join(dir, ORIGIN_FILE));
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, domains: ['mcp'] });
    assert.equal(await readFile(victim, 'utf8'), '{"precious": true}\n');
    assert.equal((await lstat(join(dir, ORIGIN_FILE))).isFile(), true);
    assert.equal((await readDatasetOrigin(dir))?.commit, server.commit);
  });

  it('leaves no file in the snapshot when the connection is cut (cache)', async () => {
    const server = await hub({ fail: { 'mcp_test.jsonl': { mode: 'cut' } } });
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url, retries: 0 }),
      isFault('hub-connection-broke', { doing: { step: 'download', path: 'mcp_test.jsonl' } }),
    );
    const snapshot = join(tmp, 'hf-home', 'hub', 'datasets--Qwen--AgentWorldBench', 'snapshots', server.commit);
    assert.equal(existsSync(join(snapshot, 'mcp_test.jsonl')), false);
  });

  it('removes the temporary files a download killed outright left an hour ago, and no younger ones', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    const storage = join(tmp, 'hf-home', 'hub', 'datasets--Qwen--AgentWorldBench');
    const sha = createHash('sha256').update(FILES['mcp_test.jsonl']!).digest('hex');
    const left = [join(dir, 'mcp_test.jsonl'), join(storage, 'blobs', sha)].flatMap((target) => [
      `${target}.awb-999999-0123456789ab.tmp`,
      `${target}.awb-999998-ba9876543210.tmp`,
    ]);
    for (const [i, path] of left.entries()) {
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, 'half a file');
      // Even ones: killed two hours ago; odd ones: written a minute ago, maybe by a download still alive.
      const when = new Date(Date.now() - (i % 2 === 0 ? 7_200_000 : 60_000));
      await utimes(path, when, when);
    }
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, domains: ['mcp'] });
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url, domains: ['mcp'] });
    assert.deepEqual(
      left.map((p) => existsSync(p)),
      [false, true, false, true],
    );
  });

  it('resumes with a Range request after a cut connection and verifies the result', async () => {
    const server = await hub({ fail: { 'search_test.jsonl': { mode: 'cut', times: 1 } } });
    const dir = join(tmp, 'data');
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir, hubUrl: server.url, retries: 1, retryDelayMs: 5 });
    assert.equal(await readFile(join(dir, 'search_test.jsonl'), 'utf8'), FILES['search_test.jsonl']);
    const ranged = server.requests.filter(
      (r) => r.path.endsWith('/search_test.jsonl') && r.headers.range && r.headers.range !== 'bytes=0-0',
    );
    assert.equal(ranged.length, 1);
    assert.match(String(ranged[0]!.headers.range), /^bytes=[1-9]\d*-\d+$/);
  });

  it('starts a cut file over when the server answers the Range request with the whole file', async () => {
    for (const dir of [join(tmp, 'data'), undefined]) {
      const server = await hub({ fail: { 'search_test.jsonl': { mode: 'cut', times: 1 } }, ignoreRange: true });
      process.env.HF_HOME = join(tmp, `hf-${dir === undefined ? 'cache' : 'dir'}`);
      const got = await downloadDataset({
        repo: 'Qwen/AgentWorldBench',
        revision: 'main',
        dir,
        hubUrl: server.url,
        retries: 1,
        retryDelayMs: 5,
      });
      const search = got.files.find((f) => f.domain === 'search')!;
      assert.equal(await readFile(search.path, 'utf8'), FILES['search_test.jsonl']);
      assert.ok(server.requests.some((r) => r.path.endsWith('/search_test.jsonl') && /^bytes=[1-9]/.test(String(r.headers.range))));
    }
  });

  it('retries a 500 and then reports it with the file', async () => {
    const server = await hub({ fail: { 'terminal_test.jsonl': { mode: 'status500' } } });
    await assert.rejects(
      downloadDataset({
        repo: 'Qwen/AgentWorldBench',
        revision: 'main',
        dir: join(tmp, 'data'),
        hubUrl: server.url,
        retries: 2,
        retryDelayMs: 5,
      }),
      isFault('hub-http-error', { hub: server.url, status: 500, doing: { step: 'download', path: 'terminal_test.jsonl' } }),
    );
    assert.equal(fileRequests(server).filter((p) => p === 'terminal_test.jsonl').length, 3);
  });

  it('a mirror answering with an HTML page (for the commit, the listing or an error) is one line, exit 3', async () => {
    const page = { 'Content-Type': 'text/html' };
    const html = '<!doctype html><html><body>Mirror under maintenance</body></html>';
    for (const [route, status, headers] of [
      ['/revision/', 200, page],
      ['/tree/', 200, page],
      ['/tree/', 502, { 'Content-Type': 'application/json' }],
    ] as const) {
      const server = await hub({ answer: (r) => (r.path.includes(route) ? { status, headers, body: html } : undefined) });
      await assert.rejects(
        downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url, retries: 0 }),
        status === 200
          ? isFault('hub-unexpected-answer', {
              hubKind: 'huggingface',
              hub: server.url,
              detail: undefined,
              doing:
                route === '/tree/'
                  ? { step: 'list', repo: 'Qwen/AgentWorldBench' }
                  : { step: 'resolve', repo: 'Qwen/AgentWorldBench', revision: 'main' },
            })
          : isFault('hub-http-error', { hub: server.url, status: 502, doing: { step: 'list', repo: 'Qwen/AgentWorldBench' } }),
        `${route} ${status}`,
      );
    }
  });

  it('names the CDN a file was redirected to when it refuses, never blaming the token, and retries with a fresh link', async () => {
    process.env.HF_TOKEN = 'hf_secret_token_value';
    let refusals = Infinity;
    const expired = { status: 403, headers: { 'Content-Type': 'application/xml' }, body: '<Error><Code>AccessDenied</Code></Error>' };
    const cdn = await hub({ answer: () => (refusals-- > 0 ? expired : undefined) });
    const server = await hub({ cdn: cdn.url, token: 'hf_secret_token_value' });
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url, retryDelayMs: 5 }),
      isFault('hub-redirect-failed', { host: cdn.url, hub: server.url, file: 'mcp_test.jsonl', status: 403 }),
    );
    assert.equal(cdn.requests.length, 3, 'tried three times, each with a fresh link');
    assert.ok(cdn.requests.every((r) => r.headers.authorization === undefined && r.path.includes('X-Amz-Signature')));

    refusals = 1;
    const got = await downloadDataset({
      repo: 'Qwen/AgentWorldBench',
      revision: 'main',
      dir: join(tmp, 'data'),
      hubUrl: server.url,
      retryDelayMs: 5,
    });
    for (const f of got.files) assert.equal(await readFile(f.path, 'utf8'), FILES[`${f.domain}_test.jsonl`]);
  });

  it(
    'retries a 503 or 429 from the commit, the listing or a file after the Retry-After the hub asks for',
    { timeout: 300_000 },
    async () => {
      const busy = new Set<string>();
      const server = await hub({
        answer: (r) => {
          const route = ['/revision/', '/tree/', '/resolve/'].find((x) => r.path.includes(x) && r.headers.range !== 'bytes=0-0');
          if (route === undefined || busy.has(route)) return undefined;
          busy.add(route);
          return { status: route === '/revision/' ? 503 : 429, headers: { 'Retry-After': '1' }, body: '{"error":"busy"}' };
        },
      });
      // The backoff alone would wait ten minutes, past the test's timeout: only the hub's Retry-After lets it finish.
      const got = await downloadDataset({
        repo: 'Qwen/AgentWorldBench',
        revision: 'main',
        dir: join(tmp, 'data'),
        hubUrl: server.url,
        retryDelayMs: 600_000,
      });
      assert.deepEqual([...busy].sort(), ['/resolve/', '/revision/', '/tree/']);
      for (const f of got.files) assert.equal(await readFile(f.path, 'utf8'), FILES[`${f.domain}_test.jsonl`]);
    },
  );

  it('says which repo does not exist', async () => {
    const server = await hub();
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/NoSuchBench', revision: 'main', dir: join(tmp, 'data'), hubUrl: server.url }),
      isFault('hub-access-denied', { repo: 'Qwen/NoSuchBench', status: 401, tokenSource: undefined }),
    );
  });

  it('refuses a --repo that is not OWNER/NAME before asking the hub or writing anything', async () => {
    const server = await hub();
    process.env.MODELSCOPE_CACHE = join(tmp, 'ms', 'cache');
    const cases: [string, 'huggingface' | 'modelscope'][] = [
      ['Qwen/AgentWorldBench/../../../../escape', 'modelscope'],
      ['Qwen/AgentWorldBench/../../escape', 'huggingface'],
      ['Qwen/AgentWorldBench?x=1', 'huggingface'],
      ['Qwen AgentWorldBench', 'huggingface'],
      ['Qwen', 'modelscope'],
      ['', 'huggingface'],
    ];
    try {
      for (const [repo, source] of cases) {
        await assert.rejects(
          downloadDataset({ source, repo, revision: 'main', hubUrl: server.url }),
          isFault('repo-invalid', { repo }),
          `${source} ${repo}`,
        );
      }
    } finally {
      delete process.env.MODELSCOPE_CACHE;
    }
    assert.deepEqual(server.requests, []);
    assert.equal(existsSync(join(tmp, 'ms')), false);
    assert.equal(existsSync(join(tmp, 'escape')), false);
  });

  it('rejects an HF_ENDPOINT that is not a URL', async () => {
    process.env.HF_ENDPOINT = 'hf-mirror.com';
    await assert.rejects(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main' }),
      isFault('hub-url-invalid', { setting: 'HF_ENDPOINT', value: 'hf-mirror.com' }),
    );
  });
});

describe('a lying mirror', () => {
  const CACHE_REPO = ['hub', 'datasets--Qwen--AgentWorldBench'];

  /** Every file and link under `root`, relative to it, skipping the cache's repo folder (where writes belong). */
  async function writtenOutside(root: string, allowed: string): Promise<string[]> {
    const all = await readdir(root, { recursive: true });
    return all.filter((p) => !join(root, p).startsWith(allowed) && !allowed.startsWith(join(root, p)));
  }

  /** Downloads only terminal_test.jsonl, the file these mirrors lie about, without retrying. */
  function terminalOnly(server: HubServer, extra: Partial<DownloadOptions> = {}) {
    return downloadDataset({
      repo: 'Qwen/AgentWorldBench',
      revision: 'main',
      hubUrl: server.url,
      domains: ['terminal'],
      retries: 0,
      ...extra,
    });
  }

  /** The fault a refusal carries (its words, exit code and the escaping of a hostile hub's values: test/commands/words/). */
  async function refusal(pending: Promise<unknown>): Promise<DownloadFault> {
    let caught: unknown;
    await pending.catch((err: unknown) => (caught = err));
    assert.ok(caught instanceof FaultError, `a fault, got ${String(caught)}`);
    return caught.fault as DownloadFault;
  }

  it('never writes outside the cache for unsafe names or oids in the listing', async () => {
    // The cache sits deep inside tmp, so a `..` that escapes it still lands where the test can see it.
    process.env.HF_HOME = join(tmp, 'a', 'b', 'c', 'hf-home');
    const allowed = join(tmp, 'a', 'b', 'c', 'hf-home', ...CACHE_REPO);
    const real = Buffer.from(FILES['terminal_test.jsonl']!);
    const entry = (path: string, extra: Record<string, unknown> = {}) => ({
      type: 'file',
      oid: 'a'.repeat(40),
      size: real.length,
      path,
      ...extra,
    });
    const cases: { name: string; opts: Partial<HubServerOptions>; shows: string }[] = [
      {
        name: 'oid with ..',
        opts: { tamper: (e) => (e.path === 'terminal_test.jsonl' ? { ...e, oid: '../../../../../../planted.sh', lfs: undefined } : e) },
        shows: '../../../../../../planted.sh',
      },
      {
        name: 'LFS oid absolute',
        opts: { tamper: (e) => (e.path === 'terminal_test.jsonl' ? { ...e, lfs: { oid: join(tmp, 'planted'), size: real.length } } : e) },
        shows: join(tmp, 'planted'),
      },
      { name: 'path with ..', opts: { extraEntries: [entry('../../../../x/os_test.jsonl')] }, shows: '../../../../x/os_test.jsonl' },
      { name: 'absolute path', opts: { extraEntries: [entry(join(tmp, 'abs', 'os_test.jsonl'))] }, shows: join(tmp, 'abs') },
      { name: 'backslash', opts: { extraEntries: [entry('..\\..\\os_test.jsonl')] }, shows: 'os_test.jsonl' },
      // The fault carries such a value escaped, as JSON spells it.
      { name: 'NUL', opts: { extraEntries: [entry('os\u0000_test.jsonl')] }, shows: 'os\\u0000_test' },
      { name: 'escape in the domain', opts: { extraEntries: [entry('\u001b[2Jos_test.jsonl')] }, shows: '\\u001b[2Jos_test' },
      { name: 'domain not a word', opts: { extraEntries: [entry('Os Web_test.jsonl')] }, shows: 'Os Web_test.jsonl' },
    ];
    for (const c of cases) {
      const server = await hub(c.opts);
      const fault = await refusal(downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url }));
      assert.equal(fault.kind, 'hub-listing-unsafe', `${c.name}: ${JSON.stringify(fault)}`);
      assert.equal(fault.hub, server.url, c.name);
      assert.ok(fault.value.includes(c.shows), `${c.name}: names the bad value: ${JSON.stringify(fault)}`);
      assert.deepEqual(await writtenOutside(tmp, allowed), [], `${c.name}: nothing written outside the repo folder`);
      assert.deepEqual(fileRequests(server), [], `${c.name}: nothing downloaded`);
    }
  });

  it('refuses a wrong size or hash in cache mode and leaves nothing under the final names', async () => {
    const real = Buffer.from(FILES['terminal_test.jsonl']!);
    const storage = join(tmp, 'hf-home', ...CACHE_REPO);
    const path = 'terminal_test.jsonl';
    const cases: { name: string; tamper: (e: TreeEntry) => TreeEntry; fault: (hub: string) => DownloadFault }[] = [
      {
        name: 'listed smaller',
        tamper: (e) => ({ ...e, size: 100, lfs: undefined }),
        fault: (hub) => ({ kind: 'hub-oversize', hub, limit: 100, doing: { step: 'download', path } }),
      },
      {
        name: 'listed larger',
        tamper: (e) => ({ ...e, size: real.length + 10, lfs: undefined }),
        fault: (hub) => ({ kind: 'hub-file-damaged', hub, path, size: real.length + 10, written: real.length, tries: 1 }),
      },
      {
        name: 'wrong sha256',
        tamper: (e) => ({ ...e, lfs: { oid: 'b'.repeat(64), size: real.length } }),
        fault: (hub) => ({ kind: 'hub-file-damaged', hub, path, size: real.length, tries: 1 }),
      },
      {
        name: 'wrong git oid',
        tamper: (e) => ({ ...e, oid: 'c'.repeat(40), lfs: undefined }),
        fault: (hub) => ({ kind: 'hub-file-damaged', hub, path, size: real.length, tries: 1 }),
      },
    ];
    for (const c of cases) {
      const server = await hub({ tamper: (e) => (e.path === path ? c.tamper(e) : e) });
      assert.deepEqual(await refusal(terminalOnly(server)), c.fault(server.url), c.name);
      const left = await readdir(storage, { recursive: true });
      assert.deepEqual(
        left.filter((p) => p.includes('terminal_test') || /blobs\/./.test(p)),
        [],
        `${c.name}: no blob, no link: ${left.join(', ')}`,
      );
    }
  });

  it('cuts an endless body at the listed size, and never shows more than 100%', { timeout: 300_000 }, async () => {
    for (const dir of [undefined, join(tmp, 'data')]) {
      const server = await hub({ body: { 'terminal_test.jsonl': 'endless' } });
      const events: DownloadProgress[] = [];
      const fault = await refusal(terminalOnly(server, { dir, onProgress: (e) => events.push(e) }));
      const path = 'terminal_test.jsonl';
      assert.deepEqual(fault, {
        kind: 'hub-oversize',
        hub: server.url,
        limit: Buffer.byteLength(FILES[path]!),
        doing: { step: 'download', path },
      });
      assert.ok(
        events.every((e) => e.bytes <= e.total),
        'progress stays within the file',
      );
      const where = dir ?? join(tmp, 'hf-home');
      const left = await readdir(where, { recursive: true });
      const sizes = await Promise.all(left.map(async (p) => (await stat(join(where, p))).size));
      assert.ok(Math.max(0, ...sizes) < 1_000_000, 'nothing giant left behind');
      assert.deepEqual(
        left.filter((p) => p.includes('terminal_test') || p.endsWith('.tmp')),
        [],
      );
    }
  });

  it('refuses a listed size far beyond any real file before downloading', async () => {
    const server = await hub({ tamper: (e) => (e.path === 'terminal_test.jsonl' ? { ...e, size: 1e12, lfs: undefined } : e) });
    const fault = await refusal(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url, dir: join(tmp, 'd') }),
    );
    assert.deepEqual(fault, { kind: 'hub-file-too-big', hub: server.url, path: 'terminal_test.jsonl', size: 1e12, cap: 2048 * 2 ** 20 });
    assert.deepEqual(fileRequests(server), []);
    const small = await hub();
    const fault2 = await refusal(
      downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: small.url, dir: join(tmp, 'd'), maxFileBytes: 100 }),
    );
    assert.equal(fault2.kind === 'hub-file-too-big' && fault2.cap, 100);
  });

  it('refuses a listing that never ends', { timeout: 300_000 }, async () => {
    const server = await hub({ endlessListing: true });
    const fault = await refusal(terminalOnly(server, { dir: join(tmp, 'data') }));
    assert.deepEqual(fault, { kind: 'hub-too-many-files', hub: server.url, repo: 'Qwen/AgentWorldBench', max: 100000 });
  });

  it('gives a stalled transfer up after the idle timeout', { timeout: 300_000 }, async () => {
    const server = await hub({ body: { 'terminal_test.jsonl': 'trickle' } });
    const dir = join(tmp, 'data');
    const fault = await refusal(terminalOnly(server, { dir, timeoutSeconds: 1 }));
    assert.deepEqual(fault, { kind: 'hub-stalled', hub: server.url, seconds: 1, doing: { step: 'download', path: 'terminal_test.jsonl' } });
    assert.deepEqual(await readdir(dir), []);
  });

  it('gives up a trickle (a byte every 200 ms) as stalled, though no single wait reaches the timeout', { timeout: 300_000 }, async () => {
    const server = await hub({ body: { 'terminal_test.jsonl': 'drip' } });
    const dir = join(tmp, 'data');
    const fault = await refusal(terminalOnly(server, { dir, timeoutSeconds: 1 }));
    assert.deepEqual(fault, { kind: 'hub-stalled', hub: server.url, seconds: 1, doing: { step: 'download', path: 'terminal_test.jsonl' } });
    assert.deepEqual(await readdir(dir), []);
  });

  it('never writes through a link planted in --dir, and the final file is never a link', async () => {
    const server = await hub();
    const dir = join(tmp, 'data');
    await mkdir(dir);
    const victim = join(tmp, 'victim.txt');
    const precious = 'precious\n';
    await writeFile(victim, precious);
    await symlink(victim, join(dir, 'terminal_test.jsonl.incomplete'));
    await symlink(victim, join(dir, 'mcp_test.jsonl'));
    for (const name of ['search', 'terminal']) {
      // Every name a temporary file could plausibly get, as a link to the victim.
      await symlink(victim, join(dir, `${name}_test.jsonl.tmp`));
    }
    await downloadDataset({ repo: 'Qwen/AgentWorldBench', revision: 'main', hubUrl: server.url, dir });
    assert.equal(await readFile(victim, 'utf8'), precious);
    for (const name of ['mcp', 'search', 'terminal']) {
      const path = join(dir, `${name}_test.jsonl`);
      assert.equal((await lstat(path)).isFile(), true, `${name} is a plain file`);
      assert.equal(await readFile(path, 'utf8'), FILES[`${name}_test.jsonl`]);
    }
  });
});

describe('a file a download record lists', () => {
  it('keeps its recorded hash only while it is as the download left it: same size, written before the record', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-unchanged-'));
    try {
      const file = { file: 'web_test.jsonl', bytes: 4 };
      await writeFile(join(dir, file.file), 'abc\n');
      assert.equal(await unchangedSinceRecord(dir, file), false, 'no record: nothing vouches for it');
      await writeFile(join(dir, ORIGIN_FILE), '{}');
      const recorded = new Date('2026-01-02T00:00:00Z');
      await utimes(join(dir, ORIGIN_FILE), recorded, recorded);
      const before = new Date('2026-01-01T00:00:00Z');
      await utimes(join(dir, file.file), before, before);
      assert.equal(await unchangedSinceRecord(dir, file), true);
      assert.equal(await unchangedSinceRecord(dir, { ...file, bytes: 5 }), false, 'another size');
      assert.equal(await unchangedSinceRecord(dir, { ...file, file: 'os_test.jsonl' }), false, 'not there');
      await utimes(join(dir, file.file), recorded, recorded);
      assert.equal(await unchangedSinceRecord(dir, file), false, "written in the record's own tick");
      const after = new Date('2026-01-03T00:00:00Z');
      await utimes(join(dir, file.file), after, after);
      assert.equal(await unchangedSinceRecord(dir, file), false, 'edited after the record');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

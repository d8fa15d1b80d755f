import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { readDatasetOrigin } from '../../../src/core/dataset/index.js';
import { downloadDataset, type DownloadFault, type DownloadOptions } from '../../../src/core/download/index.js';
import { FaultError } from '../../../src/core/errors.js';
import { comparabilityNotes, type Provenance } from '../../../src/core/score/index.js';
import { tempDirs, type Dataset } from '../../support/dataset.js';
import { isFault } from '../../support/fault-kind.js';
import { sampleRepo, startModelScopeServer, type ModelScopeServer, type ModelScopeServerOptions } from '../../support/modelscope-server.js';

const ENV_KEYS = ['MODELSCOPE_ENDPOINT', 'MODELSCOPE_DOMAIN', 'MODELSCOPE_API_TOKEN', 'MODELSCOPE_CACHE'];
const TOKEN = 'ms-secret-token-4f1c9a';
const temps = tempDirs('modelscope');
let tmp: string;
let data: Dataset;
/** Repo path → content (sampleRepo's). */
let files: Record<string, Buffer>;
let savedEnv: Record<string, string | undefined>;
const servers: ModelScopeServer[] = [];

before(async () => {
  ({ data, files } = await sampleRepo(await temps.make()));
});

after(() => temps.cleanup());

beforeEach(async () => {
  tmp = await temps.make();
  savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const k of ENV_KEYS) delete process.env[k];
  process.env.MODELSCOPE_CACHE = join(tmp, 'ms-cache');
});

afterEach(async () => {
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function modelscope(opts: Partial<ModelScopeServerOptions> = {}): Promise<ModelScopeServer> {
  const server = await startModelScopeServer({ files, ...opts });
  servers.push(server);
  process.env.MODELSCOPE_ENDPOINT = server.url;
  return server;
}

function download(extra: Partial<DownloadOptions> = {}) {
  return downloadDataset({ source: 'modelscope', repo: 'Qwen/AgentWorldBench', revision: 'master', retryDelayMs: 1, ...extra });
}

/** The fault a refusal carries (its words and exit code: test/commands/words/). */
async function refusal(promise: Promise<unknown>): Promise<DownloadFault> {
  const err = await promise.then(
    () => assert.fail('expected a refusal'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FaultError, String(err));
  return err.fault as DownloadFault;
}

const fileRequests = (s: ModelScopeServer, name: string) => s.requests.filter((r) => r.path.includes(`FilePath=${name}`));

describe('downloadDataset --source modelscope', () => {
  it("fills ModelScope's cache byte for byte, paging the listing, and records hub, commit and hashes", async () => {
    const server = await modelscope();
    const ds = await download();
    const cache = join(tmp, 'ms-cache', 'hub', 'datasets', 'Qwen', 'AgentWorldBench');
    assert.equal(ds.dir, cache);
    assert.equal(ds.hub, 'modelscope');
    assert.equal(ds.commit, server.commit);
    for (const domain of ['mcp', 'search', 'terminal']) {
      assert.deepEqual(await readFile(join(cache, `${domain}_test.jsonl`)), await readFile(data.files.get(domain)!));
    }
    assert.ok(
      server.requests.some((r) => r.path.includes('PageNumber=2')),
      'the second page was asked for',
    );
    const origin = await readDatasetOrigin(cache);
    assert.equal(origin?.hub, 'modelscope');
    assert.equal(origin?.commit, server.commit);
    assert.match(origin!.files[0]!.sha256!, /^[0-9a-f]{64}$/);
    // A second run finds everything in place and asks for no file.
    const before = server.requests.length;
    await download();
    assert.equal(server.requests.slice(before).filter((r) => r.path.includes('FilePath=')).length, 0);
  });

  it('refuses a file that never matches its SHA-256 or its size after retrying, and leaves nothing under its name', async () => {
    const real = files['search_test.jsonl']!;
    const flipped = Buffer.from(real);
    flipped[10] = flipped[10]! ^ 1;
    const cases = [
      { name: 'one bit flipped', body: flipped, written: undefined },
      // A server that ends the body early, cleanly: the same command would get the same bytes.
      { name: 'cut short', body: real.subarray(0, 100), written: 100 },
    ];
    for (const c of cases) {
      const server = await modelscope({ corrupt: { 'search_test.jsonl': c.body } });
      const dir = join(tmp, c.name);
      const fault = await refusal(download({ dir, retries: 2 }));
      assert.deepEqual(
        fault,
        {
          kind: 'hub-file-damaged',
          hub: server.url,
          path: 'search_test.jsonl',
          size: real.length,
          ...(c.written === undefined ? {} : { written: c.written }),
          tries: 3,
        },
        c.name,
      );
      assert.equal(fileRequests(server, 'search_test.jsonl').length, 3, `${c.name}: first try and two retries`);
      const left = await readdir(dir);
      assert.ok(!left.includes('search_test.jsonl'), `${c.name}: nothing under the final name: ${left.join(', ')}`);
      assert.ok(!left.some((n) => n.endsWith('.tmp')), `${c.name}: no temporary file left: ${left.join(', ')}`);
    }
  });

  it('resumes a cut transfer with a Range request and ends byte-identical', async () => {
    const server = await modelscope({ cut: { 'terminal_test.jsonl': 1 } });
    const dir = join(tmp, 'out');
    await download({ dir });
    assert.deepEqual(await readFile(join(dir, 'terminal_test.jsonl')), files['terminal_test.jsonl']);
    const asked = fileRequests(server, 'terminal_test.jsonl');
    assert.equal(asked.length, 2);
    assert.match(String(asked[1]!.headers.range), /^bytes=[1-9]\d*-$/);
  });

  it('redoes a cut transfer when the server ignores Range', async () => {
    const server = await modelscope({ cut: { 'mcp_test.jsonl': 1 }, ignoreRange: true });
    const dir = join(tmp, 'out');
    await download({ dir });
    assert.deepEqual(await readFile(join(dir, 'mcp_test.jsonl')), files['mcp_test.jsonl']);
    assert.equal(fileRequests(server, 'mcp_test.jsonl').length, 2);
  });

  it('sends MODELSCOPE_API_TOKEN as a bearer token and the m_session_id cookie, and never shows it', async () => {
    const server = await modelscope({ token: TOKEN });
    process.env.MODELSCOPE_API_TOKEN = TOKEN;
    await download({ dir: join(tmp, 'out') });
    assert.ok(server.requests.length > 0);
    for (const r of server.requests) {
      assert.equal(r.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(r.headers.cookie, `m_session_id=${TOKEN}`);
    }
    process.env.MODELSCOPE_API_TOKEN = 'wrong-token-77';
    const fault = await refusal(download({ dir: join(tmp, 'out2') }));
    assert.equal(fault.kind, 'hub-access-denied');
    if (fault.kind === 'hub-access-denied')
      assert.deepEqual([fault.hubKind, fault.status, fault.tokenSource], ['modelscope', 401, 'MODELSCOPE_API_TOKEN']);
    assert.ok(!JSON.stringify(fault).includes('wrong-token-77'), 'the fault holds no token');
  });

  it('gives 401, 403 and 404 one clear line each', async () => {
    await modelscope({ token: TOKEN });
    await assert.rejects(download(), isFault('hub-access-denied', { hubKind: 'modelscope', status: 401, tokenSource: undefined }));
    await modelscope({ forbidden: true });
    await assert.rejects(download(), isFault('hub-access-denied', { hubKind: 'modelscope', status: 403 }));
    await modelscope();
    await assert.rejects(
      download({ repo: 'Qwen/NoSuchDataset' }),
      isFault('hub-not-found', { repo: 'Qwen/NoSuchDataset', revision: 'master' }),
    );
  });

  it('takes MODELSCOPE_DOMAIN as a host and adds https', async () => {
    process.env.MODELSCOPE_DOMAIN = '127.0.0.1:1';
    await assert.rejects(
      download({ retries: 0 }),
      isFault('hub-unreachable', { hubKind: 'modelscope', hub: 'https://127.0.0.1:1', isDefault: false }),
    );
  });
});

describe('the same data from either hub', () => {
  const H = { mcp: 'a'.repeat(64), search: 'b'.repeat(64) };
  const prov = (commit: string, revision: string, sha256?: Record<string, string>): Provenance => ({
    manifest: 'found',
    judge: 'j',
    history: 'full',
    datasetRepo: 'Qwen/AgentWorldBench',
    datasetCommit: commit,
    datasetRevision: revision,
    datasetSha256: sha256,
  });
  const run = (label: string, p: Provenance) => ({ label, provenance: p, domains: ['mcp', 'search'] });

  it('comparability: equal hashes under different commits and branch names are the same data; a differing hash is named', () => {
    const same = comparabilityNotes([run('hf', prov('1'.repeat(40), 'main', H)), run('ms', prov('2'.repeat(40), 'master', H))]);
    assert.deepEqual(same, []);
    const other = comparabilityNotes([
      run('hf', prov('1'.repeat(40), 'main', H)),
      run('ms', prov('2'.repeat(40), 'master', { ...H, search: 'c'.repeat(64) })),
    ]);
    assert.deepEqual(
      other.filter((n) => n.kind === 'setting-differs' && n.setting === 'dataset-commit'),
      [
        {
          kind: 'setting-differs',
          setting: 'dataset-commit',
          values: [
            { value: '1'.repeat(40), runs: ['hf'] },
            { value: '2'.repeat(40), runs: ['ms'] },
          ],
        },
      ],
    );
    // Without hashes, commits still decide, as before.
    const old = comparabilityNotes([run('a', prov('1'.repeat(40), 'main')), run('b', prov('2'.repeat(40), 'main'))]);
    assert.deepEqual(
      old.map((n) => (n.kind === 'setting-differs' ? n.setting : n.kind)),
      ['dataset-commit'],
    );
  });
});

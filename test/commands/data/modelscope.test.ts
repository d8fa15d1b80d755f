/* awb with --source modelscope, against a local ModelScope: download, infer, and merge across hubs (core's download: test/core/download/modelscope.test.ts). */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { readDatasetOrigin, type DatasetOrigin } from '../../../src/core/dataset/index.js';
import { runAwb } from '../../support/cli.js';
import { tempDirs, worldReply, type Dataset } from '../../support/dataset.js';
import { sampleRepo, startModelScopeServer, type ModelScopeServer, type ModelScopeServerOptions } from '../../support/modelscope-server.js';
import { startOpenAIServer, type FakeServer } from '../../support/openai-server.js';

const TOKEN = 'ms-secret-token-4f1c9a';
const temps = tempDirs('modelscope-cli');
let tmp: string;
let data: Dataset;
let files: Record<string, Buffer>;
const servers: ModelScopeServer[] = [];

before(async () => {
  ({ data, files } = await sampleRepo(await temps.make()));
});
after(() => temps.cleanup());
beforeEach(async () => {
  tmp = await temps.make();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function modelscope(opts: Partial<ModelScopeServerOptions> = {}): Promise<ModelScopeServer> {
  const server = await startModelScopeServer({ files, ...opts });
  servers.push(server);
  return server;
}

describe('awb with --source modelscope', () => {
  let world: FakeServer;
  before(async () => {
    world = await startOpenAIServer({ reply: worldReply });
  });
  after(() => world.close());

  it('awb download --source modelscope --dir: the files, the commit, and no token anywhere', async () => {
    const server = await modelscope({ token: TOKEN });
    const dir = join(tmp, 'out');
    const r = await runAwb(['download', '--source', 'modelscope', '--dir', dir], {
      env: { MODELSCOPE_ENDPOINT: server.url, MODELSCOPE_API_TOKEN: TOKEN, MODELSCOPE_CACHE: join(tmp, 'ms-cache') },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`Qwen/AgentWorldBench from ModelScope at master \\(commit ${server.commit}\\)`));
    assert.ok(!r.stdout.includes(TOKEN) && !r.stderr.includes(TOKEN));
    for (const name of await readdir(dir)) assert.ok(!(await readFile(join(dir, name), 'utf8')).includes(TOKEN), name);
    const bad = await runAwb(['download', '--source', 'modelscope', '--dir', join(tmp, 'o2')], {
      env: { MODELSCOPE_ENDPOINT: server.url, MODELSCOPE_API_TOKEN: 'nope', MODELSCOPE_CACHE: join(tmp, 'ms-cache') },
    });
    assert.equal(bad.code, 3);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  });

  it('awb infer --source modelscope with no --data downloads, runs and records hub, commit and hashes', async () => {
    const server = await modelscope({ token: TOKEN });
    const out = join(tmp, 'pred.jsonl');
    const r = await runAwb(
      ['infer', '--source', 'modelscope', '--model-base-url', world.url, '--model-name', 'test-model', '-o', out, '--no-progress'],
      { env: { MODELSCOPE_ENDPOINT: server.url, MODELSCOPE_API_TOKEN: TOKEN, MODELSCOPE_CACHE: join(tmp, 'ms-cache') } },
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    assert.equal(lines.length, data.lines.length);
    const manifestText = await readFile(`${out}.manifest.json`, 'utf8');
    assert.ok(!manifestText.includes(TOKEN));
    const manifest = JSON.parse(manifestText) as {
      dataset: { hub?: string; commit?: string; revision?: string; sha256?: Record<string, string> };
    };
    assert.equal(manifest.dataset.hub, 'modelscope');
    assert.equal(manifest.dataset.commit, server.commit);
    assert.equal(manifest.dataset.revision, 'master');
    assert.deepEqual(Object.keys(manifest.dataset.sha256 ?? {}).sort(), ['mcp', 'search', 'terminal']);
  });

  it('awb infer --data on a downloaded folder edited since records the hash of what it read, not the listed one', async () => {
    const server = await modelscope();
    const dir = join(tmp, 'edited');
    const env = { MODELSCOPE_ENDPOINT: server.url, MODELSCOPE_CACHE: join(tmp, 'ms-cache') };
    assert.equal((await runAwb(['download', '--source', 'modelscope', '--dir', dir], { env })).code, 0);
    const listed = Object.fromEntries((await readDatasetOrigin(dir))!.files.map((f) => [f.domain, f.sha256]));
    // One row dropped by hand: the folder's record still names the hub's file.
    const search = join(dir, 'search_test.jsonl');
    const edited = (await readFile(search, 'utf8')).split('\n').slice(1).join('\n');
    await writeFile(search, edited);
    const out = join(tmp, 'edited-pred.jsonl');
    const r = await runAwb([
      'infer',
      '--data',
      dir,
      '--model-base-url',
      world.url,
      '--model-name',
      'test-model',
      '-o',
      out,
      '--no-progress',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as { dataset: { sha256?: Record<string, string> } };
    assert.equal(manifest.dataset.sha256?.search, createHash('sha256').update(edited).digest('hex'));
    assert.notEqual(manifest.dataset.sha256?.search, listed.search);
    assert.equal(manifest.dataset.sha256?.mcp, listed.mcp, 'an untouched file keeps the listed hash');
  });
});

describe('the same data from either hub', () => {
  it('merge joins a ModelScope shard with a Hugging Face shard of the same files, and refuses other files', async () => {
    const world = await startOpenAIServer({ reply: worldReply });
    try {
      const server = await modelscope();
      const env = { MODELSCOPE_ENDPOINT: server.url, MODELSCOPE_CACHE: join(tmp, 'ms-cache') };
      const infer = (out: string, ...extra: string[]) =>
        runAwb(['infer', '--model-base-url', world.url, '--model-name', 'test-model', '-o', out, '--no-progress', ...extra], { env });
      const s1 = join(tmp, 's1.jsonl');
      const r1 = await infer(s1, '--source', 'modelscope', '--shard', '1/2');
      assert.equal(r1.code, 0, r1.stderr);
      // The same files as a Hugging Face download records them: another commit, the same SHA-256s.
      const hf = join(tmp, 'hf');
      await cp(join(tmp, 'ms-cache', 'hub', 'datasets', 'Qwen', 'AgentWorldBench'), hf, { recursive: true });
      const origin = (await readDatasetOrigin(hf))!;
      const asHf = (o: DatasetOrigin): DatasetOrigin => ({ ...o, hub: undefined, revision: 'main', commit: 'f'.repeat(40) });
      await writeFile(join(hf, '.awb-dataset.json'), JSON.stringify(asHf(origin)));
      const s2 = join(tmp, 's2.jsonl');
      const r2 = await infer(s2, '--data', hf, '--shard', '2/2');
      assert.equal(r2.code, 0, r2.stderr);
      const merged = await runAwb(['merge', join(tmp, 'merged.jsonl'), s1, s2], { env });
      assert.equal(merged.code, 0, merged.stderr);

      // Other files: one search row edited in the copy (the run records the hash of what it reads, whatever the record says).
      const search = join(hf, 'search_test.jsonl');
      await writeFile(search, (await readFile(search, 'utf8')).replace('observation', 'Observation'));
      const s3 = join(tmp, 's3.jsonl');
      assert.equal((await infer(s3, '--data', hf, '--shard', '2/2')).code, 0);
      const refused = await runAwb(['merge', join(tmp, 'merged2.jsonl'), s1, s3], { env });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /dataset commit/);
    } finally {
      await world.close();
    }
  });
});

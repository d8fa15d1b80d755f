/*
 * awb publish: a judged run as the Hub's Eval Results files, written locally, and uploaded (traces, then a pull request
 * on the model repo) to a local server speaking the Hub's commit, LFS and pull-request protocol.
 */
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { runAwb } from '../../support/cli.js';
import { errorLines, judgeReply, makeDataset, stackLines, tempDirs, worldReply } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { startWriteHub, type WriteHub } from '../../support/hub-server.js';

const temps = tempDirs('publish');
const server = useServers();
let judged: string;
let scores: { runs: { domains: Record<string, { text: string }>; overall: { macro: { text: string } } }[] };
let hub: WriteHub;
const TOKEN = 'hf_alice_write_token';

before(async () => {
  const dir = await temps.make();
  const data = await makeDataset(dir, 40, ['terminal', 'swe', 'web']);
  const world = await server({ reply: worldReply });
  const judge = await server({ reply: judgeReply, models: ['gpt-4o-mini'] });
  const predictions = join(dir, 'run', 'predictions.jsonl');
  judged = join(dir, 'run', 'judged.jsonl');
  assert.equal((await runAwb(inferArgs(world.url, data.dir, predictions, ['--label', 'my-wm']))).code, 0);
  const j = await runAwb(judgeArgs(judge.url, predictions, judged, ['--temperature', '0.2'], 'gpt-4o-mini'));
  assert.equal(j.code, 0, j.stderr);
  const s = await runAwb(['score', judged, '--format', 'json']);
  scores = JSON.parse(s.stdout) as typeof scores;
  // The judged rows go through LFS, as large files do on the Hub (above 10 MB there); the Eval Results file, a few KB,
  // stays a regular file, as it does there: the Hub takes no LFS upload for a pull request on a repo one cannot write.
  const lfsAbove = Math.floor((await stat(judged)).size / 2);
  hub = await startWriteHub({ users: { [TOKEN]: 'alice', hf_bob_token: 'bob' }, repos: ['model:org/my-wm'], lfsAbove });
});
after(async () => {
  await hub.close();
  await temps.cleanup();
});

interface Entry {
  dataset: { id: string; task_id: string; revision?: string };
  value: number;
  date?: string;
  source?: { url: string; name: string };
  notes: string;
}

const hubEnv = (extra: Record<string, string | undefined> = {}) => ({ HF_TOKEN: TOKEN, HF_ENDPOINT: hub.url, ...extra });

describe('awb publish --out', () => {
  it('refuses a run --with-published would not rank, naming why, unless --allow-unranked', async () => {
    const out = join(await temps.make(), 'hub');
    const r = await runAwb(['publish', judged, '--out', out]);
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(stackLines(r.stderr), []);
    const [line] = errorLines(r.stderr);
    assert.match(line!, /not a run `score --with-published` would rank \(.*rubrics: awb's bundled rubrics.*judge: gpt-4o-mini.*; publish it anyway.* --allow-unranked$/);
    await assert.rejects(readFile(join(out, '.eval_results', 'agentworldbench.yaml')));
  });

  it('writes the Eval Results (Overall and each domain, as awb score computes them) and the benchmark eval.yaml', async () => {
    const out = join(await temps.make(), 'hub');
    const r = await runAwb(['publish', judged, '--out', out, '--allow-unranked']);
    assert.equal(r.code, 0, r.stderr);
    const entries = parse(await readFile(join(out, '.eval_results', 'agentworldbench.yaml'), 'utf8')) as Entry[];
    const run = scores.runs[0]!;
    assert.deepEqual(
      entries.map((e) => [e.dataset.id, e.dataset.task_id, e.value]),
      [
        ['Qwen/AgentWorldBench', 'overall', Number(run.overall.macro.text)],
        ...['terminal', 'swe', 'web'].map((d) => ['Qwen/AgentWorldBench', d, Number(run.domains[d]!.text)]),
      ],
    );
    for (const e of entries) {
      assert.ok(e.value >= 0 && e.value <= 100);
      assert.match(e.date!, /^\d{4}-\d{2}-\d{2}$/);
      assert.match(e.notes, /judge gpt-4o-mini \(temperature 0\.2, max tokens 32768\)/);
      assert.match(e.notes, /awb's bundled rubrics/);
      assert.match(e.notes, /history: full, teacher-forced \(horizon: one turn\)/);
      // Why it is not ranked is said where the figure is shown.
      assert.match(e.notes, /not comparable with the published leaderboard: .*data: 40 of the 2170 rows/);
      // Data from a local folder: no commit to name.
      assert.equal(e.dataset.revision, undefined);
      assert.equal(e.source, undefined);
    }
    const benchmark = parse(await readFile(join(out, 'eval.yaml'), 'utf8')) as { name: string; tasks: { id: string; config: string; split: string }[] };
    assert.equal(benchmark.name, 'AgentWorldBench');
    assert.deepEqual(
      benchmark.tasks.map((t) => t.id),
      ['overall', 'mcp', 'search', 'terminal', 'swe', 'android', 'web', 'os'],
    );
    assert.ok(benchmark.tasks.every((t) => t.split === 'test'));
  });

  it('says where to publish, and refuses a malformed repo id', async () => {
    const r = await runAwb(['publish', judged]);
    assert.equal(r.code, 2);
    assert.match(errorLines(r.stderr)[0]!, /--out DIR .* --repo OWNER\/MODEL/);
    const bad = await runAwb(['publish', judged, '--repo', 'no-owner']);
    assert.equal(bad.code, 2);
    assert.match(errorLines(bad.stderr)[0]!, /--repo must be OWNER\/NAME/);
  });
});

describe('awb publish --traces --repo', () => {
  it('uploads the traces to a dataset repo it makes, then opens a pull request whose results point at them', async () => {
    const r = await runAwb(['publish', judged, '--traces', 'alice/awb-traces', '--repo', 'org/my-wm', '--allow-unranked'], { env: hubEnv() });
    assert.equal(r.code, 0, r.stderr);
    const traces = hub.repos.get('dataset:alice/awb-traces');
    assert.ok(traces, 'the traces dataset was made');
    assert.deepEqual([...traces.files.keys()].sort(), [
      'my-wm/judged.jsonl',
      'my-wm/judged.jsonl.manifest.json',
      'my-wm/predictions.jsonl.manifest.json',
      'my-wm/report.html',
      'my-wm/scores.json',
    ]);
    assert.deepEqual(traces.files.get('my-wm/judged.jsonl'), await readFile(judged));
    assert.match(traces.files.get('my-wm/report.html')!.toString('utf8'), /^<!doctype html>/i);
    // The judged rows went through LFS to storage on another origin, which never saw the token.
    assert.ok(hub.storageRequests.some((q) => q.method === 'PUT'));
    assert.ok(hub.storageRequests.every((q) => q.headers.authorization === undefined));
    assert.ok(hub.requests.every((q) => q.headers.authorization === `Bearer ${TOKEN}`));

    const model = hub.repos.get('model:org/my-wm')!;
    assert.equal(model.files.size, 0, 'main of the model repo is untouched');
    const [pr] = model.prs;
    assert.ok(pr, 'a pull request was opened');
    assert.equal(pr.author, 'alice');
    assert.equal(r.stdout.trim(), `${hub.url}/org/my-wm/discussions/${pr.num}`);
    const entries = parse(pr.files.get('.eval_results/agentworldbench.yaml')!.toString('utf8')) as Entry[];
    const commit = traces.commits.at(-1)!.oid;
    assert.equal(entries.length, 4);
    for (const e of entries) assert.deepEqual(e.source, { url: `${hub.url}/datasets/alice/awb-traces/tree/${commit}/my-wm`, name: 'AgentWorldBench judged rows' });
    assert.match(pr.description, /\| overall \| \d+\.\d\d \|/);
  });

  it('reads the token from HF_TOKEN only, and says the Hub’s refusals in one line', async () => {
    const none = await runAwb(['publish', judged, '--repo', 'org/my-wm', '--allow-unranked'], {
      env: { HF_ENDPOINT: hub.url, HUGGING_FACE_HUB_TOKEN: TOKEN, HF_TOKEN: undefined },
    });
    assert.equal(none.code, 2, none.stderr);
    assert.match(errorLines(none.stderr)[0]!, /needs a token with write access in HF_TOKEN/);
    const malformed = await runAwb(['publish', judged, '--repo', 'org/my-wm', '--allow-unranked'], { env: hubEnv({ HF_TOKEN: 'sk-not-hf' }) });
    assert.equal(malformed.code, 2);
    assert.match(errorLines(malformed.stderr)[0]!, /HF_TOKEN is not a Hugging Face token/);
    const before = hub.requests.length;
    const rejected = await runAwb(['publish', judged, '--repo', 'org/my-wm', '--allow-unranked'], { env: hubEnv({ HF_TOKEN: 'hf_revoked' }) });
    assert.equal(rejected.code, 3, rejected.stderr);
    assert.match(errorLines(rejected.stderr)[0]!, /opening the pull request of org\/my-wm was refused \(HTTP 401\): Invalid credentials in Authorization header/);
    assert.ok(hub.requests.length > before);
    const missing = await runAwb(['publish', judged, '--repo', 'org/no-such-model', '--allow-unranked'], { env: hubEnv() });
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(errorLines(missing.stderr)[0]!, /HTTP 404\): Repository not found/);
    // bob may not make a dataset under alice's name.
    const foreign = await runAwb(['publish', judged, '--traces', 'alice/bobs-traces', '--out', await temps.make(), '--allow-unranked'], {
      env: hubEnv({ HF_TOKEN: 'hf_bob_token' }),
    });
    assert.equal(foreign.code, 3, foreign.stderr);
    assert.match(errorLines(foreign.stderr)[0]!, /making the traces dataset of alice\/bobs-traces was refused \(HTTP 403\): You don't have the rights/);
    assert.equal(hub.repos.has('dataset:alice/bobs-traces'), false);
    for (const r of [none, malformed, rejected, missing, foreign]) assert.deepEqual(stackLines(r.stderr), []);
  });
});

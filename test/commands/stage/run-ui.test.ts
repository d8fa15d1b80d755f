/*
 * Small things that cost a user minutes (issue 17, part 4): a path per model
 * and --label, printed commands that work when pasted, a run that stops when
 * no endpoint can be reached, the top failure reasons, `awb models`, the
 * progress figures and the SIGINT message on a line of its own.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DEFAULT_DEAD, afterConnectionFailure, isDeadConnectionCode, poolUnreachable } from '../../../src/core/endpoints/health.js';
import {
  BAR_FORMAT,
  FailureReasons,
  formatDuration,
  installInterrupts,
  progressFigures,
  progressLine,
} from '../../../src/commands/stage/run-ui.js';
import { invocation } from '../../../src/commands/shared/invocation.js';
import { pathSegment } from '../../../src/core/stage/index.js';
import { AWB_BIN, runAwb, startAwb } from '../../support/cli.js';
import { captured } from '../../support/terminal.js';
import { judgedRow, writeJudged } from '../../fixtures/judged/rows.js';
import {
  closedPort,
  errorLines,
  makeDataset,
  readRowsOf,
  stackLines,
  tempDirs,
  waitForLines,
  worldReply,
  judgeReply,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('small');
after(() => temps.cleanup());
const server = useServers();

describe('no endpoint can be reached (pure policy)', () => {
  const streak = (n: number, since: number) => {
    let s;
    for (let i = 0; i < n; i++) s = afterConnectionFailure(s, since, 'ECONNREFUSED');
    return s;
  };
  it('stops only when every endpoint has failed to connect repeatedly, for long enough or with a request out of retries', () => {
    const p = DEFAULT_DEAD;
    assert.equal(poolUnreachable([streak(3, 0)], 1000, p, false), false, 'too recent');
    assert.equal(poolUnreachable([streak(3, 0)], p.ms, p, false), true, 'failing long enough');
    assert.equal(poolUnreachable([streak(3, 0)], 1000, p, true), true, 'a request spent its retries');
    assert.equal(poolUnreachable([streak(2, 0)], 60_000, p, true), false, 'too few failures');
    assert.equal(poolUnreachable([streak(5, 0), undefined], 60_000, p, true), false, 'another endpoint answers');
    assert.equal(poolUnreachable([streak(5, 0), streak(3, 55_000)], 60_000, p, false), false, 'the second only started failing');
    assert.equal(poolUnreachable([], 60_000, p, true), false);
  });
  it('counts refused and unreachable connections, not resets or slow answers', () => {
    for (const c of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']) assert.ok(isDeadConnectionCode(c), c);
    for (const c of ['ECONNRESET', 'ETIMEDOUT', undefined]) assert.ok(!isDeadConnectionCode(c), String(c));
    const s = afterConnectionFailure(afterConnectionFailure(undefined, 5, 'ECONNREFUSED'), 9, 'EHOSTUNREACH');
    assert.deepEqual(s, { failures: 2, since: 5, cause: 'EHOSTUNREACH' });
  });
});

describe('progress figures', () => {
  it('count the whole run after a resume and give the ETA with units', () => {
    const p = { total: 224, resumed: 22, done: 10, failed: 1, elapsedSeconds: 10 };
    assert.deepEqual(progressFigures(p), { value: 32, total: 224, percent: '14.3', rate: '1.00', eta: '3m12s' });
    assert.equal(progressLine('infer', p), 'infer: 32/224 (14.3%), 1.00 rows/s, ETA 3m12s, 1 failed');
    assert.equal(progressFigures({ ...p, done: 0 }).eta, '?');
    assert.equal(formatDuration(7500), '2h05m');
    assert.equal(formatDuration(45), '45s');
  });
  it("the bar uses its own ETA token, not cli-progress's unitless {eta}", () => {
    assert.doesNotMatch(BAR_FORMAT('infer'), /\{eta\}/);
    assert.match(BAR_FORMAT('infer'), /ETA \{left\}/);
  });
});

describe('SIGINT message', () => {
  it('comes after the progress bar has ended its line', async () => {
    const order: string[] = [];
    const r = await captured(async (written) => {
      const interrupts = installInterrupts('infer', 60, () => order.push(`bar closed, ${written.stderr().length} characters written`));
      try {
        process.emit('SIGINT', 'SIGINT');
      } finally {
        interrupts.dispose();
      }
      return interrupts;
    });
    assert.deepEqual(order, ['bar closed, 0 characters written']);
    assert.match(r.stderr, /^infer: SIGINT: finishing the requests in flight/);
    assert.ok(r.value.stop.aborted);
  });
});

describe('printed commands start awb the way it was started', () => {
  const files = new Map<string, string>();
  const realpath = (p: string) => files.get(p) ?? (p.startsWith('/real/') ? p : undefined);
  it('npx, an awb on PATH that is this script, else node and the script', () => {
    const npx = '/home/u/.npm/_npx/1a2b/node_modules/agentworldbench/bin/awb.js';
    assert.equal(invocation({ script: npx, cwd: '/home/u', env: { PATH: '/usr/bin' }, realpath }), 'npx agentworldbench');
    files.set('/usr/local/bin/awb', '/real/lib/node_modules/agentworldbench/bin/awb.js');
    const global = '/real/lib/node_modules/agentworldbench/bin/awb.js';
    assert.equal(invocation({ script: global, cwd: '/tmp', env: { PATH: '/usr/bin:/usr/local/bin' }, realpath }), 'awb');
    // An awb on PATH that is another install is not this one.
    assert.equal(
      invocation({ script: '/real/src/awb/bin/awb.js', cwd: '/real/src/awb', env: { PATH: '/usr/local/bin' }, realpath }),
      'node bin/awb.js',
    );
    assert.equal(invocation({ script: '/real/my tools/bin/awb.js', cwd: '/tmp', env: {}, realpath }), "node '/real/my tools/bin/awb.js'");
  });
  it('the hints a command prints name awb as it was started: the built CLI run as node bin/awb.js', async () => {
    const dir = await temps.make();
    // No awb on PATH, so the only way to start this one again is node and the script, relative to the folder.
    const run = (args: string[]) => runAwb(args, { cwd: dirname(dirname(AWB_BIN)), env: { PATH: dirname(process.execPath) } });
    const bare = /`awb |\(awb /;
    const merge = await run(['merge', 'shard1.jsonl']);
    assert.equal(merge.code, 2, merge.stderr);
    assert.match(merge.stderr, /\(node bin\/awb\.js merge -o merged\.jsonl shard1\.jsonl \.\.\.\)/);
    const pred = join(dir, 'pred.jsonl');
    const { task, id, turn_idx, total_turns, prompt, response, gen } = judgedRow();
    await writeFile(pred, `${JSON.stringify({ task, id, turn_idx, total_turns, prompt, response, gen })}\n`);
    const score = await run(['score', pred]);
    assert.equal(score.code, 2, score.stderr);
    assert.match(score.stderr, /judge it first with `node bin\/awb\.js judge --predictions /);
    const judge = await run([
      'judge',
      '--predictions',
      join(dir, 'none.jsonl'),
      '--judge-base-url',
      'http://127.0.0.1:9/v1',
      '--judge-model',
      'm',
    ]);
    assert.equal(judge.code, 2, judge.stderr);
    assert.match(judge.stderr, /run `node bin\/awb\.js infer` first/);
    const base = writeJudged(dir, 'base.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2 })]);
    const cand = writeJudged(dir, 'cand.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2, bare: true })]);
    const compare = await run(['compare', base, cand, '--fail-below', '1', '--rows', '1']);
    assert.equal(compare.code, 5, compare.stdout + compare.stderr);
    assert.match(compare.stdout, /`node bin\/awb\.js infer \.\.\. --retry-failed` .*`node bin\/awb\.js judge \.\.\. --retry-failed`/);
    assert.match(compare.stdout, /prediction beside ground truth: node bin\/awb\.js rows \S*cand\.jsonl mcp\/1\/1$/m);
    for (const r of [merge, score, judge, compare]) assert.doesNotMatch(r.stdout + r.stderr, bare);
  });
  it('names a run folder safely', () => {
    assert.equal(pathSegment('Qwen/Qwen3-8B'), 'Qwen--Qwen3-8B');
    assert.equal(pathSegment('../x y'), '_--x_y');
    assert.equal(pathSegment(''), 'run');
  });
});

describe('failure reasons', () => {
  it('counts each error, most frequent first', () => {
    const r = new FailureReasons();
    for (const error of ['a', 'b', 'b', 'c', 'b', 'c']) r.event({ type: 'row', domain: 'mcp', ok: false, error });
    r.event({ type: 'row', domain: 'mcp', ok: true });
    assert.deepEqual(r.top(2), [
      { reason: 'b', count: 3 },
      { reason: 'c', count: 2 },
    ]);
    assert.equal(r.kinds, 3);
  });
});

describe('a second model, labels, and the guard (end to end)', () => {
  it('gives each model its own default folder, names runs by --label, and advises -o or --label', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6);
    const s = await server({ reply: worldReply, models: ['org/model-a', 'model-b', 'judge'] });
    const common = ['--model-base-url', s.url, '--data', ds.dir, '--no-progress'];
    const a = await runAwb(['infer', ...common, '--model-name', 'org/model-a'], { cwd: dir });
    assert.equal(a.code, 0, a.stderr);
    const b = await runAwb(['infer', ...common, '--model-name', 'model-b', '--label', 'b tuned'], { cwd: dir });
    assert.equal(b.code, 0, b.stderr);
    assert.equal((await readRowsOf(join(dir, 'results/org--model-a/predictions.jsonl'))).length, 6);
    assert.equal((await readRowsOf(join(dir, 'results/b_tuned/predictions.jsonl'))).length, 6);
    const manifest = JSON.parse(await readFile(join(dir, 'results/b_tuned/predictions.jsonl.manifest.json'), 'utf8'));
    assert.equal(manifest.label, 'b tuned');
    // The printed next step works when pasted: it names this build and the file.
    assert.match(b.stderr, /judge it with: node \S+ judge --predictions results\/b_tuned\/predictions\.jsonl /);

    // From here every file is named whole: these run in the test's process (a folder of their own needs a process).
    const j = await server({ reply: judgeReply, models: ['judge'] });
    for (const run of ['org--model-a', 'b_tuned']) {
      const r = await runAwb(
        judgeArgs(j.url, join(dir, 'results', run, 'predictions.jsonl'), join(dir, 'results', run, 'judged.jsonl')).map((x) =>
          x === 'test-model' ? 'judge' : x,
        ),
      );
      assert.equal(r.code, 0, r.stderr);
    }
    const scored = await runAwb([
      'score',
      ...['org--model-a', 'b_tuned'].map((run) => join(dir, 'results', run, 'judged.jsonl')),
      '--no-ci',
      '-f',
      'csv',
    ]);
    assert.equal(scored.code, 0, scored.stderr);
    assert.match(scored.stdout, /^b tuned,/m, 'the label names the run');
    assert.match(scored.stdout, /^org\/model-a,/m, 'without a label, the model does');

    // Same file, other model: the guard suggests a file of the run's own, never --force to mix.
    const clash = await runAwb(['infer', ...common, '--model-name', 'model-b', '-o', join(dir, 'results/org--model-a/predictions.jsonl')]);
    assert.equal(clash.code, 2, clash.stderr);
    assert.match(clash.stderr, /other settings .*-o FILE, or --label NAME/);
    assert.doesNotMatch(clash.stderr, /--force to mix/);
  });
});

describe('an endpoint that dies mid-run (end to end)', () => {
  it('stops the run at once with exit 3 naming the cause, keeping what was done', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const s = await server({ reply: worldReply, latencyMs: 20 });
    const out = join(dir, 'pred.jsonl');
    const run = startAwb(inferArgs(s.url, ds.dir, out, ['-c', '2', '--max-retries', '3']));
    await waitForLines(out, 5, run.exited);
    await s.close();
    const { code, stderr } = await run.exited;
    assert.equal(code, 3, stderr);
    assert.deepEqual(errorLines(stderr).length, 1, stderr);
    assert.match(errorLines(stderr)[0]!, /world model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 keeps failing to connect \(ECONNREFUSED/);
    assert.deepEqual(stackLines(stderr), []);
    const rows = await readRowsOf(out);
    const failed = rows.filter((r) => r.error_message !== undefined || r.failed === true);
    assert.ok(rows.length < 60 && failed.length <= 2, `${rows.length} rows written, ${failed.length} failed`);
  });

  it('an unreachable hub exits 3 from infer too', async () => {
    const dir = await temps.make();
    const hub = `http://127.0.0.1:${await closedPort()}`;
    const s = await server({ reply: worldReply });
    const r = await runAwb(
      ['infer', '--model-base-url', s.url, '--model-name', 'test-model', '--no-progress', '-o', join(dir, 'p.jsonl')],
      {
        env: { HF_ENDPOINT: hub, HF_HOME: join(dir, 'hf') },
      },
    );
    assert.equal(r.code, 3, r.stderr);
    assert.match(errorLines(r.stderr)[0]!, /cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    assert.equal(s.stats.requests, 0);
  });

  it('infer checks the endpoint before it downloads the dataset: a wrong model does not wait for the download', async () => {
    const dir = await temps.make();
    // A hub that would fail the download: the endpoint's refusal must come first, without the hub being asked.
    const hub = `http://127.0.0.1:${await closedPort()}`;
    const s = await server({ models: ['served-model'], reply: worldReply });
    const r = await runAwb(
      ['infer', '--model-base-url', s.url, '--model-name', 'test-model', '--no-progress', '-o', join(dir, 'p.jsonl')],
      {
        env: { HF_ENDPOINT: hub, HF_HOME: join(dir, 'hf') },
      },
    );
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(errorLines(r.stderr).length, 1, r.stderr);
    assert.match(errorLines(r.stderr)[0]!, /does not serve model "test-model".*it lists: served-model/);
    assert.equal(s.stats.modelListRequests, 1);
  });
});

describe('failure reasons in the summary (end to end)', () => {
  it('lists the reasons rows failed, with counts', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 8);
    const s = await server({ reply: worldReply, faults: (_req, n) => (n % 2 ? { kind: '500', message: 'model overloaded' } : undefined) });
    const r = await runAwb(inferArgs(s.url, ds.dir, join(dir, 'p.jsonl'), ['--max-retries', '0', '-c', '1']));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /top failure reasons:\n\s+4 × .*500/);
    // Rows are left to redo: the next stage's command would send the user on with half the rows.
    assert.doesNotMatch(r.stderr, /judge it with/);
    assert.match(r.stderr, /run the same command again to retry only those:\n {2}\S[^\n]*\n$/);
  });

  it('after a resume, counts the failed rows and their reasons over the whole output, not only this session', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6, ['mcp']);
    let n = 0;
    // The first two replies are empty (final failures, kept by a resume), the rest are answered.
    const s = await server({ reply: (req, ctx) => (++n <= 2 ? '' : worldReply(req, ctx)) });
    const args = inferArgs(s.url, ds.dir, join(dir, 'p.jsonl'), ['-c', '1']);
    const first = await runAwb(args);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /top failure reasons:\n\s+2 × empty reply/);
    // The same command again: the two failures are kept, not asked again, and still counted.
    const again = await runAwb(args);
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, /^all\s+6\s+4\s+2\s+0\s/m, again.stderr);
    assert.match(again.stderr, /top failure reasons:\n\s+2 × empty reply/);
    assert.match(again.stderr, /infer: 2 rows ended failed/);
  });
});

describe('awb models', () => {
  it('lists what an endpoint serves; unreachable exits 3; unknown options are named', async () => {
    const s = await server({ models: ['alpha', 'org/beta'], apiKey: 'sk-models-key-123456' });
    const ok = await runAwb(['models', '--base-url', s.url, '--api-key', 'sk-models-key-123456']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'alpha\norg/beta\n');
    const bad = await runAwb(['models', '--base-url', s.url, '--api-key', 'sk-wrong-key-99999']);
    assert.equal(bad.code, 3, bad.stderr);
    assert.match(bad.stderr, /rejected the API key/);
    assert.doesNotMatch(bad.stderr + bad.stdout, /sk-wrong-key/);
    const gone = await runAwb(['models', '--base-url', `http://127.0.0.1:${await closedPort()}/v1`]);
    assert.equal(gone.code, 3, gone.stderr);
    assert.match(gone.stderr, /^awb: cannot reach endpoint http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)/);
    const creds = await runAwb(['models', '--base-url', 'http://u:secretpass123@127.0.0.1:9/v1']);
    assert.equal(creds.code, 2);
    assert.doesNotMatch(creds.stderr, /secretpass123/);
    // infer and judge name their own option for --model; models has none.
    for (const [cmd, said] of [
      ['infer', /infer takes --model-name, not --model$/m],
      ['judge', /judge takes --judge-model, not --model$/m],
      ['models', /unknown option '--model'/],
    ] as const) {
      const r = await runAwb([cmd, '--model', 'x']);
      assert.equal(r.code, 2, cmd);
      assert.match(r.stderr, said, cmd);
      assert.doesNotMatch(r.stderr, /required/, cmd);
    }
  });
});

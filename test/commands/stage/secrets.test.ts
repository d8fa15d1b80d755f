/*
 * API keys never leave the process: not in outputs, manifests, stdout or
 * stderr, whether given as an option or in the environment, on success, on a
 * rejected key, when a server echoes the key in an error, and in the resume
 * command printed after Ctrl-C or failed rows.
 */
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb, startAwb, type AwbResult } from '../../support/cli.js';
import {
  judgeReply,
  makeDataset,
  parseResumeCommand,
  rowMarker,
  readRowsOf,
  tempDirs,
  waitForLines,
  worldReply,
  writePredictions,
} from '../../support/dataset.js';
import { lastUserText } from '../../support/openai-server.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const SECRET = 'sk-test-SECRET123456789';
/** The key's distinctive middle: a masked echo would still be caught by this. */
const FRAGMENT = 'SECRET123456789';

const temps = tempDirs('secrets');
after(() => temps.cleanup());
const server = useServers();

function assertClean(text: string, where: string): void {
  assert.ok(!text.includes(SECRET), `the key appears in ${where}`);
  assert.ok(!text.includes(FRAGMENT), `part of the key appears in ${where}`);
}

/** Every file awb left in `dir` (outputs, manifests, anything else), and what it printed. */
async function assertNoKey(dir: string, results: Array<Pick<AwbResult, 'stdout' | 'stderr'>>): Promise<void> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  assert.ok(
    files.some((f) => f.name.endsWith('.manifest.json')),
    'no manifest was written',
  );
  for (const f of files) assertClean(await readFile(join(f.parentPath, f.name), 'utf8'), join(f.parentPath, f.name));
  for (const [i, r] of results.entries()) {
    assertClean(r.stdout, `stdout of run ${i + 1}`);
    assertClean(r.stderr, `stderr of run ${i + 1}`);
  }
}

/** Interrupts a run with Ctrl-C once a few rows are written. */
async function interrupted(args: string[], out: string, env: Record<string, string> = {}): Promise<AwbResult> {
  const run = startAwb(args, { env });
  await waitForLines(out, 3, run.exited);
  run.child.kill('SIGINT');
  return run.exited;
}

describe('API keys stay secret', { concurrency: 2 }, () => {
  it('given as options: infer and judge, finished runs', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const world = await server({ apiKey: SECRET, reply: worldReply });
    const judge = await server({ apiKey: SECRET, reply: judgeReply });
    const preds = join(dir, 'pred.jsonl');
    const r1 = await runAwb(inferArgs(world.url, ds.dir, preds, ['--model-api-key', SECRET]));
    assert.equal(r1.code, 0, r1.stderr);
    const r2 = await runAwb(judgeArgs(judge.url, preds, join(dir, 'judged.jsonl'), ['--judge-api-key', SECRET]));
    assert.equal(r2.code, 0, r2.stderr);
    await assertNoKey(dir, [r1, r2]);
  });

  it('given in the environment: infer and judge, finished runs', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const world = await server({ apiKey: SECRET, reply: worldReply });
    const judge = await server({ apiKey: SECRET, reply: judgeReply });
    const preds = join(dir, 'pred.jsonl');
    const r1 = await runAwb(inferArgs(world.url, ds.dir, preds), { env: { AWB_MODEL_API_KEY: SECRET } });
    assert.equal(r1.code, 0, r1.stderr);
    const r2 = await runAwb(judgeArgs(judge.url, preds, join(dir, 'judged.jsonl')), { env: { AWB_JUDGE_API_KEY: SECRET } });
    assert.equal(r2.code, 0, r2.stderr);
    await assertNoKey(dir, [r1, r2]);
  });

  it('a rejected key, at the preflight and on the first request', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const s = await server({ apiKey: 'sk-the-right-one-000000', reply: worldReply });
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const runs = [
      await runAwb(inferArgs(s.url, ds.dir, join(dir, 'a.jsonl'), ['--model-api-key', SECRET])),
      await runAwb(inferArgs(s.url, ds.dir, join(dir, 'b.jsonl'), ['--no-preflight']), { env: { AWB_MODEL_API_KEY: SECRET } }),
      await runAwb(judgeArgs(s.url, preds, join(dir, 'c.jsonl'), ['--judge-api-key', SECRET, '--no-preflight'])),
    ];
    for (const r of runs) {
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /rejected the API key/);
    }
    await assertNoKey(dir, runs);
  });

  it('a server that echoes the key in its errors: the failed rows and the retry hint hide it', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const bad = ds.rows[3]!;
    const marker = rowMarker(bad);
    const s = await server({
      apiKey: SECRET,
      reply: worldReply,
      faults: (req) =>
        lastUserText(req).includes(marker)
          ? { kind: '500', message: `upstream refused key ${SECRET} (key ${SECRET.slice(0, 8)}…${SECRET.slice(-8)})` }
          : undefined,
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--model-api-key', SECRET, '--max-retries', '0']));
    assert.equal(r.code, 1, r.stderr);
    const failed = (await readRowsOf(out)).filter((row) => row.error !== undefined);
    assert.equal(failed.length, 1);
    assert.match(String(failed[0]!.error), /upstream refused key \*\*\*/);
    assert.match(r.stderr, /retry only those:\n\s+node \S+ infer .*--model-api-key "\$AWB_MODEL_API_KEY"/);
    await assertNoKey(dir, [r]);
  });

  it('interrupted with Ctrl-C: the resume command hides the key', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 30);
    const world = await server({ apiKey: SECRET, reply: worldReply, latencyMs: 100 });
    const judge = await server({ apiKey: SECRET, reply: judgeReply, latencyMs: 100 });
    const preds = join(dir, 'pred.jsonl');
    const r1 = await interrupted(inferArgs(world.url, ds.dir, preds, [`--model-api-key=${SECRET}`, '-c', '2', '--no-progress']), preds);
    assert.equal(r1.code, 130, r1.stderr);
    assert.match(r1.stderr, /Resume with:\n\s+node \S+ infer .*--model-api-key="\$AWB_MODEL_API_KEY"/);
    // The command works as printed once the variable it names holds the key.
    const resumed = await runAwb(parseResumeCommand(r1.stderr, { AWB_MODEL_API_KEY: SECRET }));
    assert.equal(resumed.code, 0, resumed.stderr);
    const r2 = await interrupted(
      inferArgs(world.url, ds.dir, join(dir, 'env.jsonl'), ['-c', '2', '--no-progress']),
      join(dir, 'env.jsonl'),
      { AWB_MODEL_API_KEY: SECRET },
    );
    assert.equal(r2.code, 130, r2.stderr);
    await writePredictions(ds, preds);
    const judged = join(dir, 'judged.jsonl');
    const r3 = await interrupted(judgeArgs(judge.url, preds, judged, ['--judge-api-key', SECRET, '-c', '2']), judged);
    assert.equal(r3.code, 130, r3.stderr);
    assert.match(
      r3.stderr,
      /Resume with:\n\s+node \S+ judge .*--judge-api-key "\$AWB_JUDGE_API_KEY".*\n {2}\(the key is not repeated here: set AWB_JUDGE_API_KEY to it first\)\n/,
    );
    await assertNoKey(dir, [r1, resumed, r2, r3]);
  });

  it('a dummy key such as "x" leaves the other arguments of the retry command alone', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    // Rows fail on a server that answers 500 (one that cannot be reached stops the run instead).
    const s = await server({ faults: () => '500' });
    const url = s.url;
    const args = inferArgs(url, ds.dir, join(dir, 'x', 'pred.jsonl'), [
      '--model-api-key',
      'x',
      '--max-retries',
      '0',
      '--no-preflight',
      '--extra-body',
      '{"x": 1}',
    ]);
    const r = await runAwb(args);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(parseResumeCommand(r.stderr, { AWB_MODEL_API_KEY: 'x' }), args);
  });
});

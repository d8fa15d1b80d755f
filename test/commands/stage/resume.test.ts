/*
 * Interruptions lose nothing: Ctrl-C lets requests in flight finish and
 * prints the command to resume; a hard kill at any point leaves a file that
 * the same command completes into exactly what an uninterrupted run gives; a
 * cut last line is dropped and redone; a resume with other settings is
 * refused unless --force.
 */
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runAwb, startAwb } from '../../support/cli.js';
import {
  dropLastLines,
  errorLines,
  judgeReply,
  keyOf,
  makeDataset,
  parseResumeCommand,
  readJsonlFile,
  readRowsOf,
  rowMarker,
  stackLines,
  tempDirs,
  waitFor,
  waitForLines,
  worldReply,
  writePredictions,
  type Dataset,
} from '../../support/dataset.js';
import { lastUserText, type ReplyFn } from '../../support/openai-server.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('resume');
after(() => temps.cleanup());
const server = useServers();

/** Every line whole and valid JSON, every dataset row exactly once. */
async function assertComplete(out: string, ds: Dataset): Promise<Record<string, unknown>[]> {
  const { lines, terminated } = await readJsonlFile(out);
  assert.ok(terminated, 'the output ends with a cut line');
  const rows = lines.map((l, i) => {
    try {
      return JSON.parse(l) as Record<string, unknown>;
    } catch {
      assert.fail(`${out}:${i + 1} is not valid JSON`);
    }
  });
  const keys = rows.map(keyOf);
  assert.equal(new Set(keys).size, keys.length, 'a row appears twice');
  assert.deepEqual(new Set(keys), new Set(ds.rows.map((r) => keyOf(r))));
  return rows;
}

const genSet = (rows: Record<string, unknown>[]) => new Set(rows.map((r) => `${keyOf(r)}|${String(r.gen)}`));
const scoreSet = (rows: Record<string, unknown>[]) => new Set(rows.map((r) => `${keyOf(r)}|${String(r.total_score)}|${String(r.failed)}`));

/**
 * A reply that the test lets through: `allow(n)` answers n more requests and holds the ones after (until
 * `release()`; those of a killed run stay held), so a run stops where the test says whatever the machine's speed.
 */
function gated(reply: ReplyFn) {
  let allowed = Infinity;
  const held: (() => void)[] = [];
  return {
    reply: (async (req, ctx) => {
      if (allowed > 0) allowed--;
      else await new Promise<void>((r) => held.push(r));
      return reply(req, ctx);
    }) as ReplyFn,
    allow(n: number) {
      allowed = n;
    },
    release() {
      allowed = Infinity;
      for (const r of held.splice(0)) r();
    },
  };
}

/** Starts awb with `lines` more rows answered, kills it with SIGKILL once they are written, and waits for it to end. */
async function killAt(gate: ReturnType<typeof gated>, args: string[], out: string, lines: number) {
  gate.allow(lines - (await readJsonlFile(out).catch(() => ({ lines: [] }))).lines.length);
  const run = startAwb(args);
  const seen = await waitForLines(out, lines, run.exited);
  run.child.kill('SIGKILL');
  return { ...(await run.exited), seen };
}

describe('Ctrl-C, and SIGTERM (a scheduler ending the job) alike', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    it(`${signal} lets requests in flight finish, exits 130 with a resume command that completes the rest`, async () => {
      const dir = await temps.make();
      const ds = await makeDataset(dir, 40);
      // Eight rows answered, then four requests held in flight until the signal has been taken.
      const gate = gated(worldReply);
      gate.allow(8);
      const s = await server({ reply: gate.reply });
      const out = join(dir, 'pred.jsonl');
      const run = startAwb(inferArgs(s.url, ds.dir, out, ['-c', '4']));
      await waitForLines(out, 8, run.exited);
      await waitFor(() => s.stats.inFlight === 4, run.exited, '4 requests in flight');
      run.child.kill(signal);
      await waitFor(() => /finishing the requests in flight/.test(run.stderr()), run.exited, `the ${signal} to be taken`);
      gate.release();
      const r = await run.exited;
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stderr, /Resume with:/);
      assert.deepEqual(stackLines(r.stderr), []);

      const { lines, terminated } = await readJsonlFile(out);
      assert.ok(terminated, 'a partial line was left');
      for (const l of lines) JSON.parse(l);
      assert.equal(lines.length, 12, 'the rows answered before the signal and the four in flight, and no other');
      // Requests in flight were answered and written, none abandoned.
      assert.equal(s.stats.clientClosed, 0);
      assert.equal(s.stats.successes, lines.length);
      const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as { complete: boolean; counts: { done: number } };
      assert.equal(manifest.complete, false);
      assert.equal(manifest.counts.done, lines.length);

      const again = await runAwb(parseResumeCommand(r.stderr));
      assert.equal(again.code, 0, again.stderr);
      await assertComplete(out, ds);
      assert.deepEqual(s.repeatedSuccesses(), []);
    });
});

describe('a second Ctrl-C, or the end of --grace', () => {
  for (const second of [true, false])
    it(`${second ? 'a second Ctrl-C cancels the requests in flight at once' : 'past --grace the requests in flight are cancelled'}: no half row written, the rows redone on resume`, async () => {
      const dir = await temps.make();
      const ds = await makeDataset(dir, 12);
      const s = await server({ reply: worldReply, latencyMs: 30_000 });
      const out = join(dir, 'pred.jsonl');
      const run = startAwb(inferArgs(s.url, ds.dir, out, ['-c', '4', ...(second ? [] : ['--grace', '1'])]));
      const until = async (what: string, ok: () => boolean) => {
        for (const deadline = Date.now() + 120_000; !ok(); await new Promise((r) => setTimeout(r, 10))) {
          if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}:\n${run.stderr()}`);
        }
      };
      await until('4 requests in flight', () => s.stats.inFlight === 4);
      run.child.kill('SIGINT');
      await until('the first Ctrl-C to be seen', () => /finishing the requests in flight/.test(run.stderr()));
      if (second) run.child.kill('SIGINT');
      const { code, stderr } = await run.exited;
      assert.equal(code, 130, stderr);
      if (second) assert.match(stderr, /cancelling the requests in flight/);
      assert.equal((await readJsonlFile(out)).lines.length, 0);
      await until('the server to see the requests go', () => s.stats.clientClosed === 4);

      s.setOptions({ latencyMs: 0 });
      const again = await runAwb(parseResumeCommand(stderr));
      assert.equal(again.code, 0, again.stderr);
      await assertComplete(out, ds);
    });
});

describe('kill -9', () => {
  it('at 10%, 50% and 90% of the rows, then the same command: the result equals an uninterrupted run', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 80);
    const gate = gated(worldReply);
    const s = await server({ reply: gate.reply, latencyMs: (_r, n) => (n * 13) % 31 });
    const clean = join(dir, 'clean.jsonl');
    const r0 = await runAwb(inferArgs(s.url, ds.dir, clean, ['-c', '4']));
    assert.equal(r0.code, 0, r0.stderr);
    const cleanRows = await assertComplete(clean, ds);

    const out = join(dir, 'pred.jsonl');
    const args = inferArgs(s.url, ds.dir, out, ['-c', '4']);
    for (const fraction of [0.1, 0.5, 0.9]) {
      const k = await killAt(gate, args, out, Math.round(fraction * ds.rows.length));
      assert.equal(k.signal, 'SIGKILL', `awb ended on its own at ${fraction * 100}%: ${k.stderr}`);
    }
    gate.allow(Infinity);
    const last = await runAwb(args);
    assert.equal(last.code, 0, last.stderr);
    const rows = await assertComplete(out, ds);
    assert.deepEqual(genSet(rows), genSet(cleanRows));
    const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as {
      complete: boolean;
      counts: { done: number; total: number };
    };
    assert.equal(manifest.complete, true);
    assert.equal(manifest.counts.done, ds.rows.length);
  });

  it('judge at 50%, then the same command: the result equals an uninterrupted run', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const gate = gated(judgeReply);
    const s = await server({ reply: gate.reply, latencyMs: (_r, n) => (n * 13) % 31 });
    const clean = join(dir, 'clean-judged.jsonl');
    const r0 = await runAwb(judgeArgs(s.url, preds, clean, ['-c', '4']));
    assert.equal(r0.code, 0, r0.stderr);
    const cleanRows = await assertComplete(clean, ds);

    const out = join(dir, 'judged.jsonl');
    const args = judgeArgs(s.url, preds, out, ['-c', '4']);
    const k = await killAt(gate, args, out, 30);
    assert.equal(k.signal, 'SIGKILL', k.stderr);
    gate.allow(Infinity);
    const last = await runAwb(args);
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual(scoreSet(await assertComplete(out, ds)), scoreSet(cleanRows));
  });
});

describe('a line cut short', () => {
  it('is dropped on resume and its row redone, once', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 20);
    const s = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    const args = inferArgs(s.url, ds.dir, out, ['-c', '4']);
    assert.equal((await runAwb(args)).code, 0);
    const before = await readRowsOf(out);

    const { lines } = await readJsonlFile(out);
    const lastLine = lines.at(-1)!;
    const cutRow = JSON.parse(lastLine) as Record<string, unknown>;
    const kept = lines
      .slice(0, -1)
      .map((l) => `${l}\n`)
      .join('');
    await writeFile(out, kept + lastLine.slice(0, Math.floor(lastLine.length / 2)));

    const logBefore = s.log.length;
    const r = await runAwb(args);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /cut short/);
    const fresh = s.log.slice(logBefore);
    assert.equal(fresh.length, 1, 'more than the cut row was sent again');
    const cutRequest = ds.rows.find((row) => keyOf(row) === keyOf(cutRow))!;
    assert.ok(fresh[0]!.request && lastUserText(fresh[0]!.request).includes(cutRequest.current_prompt));
    const after = await assertComplete(out, ds);
    assert.deepEqual(genSet(after), genSet(before));
    // The kept lines are untouched, byte for byte.
    assert.ok((await readFile(out, 'utf8')).startsWith(kept));
  });
});

describe('resuming with other settings', { concurrency: 2 }, () => {
  async function assertRefused(args: string[], out: string, pattern: RegExp): Promise<void> {
    const before = await readFile(out);
    const manifestBefore = await readFile(`${out}.manifest.json`);
    const r = await runAwb(args);
    assert.notEqual(r.code, 0, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /other settings/);
    assert.match(lines[0]!, pattern);
    assert.match(lines[0]!, /-o FILE, or --label NAME/);
    assert.doesNotMatch(lines[0]!, /--force to mix/);
    assert.deepEqual(stackLines(r.stderr), []);
    assert.ok((await readFile(out)).equals(before), 'the refused run changed the output');
    assert.ok((await readFile(`${out}.manifest.json`)).equals(manifestBefore), 'the refused run changed the manifest');
  }

  it('infer: another model, temperature or history mode is refused; --force resumes', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const s = await server({ reply: worldReply, models: ['test-model', 'other-model'] });
    const out = join(dir, 'pred.jsonl');
    const base = inferArgs(s.url, ds.dir, out, ['-c', '4']);
    assert.equal((await runAwb(base)).code, 0);
    await dropLastLines(out, 4);
    const requests = s.stats.requests;

    await assertRefused(
      inferArgs(s.url, ds.dir, out, ['-c', '4']).map((a) => (a === 'test-model' ? 'other-model' : a)),
      out,
      /world_model: was .*test-model.*, now .*other-model/,
    );
    await assertRefused([...base, '--temperature', '0.2'], out, /sampling: was .*0\.6.*, now .*0\.2/);
    await assertRefused([...base, '--no-history'], out, /history: was "full", now "none"/);
    assert.equal(s.stats.requests, requests, 'a refused run sent requests');

    const forced = await runAwb([...base, '--temperature', '0.2', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(s.stats.requests, requests + 4);
    await assertComplete(out, ds);
  });

  it('judge: another judge model or rubric folder is refused; --force resumes', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const s = await server({ reply: judgeReply, models: ['test-model', 'other-model'] });
    const out = join(dir, 'judged.jsonl');
    const base = judgeArgs(s.url, preds, out, ['-c', '4']);
    assert.equal((await runAwb(base)).code, 0);
    await dropLastLines(out, 4);
    const requests = s.stats.requests;

    const rubrics = join(dir, 'rubrics');
    await cp(fileURLToPath(new URL('../../../rubrics/', import.meta.url)), rubrics, { recursive: true });
    await writeFile(join(rubrics, 'web.md'), `${await readFile(join(rubrics, 'web.md'), 'utf8')}\nBe strict.\n`);

    await assertRefused(
      base.map((a) => (a === 'test-model' ? 'other-model' : a)),
      out,
      /judge: was .*test-model.*, now .*other-model/,
    );
    await assertRefused([...base, '--rubrics', rubrics], out, /rubrics: was /);
    assert.equal(s.stats.requests, requests, 'a refused run sent requests');

    const forced = await runAwb([...base, '--rubrics', rubrics, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(s.stats.requests, requests + 4);
    await assertComplete(out, ds);
  });
});

describe('judging before infer is finished', () => {
  it('a row the world model failed is judged once infer has redone it', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 12);
    const bad = ds.rows[5]!;
    let broken = true;
    const world = await server({
      reply: worldReply,
      faults: (req) => (broken && lastUserText(req).includes(rowMarker(bad)) ? '500' : undefined),
    });
    const judge = await server({ reply: judgeReply });
    const preds = join(dir, 'pred.jsonl');
    const judged = join(dir, 'judged.jsonl');
    const infer = inferArgs(world.url, ds.dir, preds, ['--max-retries', '0']);
    assert.equal((await runAwb(infer)).code, 1);

    // Judging now cannot score the failed row; the run must not call it finished.
    const j1 = await runAwb(judgeArgs(judge.url, preds, judged));
    assert.notEqual(j1.code, 0, j1.stderr);
    assert.equal(judge.stats.successes, ds.rows.length - 1);

    broken = false;
    assert.equal((await runAwb(infer)).code, 0);
    const j2 = await runAwb(judgeArgs(judge.url, preds, judged));
    assert.equal(j2.code, 0, j2.stderr);
    assert.equal(judge.stats.successes, ds.rows.length, 'the redone row was not judged');
    const rows = await assertComplete(judged, ds);
    for (const row of rows) assert.equal(row.failed, 0, `${keyOf(row)}: ${String(row.error_message)}`);
    assert.deepEqual(judge.repeatedSuccesses(), []);
  });
});

describe('judging other predictions into a judged file', () => {
  const observed = (r: { response: string[]; turn_idx: number }) =>
    `<predicted_observation>${r.response[r.turn_idx - 1]}</predicted_observation>`;

  it("is refused, --force or not, rather than keeping the other predictions' grades; the same predictions resume", async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const s = await server({ reply: judgeReply });
    const predsA = join(dir, 'predA.jsonl');
    const predsB = join(dir, 'predB.jsonl');
    await writePredictions(ds, predsA, observed);
    // Another model's predictions, or a re-run of infer: the same rows, one of them predicted otherwise.
    await writePredictions(ds, predsB, (r, i) => (i === 9 ? '<predicted_observation>something else</predicted_observation>' : observed(r)));
    const out = join(dir, 'judged.jsonl');
    assert.equal((await runAwb(judgeArgs(s.url, predsA, out, ['-c', '4']))).code, 0);
    const { lines } = await readJsonlFile(out);
    const other = ds.rows[9]!;
    const at = `${out}:${lines.findIndex((l) => keyOf(JSON.parse(l) as Record<string, unknown>) === keyOf(other)) + 1}`;
    const where = `${other.task.replace('agentworld/', '')} id ${other.id} turn ${other.turn_idx}`;
    const before = await readFile(out);
    const manifestBefore = await readFile(`${out}.manifest.json`);
    const requests = s.stats.requests;

    for (const extra of [[], ['--force']]) {
      const r = await runAwb(judgeArgs(s.url, predsB, out, ['-c', '4', ...extra]));
      assert.equal(r.code, 2, r.stderr);
      const errors = errorLines(r.stderr);
      assert.equal(errors.length, 1, r.stderr);
      assert.equal(
        errors[0],
        `awb: ${out} holds judgements of other predictions than ${predsB} (1 row whose gen differs, the first at ${at} (${where})); give this run a file of its own (-o FILE, or --label NAME), or move ${out} away to judge these predictions into it afresh`,
      );
      assert.deepEqual(stackLines(r.stderr), []);
    }
    assert.equal(s.stats.requests, requests, 'a refused run sent requests');
    assert.ok((await readFile(out)).equals(before), 'the refused run changed the output');
    assert.ok((await readFile(`${out}.manifest.json`)).equals(manifestBefore), 'the refused run changed the manifest');

    // The same predictions still resume, keeping every row judged.
    await writeFile(
      out,
      lines
        .slice(0, -4)
        .map((l) => `${l}\n`)
        .join(''),
    );
    const again = await runAwb(judgeArgs(s.url, predsA, out, ['-c', '4']));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(s.stats.requests, requests + 4);
    await assertComplete(out, ds);
  });

  it('judges a row that had no prediction once infer --retry-failed has given it one', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 8);
    const s = await server({ reply: judgeReply });
    const preds = join(dir, 'pred.jsonl');
    // The model's reply was empty: a final failure of infer, and of judge (No model generation).
    await writePredictions(ds, preds, (r, i) => (i === 3 ? '' : observed(r)));
    const out = join(dir, 'judged.jsonl');
    // The row without a generation ends failed: exit 1.
    assert.equal((await runAwb(judgeArgs(s.url, preds, out))).code, 1);
    assert.equal(s.stats.requests, ds.rows.length - 1);
    assert.equal((await readRowsOf(out)).filter((row) => row.failed === 1).length, 1);

    await writePredictions(ds, preds, observed);
    const r = await runAwb(judgeArgs(s.url, preds, out));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.stats.requests, ds.rows.length, 'only the filled-in row is judged');
    for (const row of await assertComplete(out, ds)) assert.equal(row.failed, 0, `${keyOf(row)}: ${String(row.error_message)}`);
  });
});

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { runAwb } from '../../support/cli.js';
import {
  dropLastLines,
  errorLines,
  judgeReply,
  makeDataset,
  readRowsOf,
  stackLines,
  tempDirs,
  worldReply,
  writePredictions,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { messageText, type ChatRequest, type ReplyFn } from '../../support/openai-server.js';

/* --dry-run: nothing sent, nothing written, and the prompt tokens within 25% of what the endpoint counts. */

const serve = useServers();
const dirs = tempDirs('dry-run');
after(() => dirs.cleanup());

/** The server's own count: every message through o200k, as an OpenAI endpoint counts, with its ChatML overhead. */
function counted(reply: ReplyFn): ReplyFn {
  return async (req: ChatRequest, ctx) => {
    const r = await reply(req, ctx);
    // Each message costs its text plus the template's role and separators (<|im_start|>role\n … <|im_end|>\n: 4 tokens).
    const prompt = req.messages.reduce((n, m) => n + countTokens(messageText(m)) + 4, 0) + 3;
    return { content: typeof r === 'string' ? r : r.content, usage: { prompt_tokens: prompt, completion_tokens: 10 } };
  };
}

const promptTokens = (rows: Record<string, unknown>[], field: string) =>
  rows.reduce((n, r) => n + ((r[field] as { prompt_tokens?: number } | undefined)?.prompt_tokens ?? 0), 0);

test('infer and judge --dry-run send nothing, write nothing, and estimate prompt tokens within 25%', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 14);
  const world = await serve({ reply: counted(worldReply) });
  const judge = await serve({ reply: counted(judgeReply) });
  const pred = join(dir, 'pred.jsonl');
  const before = await readdir(dir);

  const dry = await runAwb(
    inferArgs(world.url, data.dir, pred, [
      '--dry-run',
      '--format',
      'json',
      '--max-tokens',
      '100',
      '--price-input',
      '2',
      '--price-output',
      '8',
    ]),
  );
  assert.equal(dry.code, 0, dry.stderr);
  const doc = JSON.parse(dry.stdout) as Record<string, number>;
  assert.equal(doc.requests, 14);
  assert.equal(doc.completion_budget_tokens, 1400);
  // Unrounded, as score's costs: a few thousand prompt tokens cost well under a cent and must not read as 0.
  assert.ok(Math.abs(doc.prompt_cost_usd! - (doc.prompt_tokens! * 2) / 1e6) < 1e-12, `${doc.prompt_cost_usd}`);
  assert.ok(doc.prompt_cost_usd! > 0 && doc.prompt_cost_usd! < 0.01);
  assert.ok(Math.abs(doc.cost_usd! - (doc.prompt_tokens! * 2 + 1400 * 8) / 1e6) < 1e-12, `${doc.cost_usd}`);
  assert.equal(world.stats.requests + world.stats.modelListRequests, 0, 'nothing sent, not even the models check');
  assert.deepEqual(await readdir(dir), before, 'nothing written');

  const real = await runAwb(inferArgs(world.url, data.dir, pred, ['--max-tokens', '100']));
  assert.equal(real.code, 0, real.stderr);
  const actual = promptTokens(await readRowsOf(pred), 'usage');
  assert.ok(Math.abs(doc.prompt_tokens! - actual) / actual < 0.25, `estimate ${doc.prompt_tokens} vs counted ${actual}`);

  const judged = join(dir, 'judged.jsonl');
  const jdry = await runAwb(judgeArgs(judge.url, pred, judged, ['--dry-run', '--price-input', '1']));
  assert.equal(jdry.code, 0, jdry.stderr);
  assert.equal(jdry.stdout, '');
  const estimate = Number(/prompt tokens \(estimate, o200k\): ([\d,]+)/.exec(jdry.stderr)![1]!.replaceAll(',', ''));
  assert.match(jdry.stderr, /judge dry run: 14 requests for 14 rows/);
  assert.match(jdry.stderr, /cost: \$\d+\.\d\d at most/);
  assert.equal(judge.stats.requests + judge.stats.modelListRequests, 0);
  assert.ok(!(await readdir(dir)).includes('judged.jsonl'));
  const jreal = await runAwb(judgeArgs(judge.url, pred, judged));
  assert.equal(jreal.code, 0, jreal.stderr);
  const jactual = promptTokens(await readRowsOf(judged), 'judge_usage');
  assert.ok(Math.abs(estimate - jactual) / jactual < 0.25, `judge estimate ${estimate} vs counted ${jactual}`);
});

test('judge --dry-run counts both orders of the choice modes and each repeat, prompt tokens within 25%', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 10);
  const pred = join(dir, 'pred.jsonl');
  await writePredictions(data, pred);
  const ref = join(dir, 'ref.jsonl');
  await writePredictions(data, ref, (r) => `<predicted_observation>another take on turn ${r.turn_idx}</predicted_observation>`);
  const judge = await serve({ reply: counted(() => 'The first.\n\n\\boxed{A}') });
  const sent = () => judge.stats.requests + judge.stats.modelListRequests;
  const modes = { turing: ['--mode', 'turing'], pairwise: ['--mode', 'pairwise', '--reference', ref] };
  const choiceUsage = (rows: Record<string, unknown>[], field: string) =>
    rows.reduce(
      (n, r) =>
        n +
        (r[field] as { orders: Array<{ judge_usage?: { prompt_tokens?: number } }> }).orders.reduce(
          (m, o) => m + (o.judge_usage?.prompt_tokens ?? 0),
          0,
        ),
      0,
    );
  for (const [mode, args] of Object.entries(modes)) {
    const out = join(dir, `${mode}.jsonl`);
    const before = sent();
    const dry = await runAwb(judgeArgs(judge.url, pred, out, ['--dry-run', '--format', 'json', ...args]));
    assert.equal(dry.code, 0, dry.stderr);
    const doc = JSON.parse(dry.stdout) as Record<string, number>;
    assert.equal(doc.rows, 10);
    assert.equal(doc.requests, 20, `${mode}: both orders of every row`);
    assert.equal(sent(), before, 'nothing sent');
    const real = await runAwb(judgeArgs(judge.url, pred, out, args));
    assert.equal(real.code, 0, real.stderr);
    const actual = choiceUsage(await readRowsOf(out), mode);
    assert.ok(Math.abs(doc.prompt_tokens! - actual) / actual < 0.25, `${mode}: estimate ${doc.prompt_tokens} vs counted ${actual}`);
  }
  const repeat = await runAwb(judgeArgs(judge.url, pred, join(dir, 'repeat.jsonl'), ['--dry-run', '--format', 'json', '--repeat', '3']));
  assert.equal(repeat.code, 0, repeat.stderr);
  assert.equal((JSON.parse(repeat.stdout) as { requests: number }).requests, 30, 'each of the K judgements');
});

test('--dry-run names bad rows as the run meets them: stop ends at the first (exit 2, its file, line and field), skip lists each', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 7, ['web']);
  const file = data.files.get('web')!;
  const lines = data.lines.slice();
  // Line 3: a turn_idx given as text; line 5: a row repeated word for word (the run refuses it too); line 6: not JSON.
  lines[2] = lines[2]!.replace(/"turn_idx":(\d+)/, '"turn_idx":"$1"');
  lines[4] = lines[0]!;
  lines[5] = 'not json';
  await writeFile(file, lines.map((l) => `${l}\n`).join(''));
  const world = await serve({ reply: worldReply });
  const pred = join(dir, 'pred.jsonl');
  const before = await readdir(dir);

  const stop = await runAwb(inferArgs(world.url, data.dir, pred, ['--dry-run']));
  assert.equal(stop.code, 2, stop.stderr);
  assert.deepEqual(errorLines(stop.stderr), [
    `awb: ${file}:3: turn_idx: Invalid input: expected number, received string (a run would stop at this row; fix it, or skip such rows with --on-bad-row skip)`,
  ]);
  assert.deepEqual(stackLines(stop.stderr), []);
  assert.match(stop.stderr, /infer dry run: 4 requests for 4 rows/);
  assert.match(stop.stderr, /3 rows fail their checks/);

  const skip = await runAwb(inferArgs(world.url, data.dir, pred, ['--dry-run', '--format', 'json', '--on-bad-row', 'skip']));
  assert.equal(skip.code, 0, skip.stderr);
  assert.equal((JSON.parse(skip.stdout) as { bad_rows: number }).bad_rows, 3);
  const named = skip.stderr.split('\n').filter((l) => l.startsWith('infer: would skip bad row: '));
  assert.deepEqual(
    named.map((l) => /jsonl:(\d+): /.exec(l)?.[1]),
    ['3', '5', '6'],
  );
  assert.match(
    named[1]!,
    new RegExp(`the same row as ${file.replaceAll('.', '\\.')}:1 \\(same task, id, turn_idx, system_str, action and ground truth\\)$`),
  );
  assert.equal(world.stats.requests + world.stats.modelListRequests, 0, 'nothing sent');
  assert.deepEqual(await readdir(dir), before, 'nothing written');
});

test('--dry-run expects the completion tokens of typical replies (the ground truth), then of the rows the output holds', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 6);
  const world = await serve({ reply: counted(worldReply) });
  const pred = join(dir, 'pred.jsonl');
  const dryArgs = ['--dry-run', '--format', 'json', '--max-tokens', '100', '--price-input', '2', '--price-output', '8'];
  const first = JSON.parse((await runAwb(inferArgs(world.url, data.dir, pred, dryArgs))).stdout) as Record<string, number | string>;
  // Each row's ground truth through o200k, framed as a reply (7 tokens), capped at --max-tokens.
  const typical = data.rows.reduce((n, r) => n + Math.min(countTokens(r.response[r.turn_idx - 1] ?? '') + 7, 100), 0);
  assert.equal(first.expected_from, 'typical');
  assert.equal(first.expected_completion_tokens, typical);
  assert.ok(Math.abs(Number(first.expected_cost_usd) - (Number(first.prompt_tokens) * 2 + typical * 8) / 1e6) < 1e-12);

  // Every reply the server gives is 10 completion tokens: a dry run into that output expects 10 a row, not the budget's 100.
  assert.equal((await runAwb(inferArgs(world.url, data.dir, pred, ['--max-tokens', '100']))).code, 0);
  // Complete, it is said so: a run would send nothing.
  const complete = await runAwb(inferArgs(world.url, data.dir, pred, ['--dry-run', '--max-tokens', '100']));
  assert.equal(complete.code, 0, complete.stderr);
  assert.match(complete.stderr, /^infer dry run: .*pred\.jsonl already holds a result of all 6 rows: a run would send nothing\n$/);
  assert.equal((JSON.parse((await runAwb(inferArgs(world.url, data.dir, pred, dryArgs))).stdout) as { rows: number }).rows, 0);
  // A run would refuse it under other settings: so does the dry run, in the same words.
  const other = ['--temperature', '0.2', '--max-tokens', '100'];
  const refused = await runAwb(inferArgs(world.url, data.dir, pred, [...other, '--dry-run']));
  const real = await runAwb(inferArgs(world.url, data.dir, pred, other));
  assert.equal(refused.code, 2, refused.stderr);
  assert.deepEqual(errorLines(refused.stderr), errorLines(real.stderr));
  assert.equal(world.stats.requests, 6);
  // Half of it left: only the rows left are counted.
  await dropLastLines(pred, 3);
  const again = await runAwb(
    inferArgs(
      world.url,
      data.dir,
      pred,
      dryArgs.filter((a) => a !== 'json' && a !== '--format'),
    ),
  );
  assert.equal(again.code, 0, again.stderr);
  assert.match(
    again.stderr,
    /^infer dry run: \d+ requests for 3 rows .*; the 3 rows .*pred\.jsonl already holds a result of are not sent again\n/,
  );
  assert.match(again.stderr, /completion budget \(max tokens x requests\): 300\n/);
  assert.match(again.stderr, /completion tokens expected: 30 \(the mean per row of the 3 rows already in .*pred\.jsonl, by domain\)/);
  assert.match(again.stderr, /cost: \$0\.\d\d at most .*\ncost expected: \$0\.\d\d \(prompt \$0\.\d\d, completion \$0\.00\)/);
});

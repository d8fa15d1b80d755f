import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { inferStage } from '../../../src/core/infer/infer.js';
import { rolloutPlan, stepMessages } from '../../../src/core/infer/rollout.js';
import { stepsPathFor } from '../../../src/core/infer/step-store.js';
import type { DatasetRow } from '../../../src/core/schemas/dataset-row.js';

/* A free-running infer's batch rounds (--batch --horizon): a row's next step, and a batch answer kept where its job finds it. */

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const row: DatasetRow = {
  task: 'terminal',
  id: 7,
  prompt: ['A1', 'A2', 'A3'],
  response: ['O1', 'O2', 'O3'],
  current_prompt: 'A3',
  system_str: 'SYS',
  turn_idx: 3,
  total_turns: 3,
};

const reply = (text: string) => ({
  completion: {
    id: 'c',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  } as ChatCompletion,
  endpoint: 'http://batch/v1',
  latencyMs: 0,
  batch: true as const,
});

async function begun(horizon: 2 | 'all') {
  const dir = await mkdtemp(join(tmpdir(), 'awb-rounds-'));
  dirs.push(dir);
  const output = join(dir, 'p.jsonl');
  const stage = inferStage({ describe: () => 'failed' }, { temperature: 0 }, 'full', {}, { horizon });
  const end = await stage.begin!(output, { horizon }, false);
  return { stage, rounds: stage.rounds!, output, end };
}

test("a row's next step is its first not kept, its messages built from the steps kept before it, as the job builds them", async () => {
  const { rounds, output, end } = await begun(2);
  const plan = rolloutPlan(row, 2);
  assert.equal(rounds.steps(row), 3);
  const first = await rounds.next(row, 'k');
  assert.deepEqual(first && { key: first.key, turn: first.turn, by: first.by }, { key: plan.steps[0]!.key, turn: 1, by: 'k' });
  assert.deepEqual(first!.request.messages, stepMessages(row, plan, [], 0));
  assert.equal(first!.request.temperature, 0);

  await rounds.keep(first!, reply('G1'));
  // The same answer kept again (a round collected again after a crash): one line.
  await rounds.keep(first!, reply('G1 again'));
  const second = await rounds.next(row, 'k');
  assert.equal(second!.turn, 2);
  assert.deepEqual(second!.request.messages, stepMessages(row, plan, ['G1'], 1));

  await rounds.keep(second!, reply('G2'));
  const last = await rounds.next(row, 'k');
  assert.equal(last!.turn, 3);
  assert.deepEqual(last!.request.messages, stepMessages(row, plan, ['G1', 'G2'], 2));
  await rounds.keep(last!, reply('final'));
  assert.equal(await rounds.next(row, 'k'), undefined, 'every step kept: nothing left for a round');
  await end();

  const lines = (await readFile(stepsPathFor(output), 'utf8')).trim().split('\n').slice(1);
  assert.equal(lines.length, 3);
  const kept = lines.map((l) => JSON.parse(l) as { turn: number; by: string; fields: Record<string, unknown> });
  assert.deepEqual(
    kept.map((k) => [k.turn, k.fields.gen]),
    [
      [1, 'G1'],
      [2, 'G2'],
      [3, 'final'],
    ],
  );
  // Priced as the Batch API's: the row's fields carry its batch usage.
  assert.deepEqual(kept[2]!.fields.batch_usage, kept[2]!.fields.usage);
});

test("with all, a later turn's row finds the steps an earlier row's rounds kept and goes on from there", async () => {
  const { rounds, end } = await begun('all');
  const earlier: DatasetRow = { ...row, prompt: ['A1', 'A2'], response: ['O1', 'O2'], current_prompt: 'A2', turn_idx: 2 };
  const a = await rounds.next(earlier, 'row-2');
  const b = await rounds.next(row, 'row-3');
  assert.equal(a!.key, b!.key, 'the first step is shared');
  await rounds.keep(a!, reply('G1'));
  const a2 = await rounds.next(earlier, 'row-2');
  const b2 = await rounds.next(row, 'row-3');
  assert.equal(a2!.key, b2!.key, "the earlier row's own turn is the later row's second step");
  await rounds.keep(a2!, reply('G2'));
  assert.equal(await rounds.next(earlier, 'row-2'), undefined);
  assert.equal((await rounds.next(row, 'row-3'))!.turn, 3);
  await end();
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../../src/core/endpoints/index.js';
import { judgeMessages, worldModelMessages } from '../../../src/core/infer/messages.js';
import { currentAction, groundTruth, readRow } from '../../../src/core/rows/row.js';
import { datasetRowSchema, type DatasetRow } from '../../../src/core/schemas/dataset-row.js';

const row = (over: Partial<DatasetRow> = {}): DatasetRow => ({
  task: 'terminal',
  id: 7,
  prompt: ['A1', 'A2', 'A3', 'A4'],
  response: ['O1', 'O2', 'O3', 'O4'],
  current_prompt: 'A3',
  system_str: 'SYS',
  turn_idx: 3,
  total_turns: 4,
  ...over,
});

/** A row as the stage reads it: from the bytes of its line. */
function read(r: DatasetRow) {
  const got = readRow(Buffer.from(JSON.stringify(r)), datasetRowSchema, { file: 'x.jsonl', lineNo: 1, terminated: true });
  assert.ok(got.ok);
  return got.row;
}

/** The messages as the endpoint receives them: through JSON, as the client sends them. */
const sent = (messages: ChatMessage[]) => JSON.parse(JSON.stringify(messages)) as { role: string; content: string }[];

const worldModel = (r: DatasetRow, history: 'full' | 'none') => sent(worldModelMessages(read(r), history));

const judge = (r: DatasetRow, pred: string, truth: string, rubric: string) => sent(judgeMessages(read(r), pred, truth, rubric));

test('full history: system, then each earlier turn as a user/assistant pair, then the current action', async () => {
  assert.deepEqual(await worldModel(row(), 'full'), [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'A1' },
    { role: 'assistant', content: 'O1' },
    { role: 'user', content: 'A2' },
    { role: 'assistant', content: 'O2' },
    { role: 'user', content: 'A3' },
  ]);
});

test('later turns in the lists are never shown: the ground truth and beyond stay hidden', async () => {
  const text = JSON.stringify(await worldModel(row(), 'full'));
  assert.ok(!text.includes('O3') && !text.includes('O4') && !text.includes('A4'));
});

test('no history: system and current action only (the protocol before the official fix)', async () => {
  assert.deepEqual(await worldModel(row(), 'none'), [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'A3' },
  ]);
});

test('first turn has no history; an empty system prompt sends no system message', async () => {
  assert.deepEqual(await worldModel(row({ turn_idx: 1, current_prompt: 'A1', system_str: '' }), 'full'), [{ role: 'user', content: 'A1' }]);
});

test('an empty current_prompt falls back to the prompt list entry of the turn', async () => {
  const r = read(row({ current_prompt: '' }));
  assert.equal(currentAction(r), 'A3');
  assert.equal(groundTruth(r), 'O3');
  assert.deepEqual((await worldModel(row({ current_prompt: '' }), 'none')).at(-1), { role: 'user', content: 'A3' });
});

test('texts keep every character: escapes, quotes, U+2028, astral and lone surrogates, CJK', async () => {
  const odd = 'a "quoted" \\ back\nslash\t\u2028\u2029 \u0001 \ud83d\ude00 \ud800 中文 </script>';
  const r = row({ system_str: odd, prompt: [odd, 'A2', 'A3'], response: [`${odd}!`, 'O2', 'O3'] });
  const messages = await worldModel(r, 'full');
  assert.equal(messages[0]!.content, odd);
  assert.equal(messages[1]!.content, odd);
  assert.equal(messages[2]!.content, `${odd}!`);
  assert.ok((await judge(r, odd, odd, odd))[1]!.content.includes(`${odd}\n${odd}!`));
});

test('judge messages: rubric as system; history, action, prediction and ground truth in the user message', async () => {
  const [system, user] = await judge(row(), 'PRED', 'TRUTH', 'RUBRIC');
  assert.deepEqual(system, { role: 'system', content: 'RUBRIC' });
  const text = user!.content;
  const order = ['A1', 'O1', 'A2', 'O2', 'A3', 'PRED', 'TRUTH'].map((s) => text.indexOf(s));
  assert.ok(
    order.every((i) => i >= 0),
    text,
  );
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
  );
  assert.ok(!text.includes('O3'));
});

test('judge messages: first turn has no history section', async () => {
  const [, user] = await judge(row({ turn_idx: 1, current_prompt: 'A1' }), 'P', 'T', 'R');
  assert.ok(!user!.content.includes('Earlier turns'));
});

test('observations containing code fences cannot close the fence around them', async () => {
  const pred = 'before\n```\nnot the end\n````\nafter';
  const [, user] = await judge(row(), pred, 'T', 'R');
  const text = user!.content;
  assert.ok(text.includes('`````\nbefore'), text);
  assert.ok(text.includes('after\n`````'), text);
});

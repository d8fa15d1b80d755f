import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentAction, groundTruth, judgeMessages, worldModelMessages } from '../src/core/messages.js';
import type { DatasetRow } from '../src/core/schemas/dataset-row.js';

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

test('full history: system, then each earlier turn as a user/assistant pair, then the current action', () => {
  assert.deepEqual(worldModelMessages(row(), 'full'), [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'A1' },
    { role: 'assistant', content: 'O1' },
    { role: 'user', content: 'A2' },
    { role: 'assistant', content: 'O2' },
    { role: 'user', content: 'A3' },
  ]);
});

test('later turns in the lists are never shown: the ground truth and beyond stay hidden', () => {
  const text = JSON.stringify(worldModelMessages(row(), 'full'));
  assert.ok(!text.includes('O3') && !text.includes('O4') && !text.includes('A4'));
});

test('no history: system and current action only (the protocol before the official fix)', () => {
  assert.deepEqual(worldModelMessages(row(), 'none'), [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'A3' },
  ]);
});

test('first turn has no history; an empty system prompt sends no system message', () => {
  assert.deepEqual(worldModelMessages(row({ turn_idx: 1, current_prompt: 'A1', system_str: '' }), 'full'), [{ role: 'user', content: 'A1' }]);
});

test('an empty current_prompt falls back to the prompt list entry of the turn', () => {
  const r = row({ current_prompt: '' });
  assert.equal(currentAction(r), 'A3');
  assert.equal(groundTruth(r), 'O3');
  assert.deepEqual(worldModelMessages(r, 'none').at(-1), { role: 'user', content: 'A3' });
});

test('judge messages: rubric as system; history, action, prediction and ground truth in the user message', () => {
  const [system, user] = judgeMessages(row(), 'PRED', 'TRUTH', 'RUBRIC');
  assert.deepEqual(system, { role: 'system', content: 'RUBRIC' });
  const text = String(user!.content);
  const order = ['A1', 'O1', 'A2', 'O2', 'A3', 'PRED', 'TRUTH'].map((s) => text.indexOf(s));
  assert.ok(order.every((i) => i >= 0), text);
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.ok(!text.includes('O3'));
});

test('judge messages: first turn has no history section', () => {
  const [, user] = judgeMessages(row({ turn_idx: 1, current_prompt: 'A1' }), 'P', 'T', 'R');
  assert.ok(!String(user!.content).includes('Earlier turns'));
});

test('observations containing code fences cannot close the fence around them', () => {
  const pred = 'before\n```\nnot the end\n````\nafter';
  const [, user] = judgeMessages(row(), pred, 'T', 'R');
  const text = String(user!.content);
  assert.ok(text.includes('`````\nbefore'), text);
  assert.ok(text.includes('after\n`````'), text);
});

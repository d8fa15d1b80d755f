import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChatMessage } from '../../../src/core/endpoints/index.js';
import { worldModelMessages } from '../../../src/core/infer/messages.js';
import { anchorTurn, rolloutPlan, stepCount, stepMessages, type Horizon } from '../../../src/core/infer/rollout.js';
import type { DatasetRow } from '../../../src/core/schemas/dataset-row.js';

const row = (turn: number, over: Partial<DatasetRow> = {}): DatasetRow => ({
  task: 'terminal',
  id: 7,
  prompt: ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'].slice(0, turn),
  response: ['O1', 'O2', 'O3', 'O4', 'O5', 'O6'].slice(0, turn),
  current_prompt: `A${turn}`,
  system_str: 'SYS',
  turn_idx: turn,
  total_turns: 6,
  ...over,
});

const sent = (messages: ChatMessage[]) => JSON.parse(JSON.stringify(messages)) as { role: string; content: string }[];
const texts = (messages: ChatMessage[]) => sent(messages).map((m) => `${m.role[0]}:${m.content}`);

test('the anchor: max(1, t − H); all: turn 1; H = 0: the turn itself', () => {
  assert.equal(anchorTurn(6, 2), 4);
  assert.equal(anchorTurn(3, 4), 1);
  assert.equal(anchorTurn(6, 'all'), 1);
  assert.equal(anchorTurn(6, 0), 6);
});

test('a plan generates turns max(1, t−H)…t−1, then predicts turn t; H+1 steps at most', () => {
  const plan = rolloutPlan(row(6), 2);
  assert.deepEqual(
    plan.steps.map((s) => [s.turn, s.final]),
    [
      [4, false],
      [5, false],
      [6, true],
    ],
  );
  assert.equal(plan.from, 4);
  assert.equal(stepCount(row(6), 2), 3);
  assert.equal(stepCount(row(6), 'all'), 6);
  assert.equal(stepCount(row(2), 4), 2);
  assert.equal(stepCount(row(1), 'all'), 1);
  assert.equal(rolloutPlan(row(1), 'all').steps.length, 1);
});

test('each step extends the previous one: the real turns before the anchor, then generated observations, then the next real action', () => {
  const r = row(5);
  const plan = rolloutPlan(r, 2);
  const generated = ['G3', 'G4'];
  const steps = plan.steps.map((_, n) => texts(stepMessages(r, plan, generated.slice(0, n), n)));
  assert.deepEqual(steps[0], ['s:SYS', 'u:A1', 'a:O1', 'u:A2', 'a:O2', 'u:A3']);
  assert.deepEqual(steps[1], [...steps[0]!, 'a:G3', 'u:A4']);
  assert.deepEqual(steps[2], [...steps[1]!, 'a:G4', 'u:A5']);
});

test('H = 0 is the teacher-forced request, and so is a first turn at any horizon', () => {
  for (const [r, h] of [
    [row(4), 0],
    [row(1), 3],
    [row(1), 'all'],
  ] as [DatasetRow, Horizon][]) {
    const plan = rolloutPlan(r, h);
    assert.equal(plan.steps.length, 1);
    assert.deepEqual(sent(stepMessages(r, plan, [], 0)), sent(worldModelMessages(r, 'full')));
  }
});

test('the final step ends on current_prompt; a generated turn on its prompt entry', () => {
  const r = row(3, { current_prompt: 'CURRENT' });
  const plan = rolloutPlan(r, 'all');
  assert.deepEqual(texts(stepMessages(r, plan, ['G1', 'G2'], 2)).slice(-3), ['u:A2', 'a:G2', 'u:CURRENT']);
  assert.deepEqual(texts(stepMessages(r, plan, ['G1'], 1)).slice(-1), ['u:A2']);
});

test('rows of one trajectory share steps where the anchor agrees, never where it differs', () => {
  const keys = (r: DatasetRow, h: Horizon) => rolloutPlan(r, h).steps.map((s) => s.key);
  // all: row 3's steps are the first three of row 5's.
  assert.deepEqual(keys(row(5), 'all').slice(0, 3), keys(row(3), 'all'));
  // H = 4: rows 2 and 4 both start at turn 1.
  assert.deepEqual(keys(row(4), 4).slice(0, 2), keys(row(2), 4));
  // H = 2: rows 5 and 6 start at turns 3 and 4: no step in common.
  const five = new Set(keys(row(5), 2));
  assert.ok(keys(row(6), 2).every((k) => !five.has(k)));
});

test('a step key depends on the trajectory, the system prompt, the real history before the anchor and the actions', () => {
  const key = (r: DatasetRow) => rolloutPlan(r, 2).steps[0]!.key;
  const base = key(row(5));
  assert.equal(key(row(5)), base);
  assert.notEqual(key(row(5, { id: 8 })), base);
  assert.notEqual(key(row(5, { task: 'swe' })), base);
  assert.notEqual(key(row(5, { system_str: 'OTHER' })), base);
  assert.notEqual(key(row(5, { response: ['X1', 'O2', 'O3', 'O4', 'O5'] })), base);
  assert.notEqual(key(row(5, { prompt: ['A1', 'A2', 'B3', 'A4', 'A5'] })), base);
  // The evaluated turn's real observation is never in a request.
  assert.equal(key(row(5, { response: ['O1', 'O2', 'O3', 'O4', 'OTHER'] })), base);
});

test('a row whose lists are shorter than its turn generates only the turns it has', () => {
  const r = row(4, { prompt: ['A1', 'A2'], response: ['O1', 'O2', 'O3', 'O4'] });
  const plan = rolloutPlan(r, 'all');
  assert.deepEqual(
    plan.steps.map((s) => s.turn),
    [1, 2, 4],
  );
  assert.deepEqual(texts(stepMessages(r, plan, ['G1', 'G2'], 2)), ['s:SYS', 'u:A1', 'a:G1', 'u:A2', 'a:G2', 'u:A4']);
});

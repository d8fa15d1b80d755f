/* How a panel's members' grades become the row's: the mean or median of the valid members (issue 37, item 3). */

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { combineChoicePanel, combinePanel, turingOrderResult, turingResult, type Choice } from '../../../src/core/judge/index.js';
import { memberError } from '../../../src/core/judge/panel.js';
import { judgedOutcome, type ChoicePanelEntry, type PanelEntry } from '../../../src/core/schemas/index.js';

const entry = (judge: string, g: number, over: Partial<PanelEntry> = {}): PanelEntry => ({
  judge,
  scores: { format: g, factuality: g, consistency: g, realism: g, quality: g },
  total_score: g,
  failed: 0,
  ...over,
});

test('combinePanel: the mean or median of the valid members per dimension, the total by the official rule', () => {
  const mean = combinePanel([entry('a', 3), entry('b', 4), entry('c', 5)], 'mean');
  assert.deepEqual([mean.format, mean.quality, mean.total_score, mean.failed], [4, 4, 4, 0]);
  const skewed = [entry('a', 1), entry('b', 2), entry('c', 5)];
  assert.equal(combinePanel(skewed, 'median').realism, 2);
  assert.equal(combinePanel(skewed, 'mean').realism, 8 / 3);
  // A member's missing grade (0) is left out of that dimension only; the total is the mean of the panel's dimensions.
  const gap = combinePanel(
    [entry('a', 2, { scores: { format: 0, factuality: 2, consistency: 2, realism: 2, quality: 2 } }), entry('b', 4)],
    'mean',
  );
  assert.deepEqual([gap.format, gap.factuality, gap.total_score], [4, 3, (4 + 3 * 4) / 5]);
  const unparsed = { failed: 1, total_score: 0, error_message: 'no JSON', judge_failure: 'unparsed' } as const;
  const one = combinePanel([entry('a', 3), entry('b', 0, unparsed), entry('c', 5)], 'mean');
  assert.deepEqual([one.total_score, one.failed], [4, 0]);
  const [a, b] = [entry('a', 0, unparsed), entry('b', 0, unparsed)];
  const none = combinePanel([a, b], 'mean');
  assert.equal(judgedOutcome({ ...none }), 'failed', 'no member could grade: final, as for one judge');
  assert.equal(none.judge_failure, 'unparsed');
  // The row's error is its first member's.
  assert.deepEqual(none.error_message, memberError(a).error_message);
  assert.notDeepEqual(none.error_message, memberError(b).error_message);
  const unsent = combinePanel(
    [entry('a', 3), entry('b', 0, { failed: 1, total_score: 0, error_message: 'HTTP 500', judge_failure: 'request-failed' })],
    'mean',
  );
  assert.equal(judgedOutcome({ ...unsent }), 'incomplete', 'a member whose request failed leaves the row to redo');
  assert.equal(unsent.judge_failure, 'request-failed');
  // A member's failure recorded without a code (an earlier awb's entry) is asked again, never taken as final.
  const uncoded = combinePanel(
    [entry('a', 3), entry('b', 0, { failed: 1, total_score: 0, error_message: 'reply could not be parsed' })],
    'mean',
  );
  assert.equal(judgedOutcome({ ...uncoded }), 'incomplete');
  assert.equal(unsent.panel!.length, 2);
});

/** A member's turing judgement of a row: the real observation at A, then at B, and its two choices. */
function chose(judge: string, choices: [Choice | null, Choice | null], over: Partial<ChoicePanelEntry> = {}): ChoicePanelEntry {
  const turing = turingResult([
    turingOrderResult('A', { choice: choices[0], attempts: 1 }),
    turingOrderResult('B', { choice: choices[1], attempts: 1 }),
  ]);
  return { judge, turing, failed: turing.failed, ...over };
}

test('combineChoicePanel: the mean or median of the members with both orders answered; a failed request leaves the row to redo', () => {
  const [spotter, fooled, alwaysA] = [chose('a', ['A', 'B']), chose('b', ['B', 'A']), chose('c', ['A', 'A'])];
  assert.deepEqual(combineChoicePanel('turing', [spotter, fooled, alwaysA], 'mean'), { rate: 0.5, position_consistency: 2 / 3, failed: 0 });
  assert.deepEqual(combineChoicePanel('turing', [spotter, fooled, alwaysA], 'median'), { rate: 0.5, position_consistency: 1, failed: 0 });
  assert.deepEqual(combineChoicePanel('turing', [spotter, spotter, fooled], 'median'), { rate: 0, position_consistency: 1, failed: 0 });
  const unparsed = chose('c', [null, 'A'], { error_message: 'no choice', judge_failure: 'unparsed' });
  assert.deepEqual(combineChoicePanel('turing', [spotter, fooled, unparsed], 'mean'), { rate: 0.5, position_consistency: 1, failed: 0 });
  const none = combineChoicePanel('turing', [unparsed, { ...unparsed, judge: 'd' }], 'mean');
  assert.equal(judgedOutcome({ ...none }), 'failed', 'no member answered both orders: final, as for one judge');
  assert.equal(none.rate, null);
  assert.deepEqual(none.error_message, memberError(unparsed).error_message);
  assert.notDeepEqual(none.error_message, memberError({ ...unparsed, judge: 'd' }).error_message);
  const unsent = combineChoicePanel(
    'turing',
    [spotter, chose('b', [null, null], { error_message: 'HTTP 500', judge_failure: 'request-failed' })],
    'mean',
  );
  assert.equal(judgedOutcome({ ...unsent }), 'incomplete');
  assert.equal(unsent.rate, null);
});

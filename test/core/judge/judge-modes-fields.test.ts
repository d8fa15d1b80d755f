import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { turingOrders, pairwiseOrders } from '../../../src/core/judge/choice-messages.js';
import { pairwiseOrderResult, pairwiseResult, turingOrderResult, turingResult } from '../../../src/core/judge/choice-results.js';
import { combineRepeats } from '../../../src/core/judge/repeats.js';
import { sampleSd } from '../../../src/core/score/index.js';
import {
  judgeRepeatSchema,
  pairwiseFieldsSchema,
  pairwiseResultSchema,
  repeatFieldsSchema,
  turingFieldsSchema,
  turingResultSchema,
  type JudgeRepeat,
} from '../../../src/core/schemas/index.js';

const asked = (choice: 'A' | 'B' | null) => ({
  choice,
  raw: choice ? `\\boxed{${choice}}` : 'hmm',
  attempts: choice ? 1 : 3,
  ...(choice ? {} : { error: 'no choice' }),
});

describe('turing results', () => {
  test('built from both orders: picked_real derived, failed when an order has no choice', () => {
    const [o1, o2] = turingOrders('R', 'P');
    const done = turingResult([turingOrderResult(o1.real_at, asked('A')), turingOrderResult(o2.real_at, asked('A'))]);
    assert.deepStrictEqual(
      done.orders.map((o) => [o.real_at, o.choice, o.picked_real]),
      [
        ['A', 'A', true],
        ['B', 'A', false],
      ],
    );
    assert.equal(done.failed, 0);
    assert.ok(turingResultSchema.safeParse(done).success);
    assert.ok(turingFieldsSchema.safeParse({ turing: done, failed: 0, extracted_output: 'P' }).success);

    const half = turingResult([turingOrderResult('A', asked('B')), turingOrderResult('B', asked(null))]);
    assert.equal(half.failed, 1);
    assert.equal(half.orders[1].picked_real, null);
    assert.ok(turingResultSchema.safeParse(half).success);
  });

  test('the schema rejects rows whose stored fields contradict each other', () => {
    const good = turingResult([turingOrderResult('A', asked('A')), turingOrderResult('B', asked('B'))]);
    /** The paths of the issues the schema finds in the row once patched. */
    const bad = (patch: (r: typeof good) => void): string[] => {
      const r = structuredClone(good);
      patch(r);
      const parsed = turingResultSchema.safeParse(r);
      assert.equal(parsed.success, false);
      return parsed.error!.issues.map((i) => i.path.join('.'));
    };
    const names = (paths: string[], path: string) => assert.ok(paths.includes(path), `${path} not among ${paths.join(', ')}`);
    names(
      bad((r) => (r.orders[0].picked_real = false)),
      'orders.0.picked_real',
    );
    names(
      bad((r) => (r.orders[1].real_at = 'A')),
      'orders',
    );
    names(
      bad((r) => (r.failed = 1)),
      'failed',
    );
    names(
      bad((r) => (r.orders[0].choice = 'C' as 'A')),
      'orders.0.choice',
    );
  });
});

describe('pairwise results', () => {
  test('preferred derived from where the candidate was; the reference key is kept', () => {
    const [o1, o2] = pairwiseOrders('cand', 'ref');
    const r = pairwiseResult(
      'web:7:2:abc',
      [pairwiseOrderResult(o1.candidate_at, asked('A')), pairwiseOrderResult(o2.candidate_at, asked('A'))],
      'ref',
    );
    assert.deepStrictEqual(
      r.orders.map((o) => o.preferred),
      ['candidate', 'reference'],
    );
    assert.equal(r.reference_key, 'web:7:2:abc');
    assert.equal(r.reference_output, 'ref');
    assert.equal(r.failed, 0);
    assert.ok(pairwiseFieldsSchema.safeParse({ pairwise: r, failed: 0 }).success);
    const wrong = structuredClone(r);
    wrong.orders[1].preferred = 'candidate';
    assert.equal(pairwiseResultSchema.safeParse(wrong).success, false);
    assert.equal(pairwiseResultSchema.safeParse({ ...r, reference_key: '' }).success, false);
  });
});

const rep = (dims: [number, number, number, number, number], failed: 0 | 1 = 0): JudgeRepeat => {
  const [format, factuality, consistency, realism, quality] = dims;
  const scored = dims.filter((d) => d > 0);
  const total_score = failed || !scored.length ? 0 : scored.reduce((a, b) => a + b, 0) / scored.length;
  return { format, factuality, consistency, realism, quality, total_score, failed };
};

describe('combineRepeats', () => {
  test('dimension means over the valid repeats that scored them; total the mean of valid totals', () => {
    const r = combineRepeats([rep([4, 4, 4, 4, 4]), rep([2, 3, 0, 5, 5]), rep([0, 0, 0, 0, 0], 1)]);
    assert.deepStrictEqual(r, {
      format: 3,
      factuality: 3.5,
      consistency: 4, // the second repeat left it out
      realism: 4.5,
      quality: 4.5,
      total_score: (4 + 15 / 4) / 2,
      failed: 0,
    });
  });

  test('repeats that agree combine to their own total, without float noise; their spread is 0', () => {
    const same = [rep([3, 3, 3, 3, 2]), rep([2, 3, 3, 3, 3]), rep([3, 2, 3, 3, 3])];
    assert.equal(combineRepeats(same).total_score, 2.8);
    assert.equal(sampleSd(same.map((r) => r.total_score)), 0);
    assert.equal(combineRepeats([rep([5, 5, 5, 5, 4]), rep([1, 1, 1, 1, 1])]).total_score, (4.8 + 1) / 2);
  });

  test('failed only when every repeat failed', () => {
    assert.deepStrictEqual(combineRepeats([rep([0, 0, 0, 0, 0], 1), rep([0, 0, 0, 0, 0], 1)]), {
      format: 0,
      factuality: 0,
      consistency: 0,
      realism: 0,
      quality: 0,
      total_score: 0,
      failed: 1,
    });
  });

  test('one repeat is the judgement itself', () => {
    const one = rep([5, 4, 3, 2, 1]);
    const { failed, total_score, format, factuality, consistency, realism, quality } = one;
    assert.deepStrictEqual(combineRepeats([one]), { format, factuality, consistency, realism, quality, total_score, failed });
  });

  test('the repeats field validates', () => {
    assert.ok(repeatFieldsSchema.safeParse({ judge_repeats: [rep([4, 4, 4, 4, 4]), rep([1, 1, 1, 1, 1], 1)] }).success);
    assert.equal(repeatFieldsSchema.safeParse({ judge_repeats: [] }).success, false);
    assert.equal(judgeRepeatSchema.safeParse({ ...rep([4, 4, 4, 4, 4]), total_score: 7 }).success, false);
  });
});

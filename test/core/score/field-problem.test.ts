/*
 * Why a judged field is refused, as data: the fault's problem is read off zod's issue code and
 * fields (fieldProblem), never its message; the words are test/commands/words/words.test.ts's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readJudged, type FieldProblem } from '../../../src/core/score/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { isFault } from '../../support/fault-kind.js';

const dir = tempDir('awb-field-problem-');

describe('a refused judged field', () => {
  const cases: Array<[string, Record<string, unknown>, string, FieldProblem]> = [
    ['id-null', { id: null }, 'id', { kind: 'type', expected: ['number', 'string'], got: 'null' }],
    ['id-missing', { id: undefined }, 'id', { kind: 'type', expected: ['number', 'string'] }],
    ['turn-text', { turn_idx: 'two' }, 'turn_idx', { kind: 'type', expected: ['number'], got: 'string' }],
    ['grade-list', { realism: [4] }, 'realism', { kind: 'type', expected: ['number'], got: 'array' }],
    ['horizon', { horizon: 0 }, 'horizon', { kind: 'horizon' }],
  ];
  for (const [name, fields, field, problem] of cases) {
    it(`${name}: ${field} with its problem as data`, async () => {
      const path = writeJudged(dir, `${name}.jsonl`, [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), ...fields }]);
      await assert.rejects(readJudged(path), isFault('judged-field-invalid', { file: path, line: 2, field, problem }));
    });
  }

  it('a refusal the schema words itself keeps its words', async () => {
    const path = writeJudged(dir, 'failed-half.jsonl', [{ ...judgedRow({ id: 1 }), failed: 0.5 }]);
    await assert.rejects(readJudged(path), (err: unknown) => {
      isFault('judged-field-invalid', { line: 1, field: 'failed' })(err);
      const problem = (err as { fault: { problem: { kind: string } } }).fault.problem;
      assert.equal(problem.kind, 'said');
      return true;
    });
  });
});

/*
 * Which rows of a judged file score counts as "no output": those whose generation holds nothing once
 * reasoning is removed (noOutput of gen), not those whose extracted_output reads as the placeholder;
 * a prediction whose text happens to be the placeholder's words is a prediction like any other.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_OUTPUT } from '../../../src/core/rubrics/index.js';
import { readJudged } from '../../../src/core/score/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';

const dir = tempDir('awb-no-output-');

const gens: Array<[string, string, boolean]> = [
  ['an unclosed think', '<think>The command lists the files, so', true],
  ['reasoning alone', '<think>done</think>  ', true],
  ['blank', ' \n', true],
  ['an observation', 'total 0', false],
  ['the placeholder as text', NO_OUTPUT, false],
  ['no generation (inference failed)', '', false],
];

describe('rows without output', () => {
  it('are read back by score from the generation', async () => {
    const rows = gens.map(([, gen], i) => ({ ...judgedRow({ id: i + 1 }), gen, extracted_output: NO_OUTPUT }));
    const read = await readJudged(writeJudged(dir, 'gens.jsonl', rows));
    assert.deepEqual(
      read.records.map((r) => r.noOutput),
      gens.map(([, , none]) => none),
    );
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseChoiceReply } from '../../../src/core/judge/choice-parse.js';

/** [reply, expected choice (undefined = failure), via] */
const TABLE: Array<[string, 'A' | 'B' | undefined, ('boxed' | 'phrase')?]> = [
  // boxed spellings
  ['\\boxed{A}', 'A', 'boxed'],
  ['\\boxed{B}', 'B', 'boxed'],
  ['The real one is \\\\boxed{B}.', 'B', 'boxed'],
  ['Final: $\\boxed{A}$', 'A', 'boxed'],
  ['boxed{B}', 'B', 'boxed'],
  ['\\boxed{ A }', 'A', 'boxed'],
  ['\\boxed{\tB\n}', 'B', 'boxed'],
  ['\\boxed{a}', 'A', 'boxed'],
  ['\\boxed{b}', 'B', 'boxed'],
  ['\\BOXED{B}', 'B', 'boxed'],
  // the last boxed letter wins
  ['At first \\boxed{A}, but on reflection \\boxed{B}', 'B', 'boxed'],
  ['\\boxed{B} ... \\boxed{b} ... \\boxed{a}', 'A', 'boxed'],
  // a boxed answer beats any phrase, wherever the phrase is
  ['The answer is A. \\boxed{B}', 'B', 'boxed'],
  ['\\boxed{B}\nSo the answer is A.', 'B', 'boxed'],
  // boxed things that are not a choice are ignored
  ['\\boxed{C}', undefined],
  ['\\boxed{AB}', undefined],
  ['\\boxed{}', undefined],
  ['\\boxed{A or B}', undefined],
  ['\\boxed{C} but \\boxed{A}', 'A', 'boxed'],
  ['\\boxed{A} then \\boxed{C}', 'A', 'boxed'],
  // think blocks removed as for the rubric judge
  ['<think>maybe \\boxed{A}</think>\\boxed{B}', 'B', 'boxed'],
  ['<think>\\boxed{B}</think>', undefined],
  ['<think>I lean to \\boxed{A}', undefined],
  // an unclosed block runs to the end: the official choice parser has no stop tag, so an evaluation tag does not end it
  ['<think>I lean to A <final_evaluation> \\boxed{A}', undefined],
  ['reasoning \\boxed{A} </think> \\boxed{B}', 'B', 'boxed'],
  ['stray thought \\boxed{A}</think>The answer is B', 'B', 'phrase'],
  ['<THINK>\\boxed{A}</THINK>I choose B', 'B', 'phrase'],
  // fallback phrases
  ['The answer is A.', 'A', 'phrase'],
  ['the answer is B', 'B', 'phrase'],
  ['Final answer: A', 'A', 'phrase'],
  ['ANSWER IS B', 'B', 'phrase'],
  ['The answer is **B**', 'B', 'phrase'],
  ['The answer is (A)', 'A', 'phrase'],
  ['The answer is Response B.', 'B', 'phrase'],
  ['I choose B.', 'B', 'phrase'],
  ['I would pick Response A', 'A', 'phrase'],
  ['I select option B', 'B', 'phrase'],
  ['A is more realistic.', 'A', 'phrase'],
  ['Response B is the real observation.', 'B', 'phrase'],
  ['Response A is real, B was generated', 'A', 'phrase'],
  ['B is closer to the ground truth', 'B', 'phrase'],
  ['Candidate A is better', 'A', 'phrase'],
  ['Option B is more accurate', 'B', 'phrase'],
  // the last phrase wins
  ['A is more realistic at first sight, but the answer is B', 'B', 'phrase'],
  ['I choose A. Hmm, Response B is the real one.', 'B', 'phrase'],
  // lower-case letters in phrases are articles, not choices
  ['the answer is a bit unclear', undefined],
  ['I choose a response at random', undefined],
  ['this is a real page', undefined],
  ['The answer is Absolutely unclear', undefined],
  ['I choose Both', undefined],
  // nothing to read
  ['', undefined],
  ['   \n ', undefined],
  ['Both responses look plausible.', undefined],
  ['A', undefined],
  ['Response C is more realistic', undefined],
];

describe('parseChoiceReply: table of replies', () => {
  for (const [reply, choice, via] of TABLE) {
    test(JSON.stringify(reply), () => {
      const parsed = parseChoiceReply(reply);
      if (choice === undefined) assert.equal(parsed.ok, false, `expected a failure, got ${JSON.stringify(parsed)}`);
      else assert.deepStrictEqual(parsed, { ok: true, choice, via });
    });
  }
});

describe('parseChoiceReply: failures say why', () => {
  test('an empty reply', () => {
    for (const reply of ['', ' \n']) {
      const parsed = parseChoiceReply(reply);
      assert.equal(!parsed.ok && parsed.why, 'empty');
    }
  });
  test('a reply that is only a think block', () => {
    const parsed = parseChoiceReply('<think>\\boxed{A}</think>');
    assert.equal(parsed.ok, false);
    assert.equal(!parsed.ok && parsed.why, 'think-only');
  });
  test('prose without a choice', () => {
    const parsed = parseChoiceReply('I cannot tell.');
    assert.equal(parsed.ok, false);
    assert.equal(!parsed.ok && parsed.why, 'no-choice');
  });
});

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { cleanGroundTruth, extractPrediction, judgedTexts } from '../src/core/rubrics/prediction-text.js';
import { lastBlock } from '../src/core/rubrics/think.js';

describe('extractPrediction', () => {
  test('think removed, tag content trimmed', () => {
    assert.strictEqual(
      extractPrediction('<think>plan</think>\n<predicted_observation>\n  ls output\n</predicted_observation>\n'),
      'ls output',
    );
  });

  test('the last block wins', () => {
    assert.strictEqual(
      extractPrediction('<predicted_observation>old</predicted_observation> <predicted_observation>new</predicted_observation>'),
      'new',
    );
  });

  test('an unclosed block runs to the end', () => {
    assert.strictEqual(extractPrediction('<predicted_observation>\n{"status": 200}\n'), '{"status": 200}');
  });

  test('without the tag, the whole cleaned text', () => {
    assert.strictEqual(extractPrediction('  <think>x</think>\n file.txt \n'), 'file.txt');
  });

  test('an unclosed think stops at the observation tag', () => {
    assert.strictEqual(extractPrediction('<think>reasoning never closed\n<Predicted_Observation>result</Predicted_Observation>'), 'result');
  });

  test('an orphan </think> drops the reasoning before it', () => {
    assert.strictEqual(extractPrediction('reasoning</think>\nanswer'), 'answer');
  });

  test('a tag mentioned only inside a thought is ignored', () => {
    assert.strictEqual(extractPrediction('<think>use <predicted_observation>x</predicted_observation></think>plain'), 'plain');
  });

  test('an empty block gives an empty prediction', () => {
    assert.strictEqual(extractPrediction('text <predicted_observation> </predicted_observation>'), '');
  });

  test('a custom tag', () => {
    assert.strictEqual(extractPrediction('<obs>a</obs><predicted_observation>b</predicted_observation>', 'obs'), 'a');
  });

  test('a generation that is only reasoning gives an empty string', () => {
    assert.strictEqual(extractPrediction('<think>still thinking'), '');
  });
});

describe('cleanGroundTruth', () => {
  test('a wrapped observation is unwrapped', () => {
    assert.strictEqual(cleanGroundTruth('<predicted_observation>\nreal output\n</predicted_observation>'), 'real output');
  });

  test('an unwrapped observation is only trimmed, think text included', () => {
    assert.strictEqual(cleanGroundTruth('\n  <think>literal</think> output \n'), '<think>literal</think> output');
  });

  test('a custom tag', () => {
    assert.strictEqual(cleanGroundTruth('<obs> x </obs>', 'obs'), 'x');
  });
});

describe('lastBlock', () => {
  test('undefined when the tag never opens', () => {
    assert.strictEqual(lastBlock('a </x> b', 'x'), undefined);
  });

  test('content of the last block, untrimmed', () => {
    assert.strictEqual(lastBlock('<x>1</x><X> 2 </x>', 'x'), ' 2 ');
  });

  test('regex characters in the tag are literal', () => {
    assert.strictEqual(lastBlock('<a.b>1</a.b><axb>2</axb>', 'a.b'), '1');
  });
});

describe('judgedTexts', () => {
  it("is what the judge saw: current_prompt else the turn's prompt, extracted_output else gen extracted, the cleaned truth", () => {
    const gen = '<think>hm</think><predicted_observation>out</predicted_observation>';
    const truth = '<predicted_observation> real </predicted_observation>';
    assert.deepEqual(judgedTexts({ current_prompt: 'act', prompt: 'p', gen, response: truth }), {
      action: 'act',
      prediction: 'out',
      truth: 'real',
    });
    assert.deepEqual(judgedTexts({ current_prompt: '', prompt: 'p', gen, extracted_output: 'as shown', response: 7 }), {
      action: 'p',
      prediction: 'as shown',
      truth: '',
    });
  });
});

import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { NO_OUTPUT, cleanObservation, extractPrediction, judgedTexts, noOutput } from '../../../src/core/rubrics/prediction-text.js';
import { lastBlock } from '../../../src/core/rubrics/think.js';

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

  test('a generation with nothing left after its reasoning gives "No output", as the official script shows the judge', () => {
    assert.strictEqual(extractPrediction('<think>still thinking'), 'No output');
    assert.strictEqual(extractPrediction('<think>done</think>\n '), 'No output');
    assert.strictEqual(extractPrediction('  \n'), 'No output');
  });

  test('blocks paired as the official script pairs them: the text after a nested pair is kept', () => {
    assert.strictEqual(
      extractPrediction('<think>a<think>b<predicted_observation>fake</predicted_observation></think> real obs'),
      'real obs',
    );
  });
});

describe('noOutput: why a reply holds no prediction', () => {
  test('a reply with output has none, whatever reasoning it holds', () => {
    for (const gen of ['ls: ok', '<think>a</think>ok', '<think>never closed<predicted_observation>seen', '</think>after an orphan close'])
      assert.equal(noOutput(gen), undefined, gen);
  });

  test('an empty reply is not counted here (it is a failed row, counted as empty)', () => {
    assert.equal(noOutput(''), undefined);
  });

  test('an unclosed <think>: the server sent the thinking in the reply (no reasoning parser), or the reply stopped mid-thought', () => {
    assert.equal(noOutput('<think>I should list the files'), 'unclosed-think');
    assert.equal(noOutput('<THINK>a</THINK><think>b'), 'unclosed-think');
    // The tag named inside the thinking, and no answer after it: nothing either.
    assert.equal(noOutput('<think>the answer goes in <predicted_observation>'), 'unclosed-think');
    assert.equal(noOutput('<think>plan <think>more</think>'), 'unclosed-think');
  });

  test('closed reasoning and nothing else; white space or an empty observation block', () => {
    assert.equal(noOutput('<think>only this</think>\n'), 'reasoning-only');
    assert.equal(noOutput('just thinking</think>'), 'reasoning-only');
    assert.equal(noOutput(' \n\t'), 'blank');
    assert.equal(noOutput('<predicted_observation> </predicted_observation>'), 'blank');
  });

  test('each counted reply is one the judge is shown as "No output" (or empty)', () => {
    for (const gen of ['<think>x', '<think>x</think>', ' '])
      assert.ok([NO_OUTPUT, ''].includes(extractPrediction(gen)), gen);
  });
});

describe('cleanObservation', () => {
  test('a leading observation label is removed, and only that one', () => {
    assert.strictEqual(cleanObservation('**Environment Observation:**\nroot@x:/app# ls\n'), 'root@x:/app# ls');
    assert.strictEqual(
      cleanObservation('**Environment Observation:** a **Environment Observation:** b'),
      'a **Environment Observation:** b',
    );
  });

  test('a label elsewhere is removed wherever it occurs', () => {
    assert.strictEqual(cleanObservation(' out **Environment Observation:** more **Environment Observation:**'), 'out  more');
  });

  test('tags and think text are left alone, only trimmed', () => {
    assert.strictEqual(cleanObservation('\n  <think>literal</think> output \n'), '<think>literal</think> output');
    assert.strictEqual(
      cleanObservation('<predicted_observation> x </predicted_observation>'),
      '<predicted_observation> x </predicted_observation>',
    );
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
    const truth = '**Environment Observation:**\n real ';
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

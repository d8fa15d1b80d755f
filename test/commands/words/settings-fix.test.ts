/* The change awb names for a refused setting: what --extra-body or --temperature ends it, beside what the user already set. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { budgetFix, settingsFix } from '../../../src/commands/words/stage/settings-fix.js';

describe('settingsFix: the change that ends a refusal of the settings awb knows', () => {
  it('max_tokens: left out with null in --extra-body, beside the fields already there', () => {
    // The words of this case are pinned by the settings-refused sample (test/commands/words); here, the flag's value.
    assert.match(settingsFix({ name: 'max_tokens' }, { maxTokens: 32768 })!, / --extra-body '\{"max_tokens":null\}'$/);
    assert.match(
      settingsFix({ name: 'max_tokens' }, { maxTokens: 1000, extraBody: { reasoning_effort: "it's low" } })!,
      /with --extra-body '\{"reasoning_effort":"it'\\''s low","max_tokens":null\}'$/,
    );
    // A budget given as max_tokens in --extra-body moves to max_completion_tokens.
    assert.match(
      settingsFix({ name: 'max_tokens' }, { maxTokens: 1000, extraBody: { max_tokens: 50 } })!,
      /'\{"max_tokens":null,"max_completion_tokens":50\}'$/,
    );
    // Already left out: nothing awb knows to change.
    assert.equal(settingsFix({ name: 'max_tokens' }, { maxTokens: 1000, extraBody: { max_tokens: null } }), undefined);
  });

  it('max_completion_tokens: left out the same way', () => {
    assert.match(settingsFix({ name: 'max_completion_tokens' }, { maxTokens: 64 })!, /--extra-body '\{"max_completion_tokens":null\}'$/);
  });

  it('temperature: the default the server names, with --temperature, or in --extra-body when it sets one', () => {
    assert.match(settingsFix({ name: 'temperature', only: 1 }, { maxTokens: 32768 })!, / --temperature 1$/);
    assert.match(
      settingsFix({ name: 'temperature', only: 1 }, { extraBody: { temperature: 0.2, seed: 1 } })!,
      /with --extra-body '\{"temperature":1,"seed":1\}'$/,
    );
    assert.equal(settingsFix({ name: 'temperature' }, { maxTokens: 32768 }), undefined);
  });

  it('another refusal: nothing to name', () => {
    assert.equal(settingsFix(undefined, { maxTokens: 32768 }), undefined);
  });

  it('a budget over the context: a --max-tokens that leaves room for the prompt the server counted, or half the context', () => {
    // The words of the budget alone filling the context are pinned by the budget-over-context sample.
    assert.match(
      budgetFix({ context: 4096, prompt: 3000, budget: 2000 }, { maxTokens: 2000 }),
      /a prompt of 3000 tokens with --max-tokens 2000 is over it: try --max-tokens 1024$/,
    );
    assert.match(
      budgetFix({ context: 40960 }, { maxTokens: 32768 }),
      /--max-tokens 32768 leaves too little room for the prompts: try --max-tokens 16384$/,
    );
    // A budget given in --extra-body wins over --max-tokens: changed there.
    assert.match(
      budgetFix({ context: 8192, budget: 8192 }, { maxTokens: 32768, extraBody: { max_tokens: 8192, seed: 1 } }),
      /a budget of 8192 \(--extra-body\) leaves no room for a prompt: try --extra-body '\{"max_tokens":4096,"seed":1\}'$/,
    );
  });
});

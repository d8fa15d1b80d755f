import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestParams, uncut } from '../../../src/core/infer/index.js';

describe('requestParams: the token cap', () => {
  it('goes out under both names, whichever the user gave', () => {
    // As sent: JSON leaves the unset fields out.
    assert.deepEqual(JSON.parse(JSON.stringify(requestParams({ max_tokens: 64 }))), { max_tokens: 64, max_completion_tokens: 64 });
    const fromExtra = requestParams({ max_tokens: 64, extra_body: { max_completion_tokens: 8 } });
    assert.equal(fromExtra.max_tokens, 8);
    assert.equal(fromExtra.max_completion_tokens, 8);
    const oldName = requestParams({ max_tokens: 64, extra_body: { max_tokens: 9 } });
    assert.equal(oldName.max_tokens, 9);
    assert.equal(oldName.max_completion_tokens, 9);
  });

  it('null in --extra-body leaves one out; the other keeps the budget', () => {
    const body = requestParams({ max_tokens: 64, extra_body: { max_tokens: null } });
    assert.equal(Object.hasOwn(body, 'max_tokens'), false);
    assert.equal(body.max_completion_tokens, 64);
    const other = requestParams({ max_tokens: 64, extra_body: { max_completion_tokens: null } });
    assert.equal(Object.hasOwn(other, 'max_completion_tokens'), false);
    assert.equal(other.max_tokens, 64);
  });

  it("to OpenAI's own API only as max_completion_tokens, unless --extra-body sets max_tokens", () => {
    const body = requestParams({ max_tokens: 64 }, { completionTokensOnly: true });
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.max_completion_tokens, 64);
    assert.equal(requestParams({ max_tokens: 64, extra_body: { max_tokens: 5 } }, { completionTokensOnly: true }).max_tokens, 5);
  });

  it('no cap given, none sent', () => {
    const body = requestParams({ temperature: 0.6 });
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.max_completion_tokens, undefined);
  });
});

describe('requestParams: the other sampling fields', () => {
  it('go out under their own names; unset ones not at all; --extra-body wins', () => {
    const sent = (s: Parameters<typeof requestParams>[0]) => JSON.parse(JSON.stringify(requestParams(s))) as Record<string, unknown>;
    assert.deepEqual(sent({ temperature: 0.6, top_p: 0.9, seed: 7 }), { temperature: 0.6, top_p: 0.9, seed: 7 });
    assert.deepEqual(sent({ temperature: 0.6, seed: undefined }), { temperature: 0.6 });
    assert.equal(sent({ seed: 7, extra_body: { seed: 8 } }).seed, 8);
    // 0 is a seed like any other, not "none".
    assert.equal(sent({ seed: 0 }).seed, 0);
  });
});

describe('uncut: a character cut by the token cap', () => {
  it('drops the U+FFFD a cut leaves at the end, only when the cap stopped the reply', () => {
    assert.equal(uncut('caf\uFFFD', 'length'), 'caf');
    assert.equal(uncut('caf\uFFFD\uFFFD', 'length'), 'caf');
    assert.equal(uncut('caf\uFFFD', 'stop'), 'caf\uFFFD');
    assert.equal(uncut('a\uFFFDb', 'length'), 'a\uFFFDb');
  });
});

/*
 * The resume guard's decision on changed settings: refused only when a row of the output holds an
 * answer made with the old ones.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refusesOtherSettings } from '../../../src/core/output/index.js';

const changed = ['sampling: was {"temperature":0.6}, now {"extra_body":{"top_k":null},"temperature":0.6}'];

test('changed settings are refused when some row already holds an answer', () => {
  assert.equal(refusesOtherSettings(changed, true), true);
});

test('changed settings are taken when no row holds an answer (every request failed): nothing would be mixed', () => {
  assert.equal(refusesOtherSettings(changed, false), false);
});

test('the same settings are never refused, answered or not', () => {
  assert.equal(refusesOtherSettings([], true), false);
  assert.equal(refusesOtherSettings([], false), false);
});

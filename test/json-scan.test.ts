import { test } from 'node:test';
import assert from 'node:assert/strict';
import { arrayElement, parseSlice, topLevelValues } from '../src/core/rows/json-scan.js';

const b = (s: string) => Buffer.from(s, 'utf8');
const wanted = new Set(['task', 'id', 'prompt', 'score']);

test('finds top-level values and skips everything else, nested keys and quoted quotes included', () => {
  const line = b(
    '{"meta": {"task": "decoy", "x": [1, {"id": 9}]}, "prompt": ["a \\"task\\": 1", "b\\\\"], "task" : "web", "id": 123456789012345678901, "score": 4.5}',
  );
  const at = topLevelValues(line, wanted)!;
  assert.equal(parseSlice(line, at.get('task')), 'web');
  assert.equal(line.toString('utf8', ...at.get('id')!), '123456789012345678901');
  assert.equal(parseSlice(line, at.get('score')), 4.5);
  assert.equal(parseSlice(line, arrayElement(line, at.get('prompt')!, 1)), 'b\\');
  assert.equal(parseSlice(line, arrayElement(line, at.get('prompt')!, 0)), 'a "task": 1');
  assert.equal(arrayElement(line, at.get('prompt')!, 2), undefined);
});

test('a repeated key keeps its last value, as JSON.parse does', () => {
  const line = b('{"task": "a", "task": "b"}');
  assert.equal(parseSlice(line, topLevelValues(line, wanted)!.get('task')), 'b');
});

test('anything that is not one whole object gives up, so the caller falls back to JSON.parse', () => {
  for (const bad of ['[1, 2]', '{"task": "a"', '{"task": "a"} x', '{"task" "a"}', '{"ta\\u0073k": "a"}', '{"task": "unterminated}', '']) {
    assert.equal(topLevelValues(b(bad), wanted), undefined, bad);
  }
  assert.deepEqual(topLevelValues(b(' { } '), wanted), new Map());
});

test('raw U+2028 and multi-byte text inside skipped strings do not confuse it', () => {
  const line = b('{"prompt": ["x\u2028y 中文 😀 \\u2029"], "task": "search"}');
  const at = topLevelValues(line, wanted)!;
  assert.equal(parseSlice(line, at.get('task')), 'search');
  assert.equal(parseSlice(line, arrayElement(line, at.get('prompt')!, 0)), 'x\u2028y 中文 😀 \u2029');
});

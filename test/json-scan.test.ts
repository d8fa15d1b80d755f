import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arrayElement, firstTopLevelValue, parseSlice, topLevelValues } from '../src/core/rows/json-scan.js';
import { judgedRow } from './fixtures/judged/rows.js';
import { respell } from './support/respell.js';

const dataDir = fileURLToPath(new URL('../fixtures/data', import.meta.url));

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
  for (const bad of ['[1, 2]', '{"task": "a"', '{"task": "a"} x', '{"task" "a"}', '{"task": "unterminated}', '']) {
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

/*
 * Property-style: many spellings of the fixture rows and of judged rows
 * (escaped keys and values, `\/`, surrogate pairs, reordered and repeated
 * keys, decoy nested task/id/turn_idx, odd whitespace, CRLF) must give
 * exactly JSON.parse's answers.
 */
const fixtureRows = readdirSync(dataDir)
  .filter((n) => n.endsWith('.jsonl'))
  .flatMap((n) => readFileSync(join(dataDir, n), 'utf8').split('\n').filter(Boolean).slice(0, 3))
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const judgedRows = [
  judgedRow({ domain: 'web', id: 'a/b "c" é😀', turn: 3, dims: [4.5, 3, 0, 5, 1] }),
  judgedRow({ domain: 'os', id: 7, bare: true }),
  judgedRow({ domain: 'android', id: 12, usage: { prompt_tokens: 3, completion_tokens: 4, reasoning_tokens: 1 } }),
];

function checkAgainstParse(line: string, label: string): void {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  const bytes = b(line);
  const keys = new Set([...Object.keys(parsed), 'task', 'id', 'turn_idx', 'absent']);
  const at = topLevelValues(bytes, keys);
  assert.ok(at, `${label}: the walk gave up on valid JSON`);
  for (const k of keys) assert.deepEqual(parseSlice(bytes, at.get(k)), parsed[k], `${label}: key ${k}`);
  assert.deepEqual(parseSlice(bytes, firstTopLevelValue(bytes, 'task')), parsed.task, `${label}: task`);
  for (const k of ['prompt', 'response']) {
    const list = parsed[k];
    if (!Array.isArray(list)) continue;
    for (let i = 0; i <= list.length; i++) {
      assert.deepEqual(parseSlice(bytes, arrayElement(bytes, at.get(k)!, i)), list[i], `${label}: ${k}[${i}]`);
    }
  }
}

test('every spelling of the fixture and judged rows reads as JSON.parse reads it', () => {
  const rows = [...fixtureRows, ...judgedRows];
  assert.ok(fixtureRows.length >= 14);
  let n = 0;
  for (const [r, row] of rows.entries()) {
    for (let seed = 1; seed <= 12; seed++) {
      const opts = { repeatKeys: seed % 2 === 0, decoys: seed % 3 === 0 };
      const line = respell(row, seed * 1000 + r, opts);
      checkAgainstParse(line, `row ${r} seed ${seed}`);
      checkAgainstParse(`${line}\r`, `row ${r} seed ${seed} CRLF`);
      assert.deepEqual(JSON.parse(line), opts.decoys ? JSON.parse(line) : row);
      n++;
    }
  }
  assert.ok(n > 200);
});

test('keys written with \\u escapes, `\\/` and repeated keys: the decoded key and the last value count', () => {
  const line = b('{"t\\u0061sk": "a", "\\u0074\\u0061\\u0073\\u006B" : "agentworld\\/web", "i\\u0064": 5, "meta": {"task": "x"}}');
  const at = topLevelValues(line, wanted)!;
  assert.equal(parseSlice(line, at.get('task')), 'agentworld/web');
  assert.equal(parseSlice(line, firstTopLevelValue(line, 'task')), 'agentworld/web');
  assert.equal(parseSlice(line, at.get('id')), 5);
  assert.equal(topLevelValues(b('{"t\\x61sk": 1}'), wanted), undefined);
});

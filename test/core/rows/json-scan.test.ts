import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arrayElement, fieldScan, firstTopLevelValue, parseSlice, scanFields, topLevelValues } from '../../../src/core/rows/json-scan.js';
import { judgedRow } from '../../fixtures/judged/rows.js';
import { respell } from '../../support/respell.js';

const dataDir = fileURLToPath(new URL('../../../fixtures/data', import.meta.url));

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

/** scanFields, the one fast path of the score, modes and report readers, against JSON.parse. */
function checkFieldsAgainstParse(line: string, label: string): void {
  const parsed = JSON.parse(line) as Record<string, unknown>;
  const keys = [...Object.keys(parsed).filter((k) => k !== 'prompt' && k !== 'response' && k !== 'gen'), 'absent'];
  const scanned = scanFields({ bytes: b(line), terminated: true }, fieldScan(keys, { turnLists: ['prompt', 'response'], locate: ['gen'] }));
  assert.ok(scanned, `${label}: the scan gave up on valid JSON`);
  const { fields, at } = scanned;
  for (const k of keys) assert.deepEqual(fields[k], parsed[k], `${label}: key ${k}`);
  assert.ok(!('absent' in fields), `${label}: an absent key is left out`);
  // Located, not decoded.
  assert.equal(at.has('gen'), 'gen' in parsed, `${label}: gen located`);
  assert.ok(!('gen' in fields), `${label}: gen not decoded`);
  const turn = parsed.turn_idx as number;
  for (const k of ['prompt', 'response']) {
    const v = parsed[k];
    if (!Array.isArray(v)) {
      assert.deepEqual(fields[k], v, `${label}: ${k} whole`);
      continue;
    }
    const got = fields[k] as unknown[];
    assert.ok(Array.isArray(got), `${label}: ${k} is a list`);
    assert.deepEqual(got[turn - 1], v[turn - 1], `${label}: ${k}[${turn - 1}]`);
    // Only the evaluated turn is decoded.
    assert.deepEqual(Object.keys(got), v[turn - 1] === undefined ? [] : [String(turn - 1)], `${label}: ${k} holds one turn`);
  }
}

test('scanFields reads the values JSON.parse reads for every spelling of the fixture and judged rows, decoding one turn of each list', () => {
  let n = 0;
  for (const [r, row] of [...fixtureRows, ...judgedRows].entries()) {
    if (typeof row.turn_idx !== 'number') continue;
    for (let seed = 1; seed <= 12; seed++) {
      const line = respell(row, seed * 1000 + r, { repeatKeys: seed % 2 === 0, decoys: seed % 3 === 0 });
      checkFieldsAgainstParse(line, `row ${r} seed ${seed}`);
      n++;
    }
  }
  assert.ok(n > 150, `${n} lines`);
});

test('scanFields gives up (the caller parses whole) on a cut line, an unreadable line, a bad value or a bad turn_idx', () => {
  const scan = fieldScan(['task'], { turnLists: ['prompt'] });
  const ok = '{"task": "web", "turn_idx": 2, "prompt": ["a", "b", "c"]}';
  const fields = scanFields({ bytes: b(ok), terminated: true }, scan)!.fields;
  assert.deepEqual({ ...fields, prompt: undefined }, { task: 'web', turn_idx: 2, prompt: undefined });
  // The list keeps its place: element 1 only.
  assert.deepEqual(Object.entries(fields.prompt as string[]), [['1', 'b']]);
  assert.equal(scanFields({ bytes: b(ok), terminated: false }, scan), undefined);
  assert.equal(scanFields({ bytes: b('{"task": "web"'), terminated: true }, scan), undefined);
  assert.equal(scanFields({ bytes: b('{"task": tru, "turn_idx": 1}'), terminated: true }, scan), undefined);
  for (const turn of ['0', '1.5', '"1"', 'null']) {
    assert.equal(
      scanFields({ bytes: b(`{"task": "web", "turn_idx": ${turn}, "prompt": ["a"]}`), terminated: true }, scan),
      undefined,
      turn,
    );
  }
  // Without turn lists, turn_idx is not needed.
  assert.deepEqual(scanFields({ bytes: b('{"task": "web"}'), terminated: true }, fieldScan(['task']))?.fields, { task: 'web' });
});

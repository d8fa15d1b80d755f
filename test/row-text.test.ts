import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseRow } from '../src/core/rows/input.js';
import { rowKey } from '../src/core/rows/row-key.js';
import { decodeToken, NOT_DECODED, readRow, stringTokenEnd, type RowText } from '../src/core/rows/row-text.js';
import { datasetRowSchema } from '../src/core/schemas/dataset-row.js';
import { predictionRowSchema } from '../src/core/schemas/prediction-row.js';

const opts = { file: 'in.jsonl', lineNo: 4, terminated: true, added: [] as string[] };

function viaBytes(line: string, schema = datasetRowSchema, over: Partial<typeof opts> = {}) {
  return readRow(Buffer.from(line), schema, { ...opts, ...over });
}

/** Whether the row came from the byte path: its long texts were left undecoded. */
function fromBytes(row: { prompt: string[]; response: string[] }): boolean {
  return [...row.prompt, ...row.response].includes(NOT_DECODED);
}

/** Every text of a row through RowText, to compare with JSON.parse's. */
function texts(text: RowText, n: number) {
  const out: Record<string, unknown> = {};
  for (const f of ['system_str', 'current_prompt', 'gen', 'task']) out[f] = text.field(f) && decodeToken(text.field(f));
  for (const l of ['prompt', 'response'] as const)
    out[l] = Array.from({ length: n }, (_, i) => text.item(l, i) && decodeToken(text.item(l, i)));
  return out;
}

function assertSameAsParse(line: string, schema = datasetRowSchema) {
  const got = viaBytes(line, schema);
  const want = parseRow(line, schema, opts.file, opts.lineNo);
  assert.ok(got.ok && want.ok, line.slice(0, 200));
  assert.equal(got.key, rowKey(line, want.row));
  const parsed = want.parsed as Record<string, unknown>;
  const n = Math.max(want.row.prompt.length, want.row.response.length) + 1;
  const expected: Record<string, unknown> = {};
  for (const f of ['system_str', 'current_prompt', 'gen', 'task']) expected[f] = typeof parsed[f] === 'string' ? parsed[f] : undefined;
  for (const l of ['prompt', 'response'] as const) expected[l] = Array.from({ length: n }, (_, i) => want.row[l][i]);
  assert.deepEqual(texts(got.text, n), expected);
  for (const [k, v] of Object.entries(want.row)) {
    if (!['prompt', 'response', 'system_str', 'current_prompt', 'gen', 'gen_reasoning'].includes(k))
      assert.deepEqual((got.row as Record<string, unknown>)[k], v, k);
  }
  return got;
}

const base = {
  task: 'search',
  id: 12,
  prompt: ['find "cats"', 'open 2'],
  response: ['results\nline 2', 'page'],
  current_prompt: 'open 2',
  system_str: 'You are a search engine.',
  turn_idx: 2,
  total_turns: 3,
};

test('the byte path gives the same row, texts and key as JSON.parse, and leaves the long texts undecoded', () => {
  const got = assertSameAsParse(JSON.stringify(base));
  assert.ok(got.ok && fromBytes(got.row));
});

test('escapes of every kind, raw U+2028, CJK, astral and lone surrogates, and spacing survive the byte path', () => {
  const line = `{ "task" : "search", "id":"a:b", "prompt":[ "caf\\u00e9 \\/ \\"q\\" \\\\ \\b\\f\\n\\r\\t" , "\u2028\u2029 中文 😀" ],
    "response":["\\ud800 lone", "\\ud83d\\ude00 pair"], "current_prompt":"", "system_str":"\\u0000x", "turn_idx":2, "extra":{"a":[1,2]} }\r`.replace(
    '\n',
    ' ',
  );
  const got = assertSameAsParse(line);
  assert.ok(got.ok && fromBytes(got.row));
});

test('an id beyond 2^53 keeps its exact digits in the key', () => {
  const line = JSON.stringify({ ...base, id: 0 }).replace('"id":0', '"id":12345678901234567891');
  const got = assertSameAsParse(line);
  assert.ok(got.ok && got.key.includes(':12345678901234567891:'), got.ok ? got.key : '');
});

test('prediction rows: gen and its absence, null and empty, read the same way', () => {
  for (const gen of ['<think>x</think>obs "q"', '', null]) {
    const got = assertSameAsParse(JSON.stringify({ ...base, gen, usage: { prompt_tokens: 3 } }), predictionRowSchema);
    assert.ok(got.ok);
    assert.equal(Boolean(got.row.gen), Boolean(gen));
  }
});

test('unusual but valid lines fall back to JSON.parse and still work', () => {
  for (const line of [
    JSON.stringify({ ...base, prompt: 'one action', response: 'one observation', turn_idx: 1 }),
    JSON.stringify(base).replace('{', '{"task":"mcp",'),
    JSON.stringify(base).replace('{', '{"__proto__":{"x":1},'),
  ]) {
    const got = viaBytes(line);
    assert.ok(got.ok, line);
    assert.ok(!fromBytes(got.row), line);
  }
});

test('rows that already carry an added field go through JSON.parse with their text kept', () => {
  const line = JSON.stringify({ ...base, gen: 'x' });
  const got = viaBytes(line, predictionRowSchema, { added: ['gen'] });
  assert.ok(got.ok && got.line?.text === line);
});

test('invalid lines get the same one-line error as before, whatever the byte path saw', () => {
  const cases: [string, RegExp][] = [
    [JSON.stringify(base).replace('results', 'bad \\x escape'), /^in\.jsonl:4: not valid JSON/],
    [JSON.stringify(base).replace('results', 'raw \u0001 control'), /^in\.jsonl:4: not valid JSON/],
    [JSON.stringify(base).replace('"open 2"]', '"open 2",]'), /^in\.jsonl:4: not valid JSON/],
    [JSON.stringify(base) + ' x', /^in\.jsonl:4: not valid JSON/],
    [JSON.stringify({ ...base, prompt: ['a', 7] }), /^in\.jsonl:4: prompt\.1: /],
    [JSON.stringify({ ...base, turn_idx: 5 }), /^in\.jsonl:4: turn_idx: is 5 but response has 2/],
    [JSON.stringify({ ...base, task: '' }), /^in\.jsonl:4: task: /],
  ];
  for (const [line, message] of cases) {
    const got = viaBytes(line);
    assert.ok(!got.ok, line);
    assert.match(got.bad.message, message);
  }
});

test('invalid UTF-8 is read as JSON.parse reads it (replacement characters), never passed on raw', () => {
  const [before, after] = JSON.stringify(base).split('page');
  const line = Buffer.concat([Buffer.from(`${before}pa`), Buffer.from([0xff]), Buffer.from(after!)]);
  const got = readRow(line, datasetRowSchema, opts);
  assert.ok(got.ok && !fromBytes(got.row));
  assert.equal(decodeToken(got.text.item('response', 1)), 'pa\ufffd');
});

test('string tokens: accepted exactly when JSON.parse accepts them', () => {
  const samples = ['""', '"a"', '"\\u12aF"', '"\\u12g0"', '"\\x"', '"\\', '"abc', '"a\tb"', '"\\"', '"\\\\"', '"\u2028"', '"\\/"'];
  for (const s of samples) {
    let ok = true;
    try {
      JSON.parse(s);
    } catch {
      ok = false;
    }
    const b = Buffer.from(s);
    assert.equal(stringTokenEnd(b, 0) === b.length, ok, s);
  }
});

test('every fixture row reads the same through bytes as through JSON.parse', () => {
  const dir = 'fixtures/data';
  let n = 0;
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      assertSameAsParse(line);
      n++;
    }
  }
  assert.ok(n >= 20, `${n} rows`);
});

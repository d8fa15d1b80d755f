import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JoinedText, jsonBytes } from '../../../../src/core/endpoints/http/json-bytes.js';

/** What the request body would be as the plain reference: JSON.stringify, encoded as UTF-8. */
const reference = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

/** A long text of `n` characters drawn from `alphabet`, deterministic. */
function text(n: number, alphabet: string[], seed = 1): string {
  let s = '';
  let x = seed;
  while (s.length < n) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    s += alphabet[x % alphabet.length];
  }
  return s;
}

const hard = [
  'a',
  'Z',
  ' ',
  '\n',
  '\r',
  '\t',
  '"',
  '\\',
  '/',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '中',
  '\u2028',
  '\u2029',
  '😀',
  '\ud800',
  '\udfff',
  '<',
  '>',
  '&',
  "'",
];

test('a request body is byte for byte what Buffer.from(JSON.stringify(body)) gives, long texts included', () => {
  // 20 K of these characters are over 64 KB of UTF-8, 600 K over 1 MB: such bodies go into memory of their own (OWN_PAGES).
  for (const n of [0, 1, 16_383, 16_384, 16_385, 40_000, 200_000, 600_000]) {
    const long = text(n, hard, n + 7);
    const body = {
      model: 'm',
      messages: [
        { role: 'system', content: 'rubric "quoted"' },
        { role: 'user', content: long },
      ],
      temperature: 0.6,
      max_tokens: undefined,
      stop: ['\n', undefined],
      extra: { nested: [1, 2.5, -0, 1e21, NaN, Infinity, null, true, false], empty: {}, list: [] },
    };
    const bytes = jsonBytes(body);
    assert.ok(bytes.equals(reference(body)), `length ${n}`);
    // Only a body over 64 KB lies in memory of its own (ES2024's resizable ArrayBuffer), a small one in Node's pool or malloc.
    assert.equal((bytes.buffer as { resizable?: boolean }).resizable, bytes.length > 65_536, `length ${n}`);
  }
});

test('a surrogate pair at the edge of a part is sent as the character, not as two escaped halves', () => {
  // Every offset of the pair around the 16 K boundary, where the parts are cut.
  for (let pad = 16_380; pad <= 16_386; pad++) {
    const value = `${'x'.repeat(pad)}😀${'y'.repeat(20_000)}`;
    const got = jsonBytes(value);
    assert.ok(got.equals(reference(value)), `pad ${pad}`);
    assert.ok(got.includes(Buffer.from('😀')));
  }
});

test('a text kept in pieces is sent as the one string its pieces make', () => {
  const pieces = ['# Earlier turns\n\n', text(50_000, hard, 3), '\n', '', text(17_000, hard, 4), '"end"'];
  const joined = new JoinedText(pieces);
  const body = { messages: [{ role: 'user', content: joined }] };
  const got = jsonBytes(body);
  assert.ok(got.equals(reference({ messages: [{ role: 'user', content: pieces.join('') }] })));
  // JSON.stringify and text see the joined text too, as a batch file or a token estimate would.
  assert.equal(JSON.stringify(joined), JSON.stringify(pieces.join('')));
  assert.equal(String(joined), pieces.join(''));
  assert.deepEqual(JSON.parse(got.toString('utf8')), JSON.parse(JSON.stringify(body)));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hashToken, longestBacktickRun, mayHoldTag, trimmedInner, unescapeToken } from '../src/core/rows/json-text.js';
import { cleanGroundTruth, cleanGroundTruthToken } from '../src/core/judge/prediction-text.js';
import { mulberry32 } from '../src/core/score/bootstrap.js';

/** Random strings rich in what makes escaping hard: quotes, backslashes, controls, surrogates, spaces of every kind. */
function randomStrings(n: number, seed = 7): string[] {
  const rand = mulberry32(seed);
  const alphabet = [
    'a',
    'Z',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\r',
    '\t',
    '\f',
    '\b',
    '\u000b',
    '\u0000',
    '\u001b',
    '`',
    '```',
    '<',
    '>',
    'é',
    '中',
    '\u00a0',
    '\u2028',
    '\u3000',
    '\ufeff',
    '\ud83d\ude00',
    '\ud800',
    '\udc00',
    'predicted_observation',
    '<predicted_observation>',
    '</PREDICTED_observation>',
    'u00',
  ];
  return Array.from({ length: n }, () =>
    Array.from({ length: Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''),
  );
}

/** The same string spelled two ways in JSON: as JSON.stringify writes it, and with every character escaped as \uXXXX. */
function spellings(s: string): Buffer[] {
  const allEscaped = `"${[...s].map((c) => [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')).join('')}"`;
  const utf16Escaped = `"${Array.from({ length: s.length }, (_, i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`;
  return [
    Buffer.from(JSON.stringify(s)),
    Buffer.from(allEscaped),
    Buffer.from(utf16Escaped),
    Buffer.from(JSON.stringify(s).replace(/\//g, '\\/')),
  ];
}

test('unescaping gives the UTF-8 of the decoded string, and hashing matches hashing the string', () => {
  for (const s of randomStrings(3000)) {
    for (const token of spellings(s)) {
      const out = Buffer.alloc(token.length);
      const n = unescapeToken(token, out);
      assert.deepEqual(out.subarray(0, n), Buffer.from(JSON.parse(token.toString()) as string), token.toString());
      const h = createHash('sha1');
      hashToken(h, token, (size) => Buffer.alloc(size));
      assert.equal(
        h.digest('hex'),
        createHash('sha1')
          .update(JSON.parse(token.toString()) as string)
          .digest('hex'),
      );
    }
  }
});

test('trimming escaped text gives what trim() gives, however the ends are spelled', () => {
  for (const s of randomStrings(3000, 11)) {
    for (const token of spellings(s)) {
      assert.equal(JSON.parse(`"${trimmedInner(token).toString()}"`), (JSON.parse(token.toString()) as string).trim(), token.toString());
    }
  }
  assert.deepEqual(trimmedInner(Buffer.from('"\\n  obs\\\\n \\t\\u3000"')), Buffer.from('obs\\\\n'));
});

test('backtick runs and tags are found however the text is spelled, or the byte path declines', () => {
  for (const s of randomStrings(2000, 3)) {
    const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
    const tagged = /<\/?predicted_observation>/i.test(s);
    for (const token of spellings(s)) {
      const run = longestBacktickRun(token);
      if (run !== undefined) assert.equal(run, longest, token.toString());
      if (tagged) assert.ok(mayHoldTag(token, 'predicted_observation'), token.toString());
    }
  }
  assert.equal(mayHoldTag(Buffer.from('"<Predicted_Observation>x"'), 'predicted_observation'), true);
  assert.equal(mayHoldTag(Buffer.from('"<predicted_observations> and predicted_observation"'), 'predicted_observation'), false);
});

test('the ground truth shown to the judge is the same from its token as from its decoded string', () => {
  for (const s of [
    ...randomStrings(2000, 5),
    '  plain observation\n',
    '<predicted_observation>inner</predicted_observation>',
    'a ```` b',
  ]) {
    for (const token of spellings(s)) {
      const got = cleanGroundTruthToken(token);
      const text = typeof got === 'string' ? got : (JSON.parse(`"${got.escaped.toString()}"`) as string);
      assert.equal(text, cleanGroundTruth(JSON.parse(token.toString()) as string), token.toString());
    }
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lineKey, readRow } from '../../../src/core/rows/index.js';
import { datasetRowSchema } from '../../../src/core/schemas/index.js';
import { respell } from '../../support/respell.js';

/*
 * A resume matches the rows it plans with the rows already finished by
 * lineKey, read from a few values of the line; the rows it sends are keyed by
 * readRow. The two must agree on every row readRow accepts, however it is
 * spelled, or a finished row would be sent again (or a row passed over).
 */
const dataDir = fileURLToPath(new URL('../../../fixtures/data', import.meta.url));
const fixtureRows = readdirSync(dataDir)
  .filter((n) => n.endsWith('.jsonl'))
  .flatMap((n) => readFileSync(join(dataDir, n), 'utf8').split('\n').filter(Boolean))
  .map((l) => JSON.parse(l) as Record<string, unknown>);

function keyOfRead(line: string): string {
  const read = readRow(Buffer.from(line), datasetRowSchema, { file: 'f', lineNo: 1, terminated: true });
  assert.ok(read.ok, read.ok ? '' : read.bad.message);
  return read.key;
}

test('lineKey gives the key readRow gives, for every fixture row in many spellings', () => {
  assert.ok(fixtureRows.length >= 20);
  for (const [r, row] of fixtureRows.entries()) {
    for (let seed = 1; seed <= 8; seed++) {
      const line = respell(row, seed * 977 + r, { repeatKeys: seed % 2 === 0, decoys: seed % 3 === 0 });
      assert.equal(lineKey(Buffer.from(line))?.key, keyOfRead(line), `row ${r} seed ${seed}`);
    }
  }
});

test('lineKey follows readRow where the key takes another field: an empty or missing action, bare strings, odd ids', () => {
  const base = {
    task: 'agentworld/terminal',
    id: 'traj-1',
    prompt: ['ls', 'cat a\u2028b 中文'],
    response: ['a b', '😀 "quoted" \\ done'],
    current_prompt: 'cat a',
    system_str: 'You are a shell.',
    turn_idx: 2,
  };
  const variants: Record<string, unknown>[] = [
    base,
    { ...base, current_prompt: '' },
    { ...base, current_prompt: undefined },
    { ...base, system_str: undefined },
    { ...base, prompt: 'one action', response: 'one observation', turn_idx: 1 },
    { ...base, prompt: ['only one'], current_prompt: 'the action', turn_idx: 2 },
    { ...base, id: 7 },
    { ...base, id: 0 },
  ];
  for (const [i, v] of variants.entries()) {
    const line = JSON.stringify(v);
    assert.equal(lineKey(Buffer.from(line))?.key, keyOfRead(line), `variant ${i}`);
  }
  // An id beyond 2^53 is kept as written, by both.
  const big = JSON.stringify(base).replace('"id":"traj-1"', '"id":12345678901234567890');
  assert.equal(lineKey(Buffer.from(big))?.key, keyOfRead(big));
  assert.match(lineKey(Buffer.from(big))!.key, /:12345678901234567890:2:/);
  // Different ground truths make different keys (the duplicated android pair), the history does not.
  const other = JSON.stringify({ ...base, response: ['a b', 'another truth'] });
  const history = JSON.stringify({ ...base, prompt: ['pwd', 'cat a\u2028b 中文'], response: ['elsewhere', base.response[1]] });
  assert.notEqual(lineKey(Buffer.from(other))?.key, lineKey(Buffer.from(JSON.stringify(base)))?.key);
  assert.equal(lineKey(Buffer.from(history))?.key, lineKey(Buffer.from(JSON.stringify(base)))?.key);
});

test('lineKey gives up on lines whose key fields are missing or of the wrong type: those are read whole and checked', () => {
  const base = { task: 'os', id: 1, prompt: ['a'], response: ['b'], turn_idx: 1 };
  const unreadable = [
    'not json',
    '[1, 2]',
    JSON.stringify({ ...base, task: 5 }),
    JSON.stringify({ ...base, task: undefined }),
    JSON.stringify({ ...base, turn_idx: 0 }),
    JSON.stringify({ ...base, turn_idx: 1.5 }),
    JSON.stringify({ ...base, turn_idx: '1' }),
    JSON.stringify({ ...base, id: null }),
    JSON.stringify({ ...base, id: '' }),
    JSON.stringify({ ...base, system_str: null }),
    JSON.stringify({ ...base, current_prompt: 3 }),
    JSON.stringify({ ...base, prompt: undefined }),
    JSON.stringify({ ...base, response: undefined }),
    JSON.stringify({ ...base, prompt: [5] }),
    JSON.stringify({ ...base, response: [{ text: 'b' }] }),
  ];
  for (const line of unreadable) assert.equal(lineKey(Buffer.from(line))?.key, undefined, line);
  assert.equal(typeof lineKey(Buffer.from(JSON.stringify(base)))?.key, 'string');
  // The other values come as JSON.parse reads them, each decoded alone.
  const keyed = lineKey(Buffer.from(JSON.stringify({ ...base, gen: 'a "b" 中文', usage: { n: 1 } })))!;
  assert.equal(keyed.value('gen'), 'a "b" 中文');
  assert.deepEqual(keyed.value('usage'), { n: 1 });
  assert.equal(keyed.value('absent'), undefined);
});

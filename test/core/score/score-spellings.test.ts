import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { scoreFiles, type ScoreReport } from '../../../src/core/score/index.js';
import { readJudged } from '../../../src/core/score/index.js';
import { judgedFixtures, judgedRow, tempDir } from '../../fixtures/judged/rows.js';
import { respell, type RespellOptions } from '../../support/respell.js';

/*
 * Score reads only the values it needs from each line's bytes. Whatever
 * byte spelling a judged file uses, the report must be the one of the plain
 * spelling, and the one of the file as JSON.parse reads it (each line parsed
 * and written back out).
 */

const dir = tempDir('awb-score-spellings-');

const rows = judgedFixtures();

function write(name: string, lines: string[], eol = '\n'): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => l + eol).join(''));
  return path;
}

function respelled(name: string, seed: number, opts: RespellOptions, eol: string): string {
  return write(
    name,
    rows.map((row, i) => respell(row, seed * 10_000 + i, opts)),
    eol,
  );
}

/** The file as JSON.parse reads it, written back out in JSON.stringify's spelling. */
function reparsed(name: string, from: string): string {
  const lines = readFileSync(from, 'utf8').split('\n').filter(Boolean);
  return write(
    name,
    lines.map((l) => JSON.stringify(JSON.parse(l))),
  );
}

async function report(path: string): Promise<ScoreReport> {
  const r = await scoreFiles({
    files: [path],
    failuresAsLowest: false,
    bootstrap: { resamples: 200, seed: 1 },
    withPublished: false,
    prices: { infer: { input: 1, output: 2 }, judge: { input: 1, output: 2 } },
    byTurn: true,
  });
  // The file's own name (and the label made from it) is the one thing allowed to differ.
  for (const run of r.runs) Object.assign(run, { file: 'FILE', label: 'LABEL' });
  assert.ok(!JSON.stringify(r, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(path));
  return r;
}

describe('score reads any spelling of a judged file as the plain one', () => {
  const plain = write(
    'plain.jsonl',
    rows.map((r) => JSON.stringify(r)),
  );

  it('has rows in several domains, turns, failed and empty rows', async () => {
    const r = await report(plain);
    assert.ok(rows.length > 20);
    assert.equal(r.domains.length, 7);
  });

  for (let seed = 1; seed <= 8; seed++) {
    const opts: RespellOptions = { repeatKeys: seed % 2 === 0, decoys: seed % 3 !== 0 };
    const eol = seed % 4 === 1 ? '\r\n' : '\n';
    it(`spelling ${seed} (${JSON.stringify(opts)}, ${JSON.stringify(eol)})`, async () => {
      const expected = await report(plain);
      const file = respelled(`respelled-${seed}.jsonl`, seed, opts, eol);
      assert.notEqual(readFileSync(file, 'utf8'), readFileSync(plain, 'utf8'));
      assert.deepEqual(await report(file), expected);
      assert.deepEqual(await report(reparsed(`reparsed-${seed}.jsonl`, file)), expected);
    });
  }
});

describe('score: the row key of a line read by JSON.parse', () => {
  it('keeps an id beyond 2^53 exactly even when another key is repeated (a last line without its newline)', async () => {
    const line = (id: string, extra: string) =>
      JSON.stringify(judgedRow({ domain: 'mcp', id: 1 })).replace('"id":1,', `"id":${id},${extra}`);
    const path = join(dir, 'big-id.jsonl');
    // Two ids JSON.parse reads as the same double; the second line repeats "gen" and has no newline.
    writeFileSync(path, `${line('123456789012345678900', '')}\n${line('123456789012345678901', '"gen":"x",')}`);
    const judged = await readJudged(path);
    assert.deepEqual(
      judged.records.map((r) => r.cluster),
      ['mcp:123456789012345678900', 'mcp:123456789012345678901'],
    );
  });
});

describe('a --repeat row is read from its bytes like any other', () => {
  it('takes its mean grades to sixtieths without decoding the line (a raw tab in a history it never reads is no error)', async () => {
    const dir = tempDir();
    const row = { ...judgedRow({ turn: 2 }), judge_repeats: [{ total_score: 4 }] };
    // Means of 7 repeats are not whole sixtieths; the raw tab makes the line invalid for JSON.parse.
    Object.assign(row, { total_score: 23 / 7, format: 23 / 7, prompt: ['an\u0001earlier action', 'the action'] });
    const path = join(dir, 'repeat.jsonl');
    writeFileSync(path, JSON.stringify(row).replace('\\u0001', '\t') + '\n');
    const { records } = await readJudged(path);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.total, Math.round((23 / 7) * 60));
  });
});

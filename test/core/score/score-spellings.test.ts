import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { scoreFiles, type ScoreReport } from '../../../src/core/score/index.js';
import { readJudged } from '../../../src/core/score/judged-reader.js';
import { judgedRow, tempDir } from '../../fixtures/judged/rows.js';
import { mulberry32 } from '../../../src/core/score/bootstrap.js';
import { respell, type RespellOptions } from '../../support/respell.js';
import { awb } from '../../support/cli.js';

/*
 * Score reads only the values it needs from each line's bytes. Whatever
 * byte spelling a judged file uses, the report must be the one of the plain
 * spelling, and the one of the file as JSON.parse reads it (each line parsed
 * and written back out).
 */

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dataDir = join(root, 'fixtures/data');
const dir = tempDir('awb-score-spellings-');

/** The fixture dataset judged with grades drawn from a seed: real histories, several turns, failed and empty rows. */
function judgedFixtures(): Array<Record<string, unknown>> {
  const r = mulberry32(7);
  const grade = () => [0, 1, 2, 3, 4, 5, 4.5, 3.5][Math.floor(r() * 8)]!;
  const rows = readdirSync(dataDir)
    .filter((n) => n.endsWith('_test.jsonl'))
    .flatMap((n) => readFileSync(join(dataDir, n), 'utf8').split('\n').filter(Boolean))
    .map((line, i) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      if (i % 11 === 5) return { ...row, gen: '', failed: 1.0, error_message: 'No model generation' };
      const dims = [grade(), grade(), grade(), grade(), grade()].map((d) => (d % 1 ? Math.round(d) : d));
      const positive = dims.filter((d) => d > 0);
      const failed = i % 13 === 3 || positive.length === 0;
      const total = failed ? 0 : positive.reduce((a, b) => a + b, 0) / positive.length;
      const [format, factuality, consistency, realism, quality] = failed ? [0, 0, 0, 0, 0] : dims;
      return {
        ...row,
        gen: `<predicted_observation>turn ${String(row.turn_idx)} / é 😀</predicted_observation>`,
        total_score: total,
        format,
        factuality,
        consistency,
        realism,
        quality,
        failed: failed ? 1.0 : 0.0,
        strengths: ['a "quoted" strength'],
        weaknesses: [],
        judge_usage: { prompt_tokens: 10 + i, completion_tokens: 5 },
      };
    });
  return [
    ...rows,
    judgedRow({ domain: 'web', id: 'a/b "c" é😀', turn: 2, dims: [4, 3, 0, 5, 1] }),
    judgedRow({ domain: 'os', id: 'x\u2028y', turn: 1, usage: { prompt_tokens: 3, completion_tokens: 4, reasoning_tokens: 1 } }),
  ];
}

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

describe('awb score (end to end) on a respelled file', () => {
  it('prints the same JSON as for the plain file', async () => {
    assert.ok(existsSync(join(root, 'dist/commands/results/score.js')), 'run `npm run build` first');
    // The same base name in two folders, since the label shown is the file's name.
    mkdirSync(join(dir, 'plain'));
    mkdirSync(join(dir, 'odd'));
    const plain = write(
      'plain/judged.jsonl',
      rows.map((r) => JSON.stringify(r)),
    );
    const odd = respelled('odd/judged.jsonl', 99, { repeatKeys: true, decoys: true }, '\r\n');
    const score = async (path: string) => {
      const r = await awb('score', path, '--format', 'json', '--by', 'turn');
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.replaceAll(path, 'FILE');
    };
    const expected = await score(plain);
    assert.match(expected, /"rows": 30,/);
    assert.equal(await score(odd), expected);
  });
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

/*
 * score, rows, compare and judge on odd judged files made by hand: each
 * command says the same thing about the same file, and the figures are the
 * official script's, worked out by hand below.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { awb } from '../../support/cli.js';

const dir = tempDir('awb-held-out-');

/** The one line a refusal prints, the same from each command that reads the file. */
async function refusals(file: string, ...commands: string[][]): Promise<string[]> {
  const said: string[] = [];
  for (const args of commands) {
    const r = await awb(...args, file);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    said.push(r.stderr);
  }
  return said;
}

const line = (r: Record<string, unknown>) => JSON.stringify(r);

describe('one file, one verdict', () => {
  it('a line given twice is refused by rows at its line, as score, report and compare refuse it, not listed twice', async () => {
    const a = line(judgedRow({ id: 1, dims: [4, 4, 4, 4, 4] }));
    const b = line(judgedRow({ id: 2, dims: [3, 3, 3, 3, 3] }));
    const file = join(dir, 'twice.jsonl');
    writeFileSync(file, `${a}\n${b}\n${a}\n`);
    const other = writeJudged(dir, 'other.jsonl', [judgedRow({ id: 1 })]);
    const said = await refusals(file, ['score'], ['rows'], ['rows', '--worst', '1'], ['rows', '--format', 'json'], ['compare', other]);
    for (const s of said) assert.match(s, /^awb: .*twice\.jsonl:3: the same row as line 1 \(task, id, turn_idx and content match\)/);
  });

  it('a judged row without `failed` is refused at its line and field by every reader, not counted as failed without a word', async () => {
    const { failed: _failed, ...graded } = judgedRow({ id: 2, dims: [5, 5, 5, 5, 5] });
    const file = writeJudged(dir, 'no-failed.jsonl', [judgedRow({ id: 1 }), graded]);
    const said = await refusals(file, ['score'], ['rows'], ['rows', '--failed']);
    for (const s of said)
      assert.match(s, /^awb: .*no-failed\.jsonl:2: failed: is missing; .*the official script counts a row without it as failed\n$/);
    // A row with grades but neither failed nor total_score is a judged row missing its field, not a predictions file.
    const { failed: _f, total_score: _t, ...gradesOnly } = judgedRow({ id: 1 });
    const first = writeJudged(dir, 'grades-only.jsonl', [gradesOnly]);
    assert.match((await refusals(first, ['score']))[0]!, /grades-only\.jsonl:1: failed: is missing/);
    // null is no answer either (the official script would count the row failed).
    const nul = writeJudged(dir, 'failed-null.jsonl', [{ ...judgedRow({ id: 1 }), failed: null }]);
    assert.match((await refusals(nul, ['score'], ['rows']))[1]!, /failed-null\.jsonl:1: failed: must be 0 \(graded\) or 1 \(failed\), or false or true; got null\n$/);
  });

  it('a `failed` that is no flag (0.5, 2, "no") is refused at its line and field by every reader, not read as failed', async () => {
    const other = writeJudged(dir, 'flag-other.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2 })]);
    for (const [name, value] of [
      ['half', 0.5],
      ['two', 2],
      ['word', 'no'],
    ] as const) {
      const file = writeJudged(dir, `failed-${name}.jsonl`, [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), failed: value }]);
      const said = await refusals(
        file,
        ['score'],
        ['rows'],
        ['rows', '--failed'],
        ['report', '--output', join(dir, `${name}.html`)],
        ['compare', other],
      );
      const shown = JSON.stringify(value).replace(/[.]/g, '\\.');
      for (const s of said) assert.match(s, new RegExp(`^awb: .*failed-${name}\\.jsonl:2: failed: must be 0 \\(graded\\) or 1 \\(failed\\), or false or true; got ${shown}\\n$`));
    }
    // The official script's 1.0 and booleans are flags: read, not refused.
    const official = writeJudged(dir, 'failed-official.jsonl', [{ ...judgedRow({ id: 1 }), failed: true, total_score: 0 }, { ...judgedRow({ id: 2 }), failed: false }]);
    const r = await awb('score', '--format', 'json', official);
    assert.equal(r.code, 0, r.stderr);
  });

  it('a file whose lines end in CR alone is refused in one line saying so, by every reader; CRLF still reads', async () => {
    const rows = [judgedRow({ id: 1, dims: [4, 4, 4, 4, 4] }), judgedRow({ id: 2, dims: [2, 2, 2, 2, 2] })].map(line);
    const mac = join(dir, 'mac.jsonl');
    writeFileSync(mac, `${rows.join('\r')}\r`);
    const said = await refusals(mac, ['score'], ['rows'], ['report', '--output', join(dir, 'mac.html')]);
    for (const s of said)
      assert.match(s, /^awb: .*mac\.jsonl: its lines end in CR only \(old Mac line endings\), so it reads as one line; /);
    const judge = await awb(
      'judge',
      '--predictions',
      mac,
      '--judge-base-url',
      'http://127.0.0.1:9/v1',
      '--judge-model',
      'j',
      '--output',
      join(dir, 'mac-judged.jsonl'),
    );
    assert.equal(judge.code, 2, judge.stderr);
    assert.match(judge.stderr, /mac\.jsonl: its lines end in CR only/);

    const windows = join(dir, 'windows.jsonl');
    writeFileSync(windows, `\ufeff${rows.join('\r\n')}\r\n`);
    const r = await awb('score', windows, '--format', 'json', '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).runs[0].overall.macro.score, 50);
  });

  it('a file with no rows (empty, blank lines, a byte order mark alone) is said to have none by rows too, not "no rows match"', async () => {
    const files: Array<[string, string]> = [
      ['empty.jsonl', ''],
      ['blank.jsonl', '\n  \n\r\n'],
      ['bom.jsonl', '\ufeff'],
    ];
    for (const [name, text] of files) {
      const file = join(dir, name);
      writeFileSync(file, text);
      const other = writeJudged(dir, 'one.jsonl', [judgedRow({ id: 1 })]);
      const [rows, compare, score] = await refusals(file, ['rows'], ['compare', other], ['score']);
      assert.equal(rows, compare);
      assert.match(rows!, new RegExp(`${name.replace('.', '\\.')}: no judged rows \\(the file has no rows\\)\n$`));
      assert.match(score!, /no valid judged rows \(the file has no rows\)/);
    }
  });

  it('a task whose last "/" segment is empty names no domain: refused at its line, not scored as a domain called ""', async () => {
    const file = writeJudged(dir, 'no-domain.jsonl', [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), task: 'agentworld/' }]);
    for (const s of await refusals(file, ['score'], ['rows']))
      assert.match(s, /no-domain\.jsonl:2: task: names no domain \(its part after the last "\/" is empty\)\n$/);
  });

});

describe('a hand-made file scored as the official script scores it', () => {
  it('valid rows whose total_score is 0 leave their domain out of Overall, and the note does not call them failed', async () => {
    const file = writeJudged(dir, 'no-total.jsonl', [judgedRow({ domain: 'mcp', id: 1 }), judgedRow({ domain: 'web', id: 1, total: 0 })]);
    const r = await awb('score', file, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Note: no-total\.jsonl: no valid rows with a total_score in Web, so its Overall leaves that domain out \(macro: 1 of 2 domains\)$/m,
    );
  });

  /*
   * mcp: [5,4,3,4,4] total 4 and [3,3,3,3,3] total 3 -> total 3.5 -> 62.50,
   *   format (5+3)/2 = 4 -> 75.00, consistency 3 -> 50.00
   * android: one id and turn twice, as two distinct rows (different truths): 4 and 2 -> 3 -> 50.00
   * termnal (a typo): 5 -> 100.00, a column of its own, with a note
   * web: 4.0 everywhere, a 2 MB history, raw U+2028/U+2029 in its texts -> 75.00; a row without generation: failed
   * macro (62.5 + 50 + 100 + 75) / 4 = 71.875 -> 71.88 (half to even, as Python prints it)
   * micro (4 + 3 + 4 + 2 + 5 + 4) / 6 = 11/3 -> 66.67; 6 of 7 valid
   */
  it('tables, JSON and CSV agree with the hand computation, through a BOM, blank lines and a last line without newline', async () => {
    const rows = [
      judgedRow({ domain: 'mcp', id: 1, dims: [5, 4, 3, 4, 4] }),
      judgedRow({ domain: 'mcp', id: 2, dims: [3, 3, 3, 3, 3] }),
      { ...judgedRow({ domain: 'android', id: 7, dims: [4, 4, 4, 4, 4] }), response: ['obs A'] },
      { ...judgedRow({ domain: 'android', id: 7, dims: [2, 2, 2, 2, 2] }), response: ['obs B'] },
      judgedRow({ domain: 'termnal', id: 1, dims: [5, 5, 5, 5, 5] }),
      {
        ...judgedRow({ domain: 'web', id: 3, dims: [4, 4, 4, 4, 4] }),
        prompt: ['x'.repeat(2_000_000) + '\u2028'],
        gen: 'a\u2028b\u2029c',
      },
      judgedRow({ domain: 'web', id: 4, bare: true }),
    ];
    const file = join(dir, 'hand.jsonl');
    writeFileSync(file, `\ufeff${rows.map(line).join('\n')}\n\n${line(judgedRow({ domain: 'mcp', id: 9, bare: true }))}`);
    const json = await awb('score', file, '--no-ci', '--format', 'json');
    assert.equal(json.code, 0, json.stderr);
    const run = JSON.parse(json.stdout).runs[0];
    const texts = Object.fromEntries(Object.entries(run.domains).map(([d, v]) => [d, (v as { text: string }).text]));
    assert.deepEqual(texts, { mcp: '62.50', android: '50.00', web: '75.00', termnal: '100.00' });
    assert.equal(run.domains.mcp.dimensions.format.text, '75.00');
    assert.equal(run.domains.mcp.dimensions.consistency.text, '50.00');
    assert.deepEqual([run.overall.macro.text, run.overall.micro.text, run.rows, run.valid], ['71.88', '66.67', 8, 6]);
    const csv = await awb('score', file, '--no-ci', '--format', 'csv');
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stdout, /,overall_macro,all,8,6,2,,71\.875,71\.88,/);
    assert.match(csv.stdout, /,overall_micro,all,8,6,2,3\.6666666666666665,66\.66666666666666,66\.67,/);
    assert.match(
      csv.stderr,
      /^awb: note: "termnal" is not an AgentWorldBench domain \(mcp, search, terminal, swe, android, web, os\), yet it is scored as one/m,
    );
    const table = await awb('score', file, '--no-ci');
    assert.match(table.stdout, /^hand\.jsonl +62\.50 +50\.00 +75\.00 +100\.00 +71\.88 +66\.67$/m);
    assert.match(table.stdout, /^Note: "termnal" is not an AgentWorldBench domain/m);
  });
});

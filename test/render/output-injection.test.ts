/*
 * What an output's reader would act on, neutralised in every format: a CSV
 * cell a spreadsheet would run as a formula, markdown a label could turn into
 * an image beacon or a link, and controls in JSON that a terminal acts on.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { csvCell, csvText, jsonLine, jsonText } from '../../src/render/written.js';
import { runAwb } from '../support/cli.js';
import { judgeReply, makeDataset, tempDirs, worldReply } from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';
import { judgedManifest, judgedRow, writeJudged, writeManifest } from '../fixtures/judged/rows.js';

const temps = tempDirs('injection');
after(() => temps.cleanup());
const server = useServers();

const HYPERLINK = '=HYPERLINK("http://evil.example/","x")';
const DDE = "+cmd|' /C calc'!A0";
const BEACON = '![x](http://evil.example/b.png)';
/** An OSC 52 clipboard write (C1 OSC, ended by BEL) and a right-to-left override. */
const C1 = '\u009d52;c;ZXZpbA==\u0007';
const RLO = '\u202e';

async function awbOk(args: string[]): Promise<string> {
  const r = await runAwb(args);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

/** Two judged runs made through infer and judge on fake endpoints: one named by a hostile model, one by a hostile --label, a hostile judge. */
async function hostileRuns(): Promise<{ dir: string; a: string; b: string }> {
  const dir = await temps.make();
  const ds = await makeDataset(dir, 3, ['mcp']);
  const world = await server({ reply: worldReply, models: [HYPERLINK, 'test-model'] });
  const judge = await server({ reply: judgeReply, models: [DDE] });
  const run = async (name: string, extra: string[]) => {
    const predictions = join(dir, `${name}-predictions.jsonl`);
    const judged = join(dir, `${name}-judged.jsonl`);
    await awbOk(inferArgs(world.url, ds.dir, predictions, extra));
    await awbOk(judgeArgs(judge.url, predictions, judged, ['--judge-model', DDE]));
    return judged;
  };
  return { dir, a: await run('a', ['--model-name', HYPERLINK]), b: await run('b', ['--label', BEACON]) };
}

describe('CSV: a cell a spreadsheet would run is quoted as text, numbers stay numbers', () => {
  it('score -f csv: the hostile model name and judge name start with a quote; figures are plain', async () => {
    const { a, b } = await hostileRuns();
    const lines = (await awbOk(['score', a, b, '-f', 'csv', '--no-ci'])).trim().split('\n');
    const run = (label: string) => lines.filter((l) => l.startsWith(label));
    // csv-stringify doubles the quotes inside and wraps the cell in quotes, as RFC 4180 has it.
    assert.equal(
      run(`"'=HYPERLINK(""http://evil.example/"",""x"")",${a},run,'+cmd|' /C calc'!A0,mcp,all,3,3,0,`).length,
      1,
      lines.join('\n'),
    );
    // A markdown image is nothing to a spreadsheet: the cell is left as it is.
    assert.equal(run(`![x](http://evil.example/b.png),${b},run,'+cmd|' /C calc'!A0,mcp,all,3,3,0,`).length, 1, lines.join('\n'));
    assert.ok(!lines.some((l) => /(^|,)[=+@]/.test(l)), lines.join('\n'));
  });

  it('agreement -f csv: judge names quoted, a negative mean difference and alpha written as numbers', async () => {
    const dir = await temps.make();
    const rows = (lift: number) => [1, 2, 3, 4].map((id) => judgedRow({ id, dims: Array(5).fill(1 + (id % 3) + lift) }));
    const a = writeJudged(dir, 'a.jsonl', rows(0));
    const b = writeJudged(dir, 'b.jsonl', rows(1));
    writeManifest(a, judgedManifest({ model: 'wm', judge: '@SUM(1+1)*cmd|" /C calc"!A0' }));
    writeManifest(b, judgedManifest({ model: 'wm', judge: '-2+3+cmd|" /C calc"!A0' }));
    const lines = (await awbOk(['agreement', a, b, '-f', 'csv', '--no-ci'])).trim().split('\n');
    const total = lines.find((l) => l.includes(',all,total,'));
    assert.ok(total, lines.join('\n'));
    assert.ok(total.startsWith(`pair,"'@SUM(1+1)*cmd|"" /C calc""!A0","'-2+3+cmd|"" /C calc""!A0",all,total,4,0,0,4,0,`), total);
    assert.ok(total.endsWith(',-25,,'), total);
  });

  it('csvCell: the OWASP starts, tab and carriage return included; printed figures and headers untouched', () => {
    for (const s of ['=1+1', '+1+cmd', '-1+cmd', '@SUM(A1)', '-', '+']) assert.equal(csvCell(s), `'${s}`);
    // Tab and CR are spelled out first (the CSV often goes to a terminal), which leaves nothing a spreadsheet runs.
    assert.equal(csvCell('\t=1+1'), '\\x09=1+1');
    assert.equal(csvCell('\r=1+1'), '\\x0d=1+1');
    for (const s of ['-12.5', '+0.25', '-3', '1e-5', '-.5', 'MCP', '']) assert.equal(csvCell(s), s);
    assert.equal(csvText([{ a: -12.5, b: '-12.5', c: '-x' }], ['a', 'b', 'c']), "a,b,c\n-12.5,-12.5,'-x\n");
  });
});

describe('markdown: a label plants no image, link or markup', () => {
  it('score -f md and compare --summary escape ! [ ] ( ) around the hostile label', async () => {
    const { dir, a, b } = await hostileRuns();
    const md = await awbOk(['score', a, b, '-f', 'md', '--no-ci']);
    const summary = join(dir, 'summary.md');
    await awbOk(['compare', a, b, '--summary', summary]);
    const written = await readFile(summary, 'utf8');
    for (const [where, text] of [
      ['score -f md', md],
      ['compare --summary', written],
    ] as const) {
      assert.ok(text.includes('\\!\\[x\\]\\(http://evil.example/b.png\\)'), `${where}: ${text}`);
      assert.ok(!/(^|[^\\])!\[|\]\(/.test(text), `${where} has an unescaped image or link: ${text}`);
      assert.ok(text.includes('=HYPERLINK\\("http://evil.example/","x"\\)'), `${where}: ${text}`);
    }
    assert.ok(written.startsWith('## awb compare\n'), written);
  });

  it('agreement -f md: judge names escaped as well', async () => {
    const dir = await temps.make();
    const a = writeJudged(dir, 'a.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2, dims: [2, 2, 2, 2, 2] })]);
    const b = writeJudged(dir, 'b.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2, dims: [3, 3, 3, 3, 3] })]);
    writeManifest(a, judgedManifest({ model: 'wm', judge: BEACON }));
    writeManifest(b, judgedManifest({ model: 'wm', judge: '[click](http://evil.example/)' }));
    const md = await awbOk(['agreement', a, b, '-f', 'md', '--no-ci']);
    assert.ok(md.includes('\\!\\[x\\]\\(http://evil.example/b.png\\): '), md);
    assert.ok(md.includes('\\[click\\]\\(http://evil.example/\\): '), md);
    assert.ok(!/(^|[^\\])[![]|[^\\]\]\(/.test(md.replace(/\\./g, '')), md);
  });
});

describe('JSON: C1 and bidi controls written as \\u escapes, the same strings once parsed', () => {
  const hostileFile = async () => {
    const dir = await temps.make();
    const gen = `obs ${C1} ${RLO}gnp.exe`;
    const file = writeJudged(
      dir,
      'j.jsonl',
      [1, 2].map((id) => ({ ...judgedRow({ id }), gen, strengths: [`${RLO}s`] })),
    );
    writeManifest(file, { ...judgedManifest({ model: `wm${C1}`, judge: `judge${RLO}` }), label: `run${RLO}1` });
    return { file, gen };
  };

  it('rows -f json', async () => {
    const { file, gen } = await hostileFile();
    const out = await awbOk(['rows', file, '-f', 'json']);
    assert.ok(!/[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(out), JSON.stringify(out));
    assert.ok(out.includes('"prediction":"obs \\u009d52;c;ZXZpbA==\\u0007 \\u202egnp.exe"'), out);
    const rows = JSON.parse(out) as Array<Record<string, unknown>>;
    assert.equal(rows.length, 2);
    assert.equal(rows[0]!.prediction, gen);
    assert.deepEqual(rows[0]!.strengths, [`${RLO}s`]);
  });

  it('score -f json and agreement -f json', async () => {
    const { file } = await hostileFile();
    const score = await awbOk(['score', file, '-f', 'json', '--no-ci']);
    const agreement = await awbOk(['agreement', file, file, '-f', 'json', '--no-ci']);
    for (const out of [score, agreement]) assert.ok(!/[\u0080-\u009f\u202a-\u202e]/.test(out), JSON.stringify(out));
    assert.ok(score.includes('"model": "wm\\u009d52;c;ZXZpbA==\\u0007"'), score);
    const doc = JSON.parse(score) as { runs: Array<{ provenance: { model: string; judge: string } }> };
    assert.equal(doc.runs[0]!.provenance.model, `wm${C1}`);
    assert.equal(doc.runs[0]!.provenance.judge, `judge${RLO}`);
  });

  it('jsonText and jsonLine: every C1 and bidi control escaped, the value unchanged', () => {
    const all = [...Array.from({ length: 32 }, (_, i) => 0x80 + i), 0x61c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e]
      .concat([0x2066, 0x2067, 0x2068, 0x2069])
      .map((c) => String.fromCharCode(c))
      .join('');
    for (const text of [jsonText({ s: all }), jsonLine({ s: all })]) {
      assert.ok(/^[\x20-\x7e\n]*$/.test(text), text);
      assert.deepEqual(JSON.parse(text), { s: all });
    }
  });
});

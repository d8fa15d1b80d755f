import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { scoreFiles, type ScoreReport, type ScoreRequest } from '../../src/core/score/score-files.js';
import { compareFiles } from '../../src/core/compare/index.js';
import type { MixedResume, ScoreNotice } from '../../src/core/score/index.js';
import { CSV_COLUMNS, renderScoreCsv } from '../../src/render/csv.js';
import { renderCompareJson, renderScoreJson } from '../../src/render/json.js';
import { renderCompareMarkdown, renderScoreMarkdown } from '../../src/render/markdown.js';
import { renderCompareTable, renderScoreTable } from '../../src/render/table.js';
import { NOTE_WORDS } from '../../src/commands/words/index.js';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../fixtures/judged/rows.js';

const dir = tempDir('awb-render-');

/** alpha: middling grades, one failed row, search never scores realism. beta: better everywhere. */
function runRows(lift: number): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  for (let id = 1; id <= 6; id++) {
    for (let turn = 1; turn <= 2; turn++) {
      const g = Math.min(5, 1 + ((id + turn) % 3) + lift);
      rows.push(judgedRow({ domain: 'mcp', id, turn, dims: [g, g, g, g, g], usage: { prompt_tokens: 1000, completion_tokens: 200 } }));
      rows.push(judgedRow({ domain: 'search', id, turn, dims: [g, g, g, 0, g], failed: id === 1 && turn === 1 ? 1 : 0 }));
    }
  }
  return rows;
}

const a = writeJudged(dir, 'a.jsonl', runRows(0));
const b = writeJudged(dir, 'b.jsonl', runRows(1));
const c = writeJudged(dir, 'c.jsonl', runRows(1));
writeManifest(a, judgedManifest({ model: 'alpha', judge: 'gpt-x' }));
writeManifest(b, judgedManifest({ model: 'beta', judge: 'gpt-y' }));
// gamma: beta's grades under alpha's judge, so the two rank against each other.
writeManifest(c, judgedManifest({ model: 'gamma', judge: 'gpt-x' }));

const request = (files: string[], extra: Partial<ScoreRequest> = {}): ScoreRequest => ({
  files,
  failuresAsLowest: false,
  bootstrap: { resamples: 200, seed: 5 },
  withPublished: false,
  prices: { infer: { input: 1, output: 2 }, judge: { input: 1, output: 2 } },
  byTurn: false,
  ...extra,
});

/** RFC 4180 reader, enough for csv-stringify's output. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** Contiguous runs of `|` lines. */
function markdownTables(md: string): string[][] {
  const tables: string[][] = [];
  let current: string[] = [];
  for (const line of md.split('\n')) {
    if (line.startsWith('|')) current.push(line);
    else if (current.length) {
      tables.push(current);
      current = [];
    }
  }
  if (current.length) tables.push(current);
  return tables;
}

const cellCount = (line: string) => line.replace(/\\\|/g, '').split('|').length - 2;

describe('renderers', () => {
  let two: ScoreReport;
  let alike: ScoreReport;
  let one: ScoreReport;
  before(async () => {
    two = await scoreFiles(request([a, b]));
    alike = await scoreFiles(request([a, c]));
    one = await scoreFiles(request([a], { byTurn: true }));
  });

  it('csv: long layout, a record per run x domain with bounds and counts', () => {
    const [header, ...records] = parseCsv(renderScoreCsv(alike));
    assert.deepEqual(header, [...CSV_COLUMNS]);
    const rec = records.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
    assert.deepEqual(
      rec.map((r) => `${r.run}/${r.domain}`),
      [
        'alpha/mcp',
        'alpha/search',
        'alpha/overall_macro',
        'alpha/overall_micro',
        'gamma/mcp',
        'gamma/search',
        'gamma/overall_macro',
        'gamma/overall_micro',
      ],
    );
    const search = rec.find((r) => r.run === 'alpha' && r.domain === 'search')!;
    assert.deepEqual(
      [search.rows, search.valid, search.failed, search.source, search.judge, search.bucket],
      ['12', '11', '1', 'run', 'gpt-x', 'all'],
    );
    assert.equal(search.realism, '', 'no realism values: empty, not -25');
    for (const r of rec) {
      assert.ok(Number(r.ci_lo) <= Number(r.score) && Number(r.score) <= Number(r.ci_hi), `${r.run}/${r.domain}`);
      assert.equal(r.best, r.run === 'gamma' ? 'true' : 'false');
      assert.deepEqual([r.ranked, r.not_ranked], ['true', '']);
      assert.equal(Number(r.score).toFixed(2).slice(0, -1), r.score_text!.slice(0, -1));
    }
  });

  it('csv: turn buckets and published rows', async () => {
    const [header, ...records] = parseCsv(renderScoreCsv(one));
    const bucket = header!.indexOf('bucket');
    assert.deepEqual([...new Set(records.map((r) => r[bucket]))], ['all', '1', '2']);
    const withPublished = parseCsv(renderScoreCsv(await scoreFiles(request([a], { withPublished: true }))));
    const published = withPublished.filter((r) => r[header!.indexOf('source')] === 'published');
    assert.equal(published.length, 14 * 8, 'seven domains and Overall for each of the 14 published rows');
    assert.ok(published.every((r) => r[header!.indexOf('judge')] === 'gpt-5.2-2025-12-11'));
  });

  it('json: one object with per-domain stats, bounds, overall, notes and usage', () => {
    const j = JSON.parse(renderScoreJson(two, NOTE_WORDS));
    assert.equal(j.format, 'agentworldbench-score');
    assert.deepEqual(j.domains, ['mcp', 'search']);
    assert.deepEqual(j.settings.bootstrap.resamples, 200);
    assert.equal(j.runs.length, 2);
    const alpha = j.runs[0];
    assert.equal(alpha.label, 'alpha');
    assert.equal(alpha.provenance.judge, 'gpt-x');
    const s = alpha.domains.search;
    assert.deepEqual([s.rows, s.valid, s.failed], [12, 11, 1]);
    assert.equal(typeof s.score, 'number');
    assert.equal(typeof s.mean, 'number');
    assert.match(s.text, /^\d+\.\d\d$/);
    assert.ok(s.ci.lo <= s.score && s.score <= s.ci.hi);
    assert.equal(s.dimensions.realism.text, 'n/a');
    assert.equal(s.dimensions.realism.score, null);
    assert.equal(alpha.overall.macro.domains, 2);
    assert.equal(alpha.overall.micro.rows, 23);
    // beta scores higher, but under another judge: shown, not ranked, never best.
    assert.deepEqual([j.runs[1].label, j.runs[1].ranked, j.runs[1].not_ranked], ['beta', false, [{ kind: 'other', setting: 'judge' }]]);
    assert.equal(j.runs[1].overall.macro.best, false);
    assert.equal(JSON.parse(renderScoreJson(alike, NOTE_WORDS)).runs[1].overall.macro.best, true);
    assert.equal(alpha.usage.infer.prompt_tokens, 12000);
    assert.equal(alpha.usage.infer.cost_usd, (12000 * 1 + 2400 * 2) / 1e6);
    assert.equal(alpha.usage.domains.mcp.infer.rows, 12);
    assert.ok(j.notes.some((n: string) => n === 'not comparable: judge differs (gpt-x in alpha; gpt-y in beta)'));
    assert.deepEqual(j.published, []);
  });

  it('json: warnings and notes as sentences and as data in the same order; forced resumes as sentences in a provenance', () => {
    const cut = { kind: 'judged-line-cut', file: 'a.jsonl', line: 3 } as const;
    const manifest = { kind: 'manifest-not-json', path: 'b.jsonl.manifest.json' } as const;
    const mixed: MixedResume[] = [{ stage: 'infer', reason: 'sampling: was 0.6, now 0.2' }];
    const note: ScoreNotice = { kind: 'run-mixes-settings', run: 'alpha', mixed };
    const [alpha, beta] = two.runs;
    const report: ScoreReport = {
      ...two,
      runs: [{ ...alpha!, provenance: { ...alpha!.provenance, mixed } }, beta!],
      notes: [note],
      warnings: [cut, manifest],
    };
    const j = JSON.parse(renderScoreJson(report, NOTE_WORDS));
    assert.deepEqual(j.warnings, [NOTE_WORDS.notice(cut), NOTE_WORDS.notice(manifest)]);
    assert.deepEqual(j.warnings_data, [
      { ...cut, message: NOTE_WORDS.notice(cut) },
      { kind: 'manifest-not-json', path: 'b.jsonl.manifest.json', message: NOTE_WORDS.notice(manifest) },
    ]);
    assert.deepEqual(j.runs[0].provenance.mixed, [NOTE_WORDS.mixed(mixed[0]!)]);
    assert.deepEqual(j.notes_data, [
      { ...note, mixed: [{ ...mixed[0], message: NOTE_WORDS.mixed(mixed[0]!) }], message: NOTE_WORDS.notice(note) },
    ]);
  });

  it('markdown: GitHub tables with header and separator rows, bold best, notes', () => {
    const md = renderScoreMarkdown(alike, NOTE_WORDS);
    const tables = markdownTables(md);
    assert.ok(tables.length >= 1);
    for (const t of tables) {
      assert.match(t[1]!, /^\| (:---|---:)( \| (:---|---:))* \|$/);
      const n = cellCount(t[0]!);
      for (const line of t) assert.equal(cellCount(line), n, line);
    }
    const board = tables[0]!;
    assert.equal(board[0], '| Run | MCP | Search | Overall \\(macro\\) | Overall \\(micro\\) |');
    assert.match(board[3]!, /^\| gamma \| \*\*\d+\.\d\d\*\* ±\d+\.\d\d \(12\/12\) \|/);
    assert.match(renderScoreMarkdown(two, NOTE_WORDS), /- Note: not comparable: judge differs \\\(gpt-x in alpha; gpt-y in beta\\\)/);
    assert.match(md, /- Bold: best in its column\./);
  });

  it('table: aligned columns, * for best without colours, bold with colours', () => {
    const plain = renderScoreTable(alike, NOTE_WORDS, 0);
    assert.doesNotMatch(plain, /\x1b\[/);
    const lines = plain.split('\n');
    const start = lines.findIndex((l) => l.startsWith('Run '));
    const grid = lines.slice(start, start + 6);
    assert.equal(new Set(grid.map((l) => l.length)).size, 1, 'every line of the leaderboard has the same width:\n' + grid.join('\n'));
    assert.match(grid[4]!, /^gamma\s+\d+\.\d\d\* ±/);
    assert.match(grid[5]!, /^\s+12\/12\s+11\/12\s+23\/24\s+23\/24$/, 'valid/total under each score');
    assert.match(plain, /\*: best in its column/);
    assert.match(plain, /resampling whole trajectories \(domain \+ id\), not rows/);
    const coloured = renderScoreTable(alike, NOTE_WORDS, 1);
    assert.match(coloured, /\x1b\[1m\d+\.\d\d\x1b\[22m/);
  });

  it('table: a single run shows its per-domain detail with n/a, turn buckets and usage', () => {
    const out = renderScoreTable(one, NOTE_WORDS, 0);
    const search = out.split('\n').find((l) => l.startsWith('Search ') && l.includes('11/12'))!;
    assert.match(search, / n\/a /);
    assert.doesNotMatch(out, /-25\.00/);
    assert.match(out, /Overall \(macro\)\s+23\/24\s+1\s+\d+\.\d\d ±\d+\.\d\d/);
    assert.match(out, /Turn 1\s+Turn 2/);
    assert.match(out, /Cost \(USD\)/);
  });

  it('published rows are marked, with their judge', async () => {
    const report = await scoreFiles(request([a], { withPublished: true }));
    const out = renderScoreTable(report, NOTE_WORDS, 0);
    assert.match(out, /Qwen-AgentWorld-35B-A3B \(published\)\s+64\.79\s+36\.69\s+53\.96\s+65\.63\s+58\.17\s+49\.55\s+65\.92\s+56\.39/);
    assert.match(out, /judged by gpt-5\.2-2025-12-11/);
    // Every condition of the published numbers that the run misses is named, and the run is not ranked against them.
    assert.match(out, /alpha is not comparable with the published rows \(not ranked against them\)/);
    assert.match(out, /rubrics: awb's bundled rubrics \(our own text\), not the official ones/);
    assert.match(out, /data: 24 of the 2170 rows of the full published split \(short in MCP, Search, Terminal, SWE, Android, Web, OS\)/);
    assert.match(out, /judge: gpt-x, the published judge is gpt-5\.2-2025-12-11/);
    assert.match(out, /Qwen-AgentWorld-397B-A17B \(published\)\s+68\.24\s+37\.82\*/, 'published rows ranked among themselves');
    assert.doesNotMatch(
      out.split('\n').find((l) => l.startsWith('alpha'))!,
      /\*/,
    );
  });

  it('compare: json and markdown shapes, the verdict first', async () => {
    const report = {
      ...(await compareFiles(a, b, { gate: { threshold: 2, allowIncomparable: true } })),
      invocation: 'awb',
      words: NOTE_WORDS,
    };
    const j = JSON.parse(renderCompareJson(report));
    assert.equal(j.format, 'agentworldbench-compare');
    assert.deepEqual(Object.keys(j.domains), ['mcp', 'search']);
    assert.ok(j.overall.ci.lo <= j.overall.delta && j.overall.delta <= j.overall.ci.hi);
    assert.ok(j.overall.delta > 0);
    assert.equal(j.gate.failed, false);
    assert.ok(j.notes.some((n: string) => n.startsWith('not comparable: judge differs')));
    // Per-dimension deltas: beta is a grade better everywhere but where a grade was already 5.
    assert.ok(j.domains.mcp.dimensions.format > 0);
    assert.equal(j.domains.search.dimensions.realism, null, 'search never scores realism');
    const md = renderCompareMarkdown(report);
    const [table, dims] = markdownTables(md);
    assert.equal(
      table![0],
      '| Domain | Paired | Used | Trajectories | Failed \\(base/cand\\) | Baseline | Candidate | Delta | 95% interval | Verdict |',
    );
    assert.equal(table!.length, 2 + 3);
    assert.equal(dims![0], '| Domain | Format | Factuality | Consistency | Realism | Quality |');
    assert.match(md, /^## awb compare\n\n\*\*Gate passed/);
    assert.doesNotMatch(renderCompareTable(report, 0), /\x1b\[/);
  });

  it('compare: runs known not to be comparable fail the gate unless allowed', async () => {
    const report = { ...(await compareFiles(a, b, { gate: { threshold: 2 } })), invocation: 'awb', words: NOTE_WORDS };
    assert.equal(report.gate!.failed, true);
    assert.equal(report.gate!.outcome, 'incomparable');
    assert.match(JSON.parse(renderCompareJson(report)).gate.reasons[0].message, /not comparable: judge differs .*--allow-incomparable/);
    const md = renderCompareMarkdown(report);
    assert.ok(md.indexOf('Gate FAILED') < md.indexOf('| Domain |'), 'the verdict leads the summary');
  });
});

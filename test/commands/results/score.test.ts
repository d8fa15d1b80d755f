import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { judgedManifest, judgedRow, repeatRow, tempDir, writeJudged, writeManifest } from '../../fixtures/judged/rows.js';
import { jsonl } from '../../support/dataset.js';
import { awb } from '../../support/cli.js';
import { noticed } from '../../../src/commands/words/index.js';
import type { Notice } from '../../../src/core/errors.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
/** The line a warning prints on stderr (no colour: stderr is a pipe); its words are pinned once, in the words snapshot. */
const warningLine = (n: Notice): string => `awb: warning: ${noticed(n)}\n`;
const dir = tempDir('awb-score-cli-');


/*
 * mcp: grades 5, 3, 4 on three trajectories plus a failed row -> mean 4 -> 75.00, 3/4 valid.
 * search: grades 2 and 4 -> mean 3 -> 50.00, 2/2 valid.
 * macro (75 + 50)/2 = 62.50; micro (5+3+4+2+4)/5 = 3.6 -> 65.00.
 */
const good = writeJudged(dir, 'good.jsonl', [
  judgedRow({ domain: 'mcp', id: 1, dims: [5, 5, 5, 5, 5] }),
  judgedRow({ domain: 'mcp', id: 2, dims: [3, 3, 3, 3, 3] }),
  judgedRow({ domain: 'mcp', id: 3, dims: [4, 4, 4, 4, 4] }),
  judgedRow({ domain: 'mcp', id: 4, bare: true }),
  judgedRow({ domain: 'search', id: 1, dims: [2, 2, 2, 2, 2] }),
  judgedRow({ domain: 'search', id: 2, dims: [4, 4, 4, 4, 4] }),
]);

describe('awb score (end to end)', () => {
  // dist/ is built by `npm test` before the suites start; rebuilding here would race the other suites.
  before(() => assert.ok(existsSync(join(root, 'dist/commands/results/score.js')), 'run `npm run build` first'));

  it('prints the leaderboard and the per-domain detail of one file', async () => {
    const r = await awb('score', good);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.doesNotMatch(r.stdout, /\x1b\[/, 'no colours when stdout is not a terminal');
    assert.match(r.stdout, /^good\.jsonl\s+75\.00 ±\d+\.\d\d\s+50\.00 ±\d+\.\d\d\s+62\.50 ±\d+\.\d\d\s+65\.00 ±\d+\.\d\d$/m);
    assert.match(r.stdout, /^\s+3\/4\s+2\/2\s+5\/6\s+5\/6$/m);
    assert.match(r.stdout, /^MCP\s+3\/4\s+1\s+75\.00\s+75\.00\s+75\.00\s+75\.00\s+75\.00\s+75\.00 ±\d+\.\d\d\s+4\.00$/m);
    assert.match(r.stdout, /resampling whole trajectories/);
  });

  it('a standard output that cannot be written (a full disk behind >) is one line and exit 2, not a stack', async (t) => {
    if (!existsSync('/dev/full')) return t.skip('no /dev/full here');
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(process.execPath, [join(root, 'bin/awb.js'), 'score', good], {
        encoding: 'utf8',
        stdio: ['ignore', full, 'pipe'],
      });
      assert.equal(r.status, 2);
      assert.equal(r.stderr, 'awb: cannot write to standard output: ENOSPC: no space left on device, write\n');
    } finally {
      closeSync(full);
    }
  });

  it('a file given twice, under any name, is named in a warning: its run is shown twice', async () => {
    const again = join(dir, '.', 'good.jsonl');
    const r = await awb('score', good, again, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    const twice = warningLine({ kind: 'file-given-twice', file: again, earlier: good });
    assert.equal(r.stderr, twice);
    const other = await awb('score', good, '--no-ci');
    assert.equal(other.stderr, '');
    const html = join(dir, 'twice.html');
    const report = await awb('report', good, again, '-o', html);
    assert.equal(report.code, 0, report.stderr);
    assert.ok(report.stderr.includes(twice), report.stderr);
  });

  it('writes json, csv and markdown', async () => {
    const j = await awb('score', good, '--format', 'json', '--no-ci');
    assert.equal(j.code, 0, j.stderr);
    const parsed = JSON.parse(j.stdout);
    assert.equal(parsed.runs[0].domains.mcp.text, '75.00');
    assert.equal(parsed.runs[0].domains.mcp.ci, null);
    assert.equal(parsed.runs[0].overall.micro.text, '65.00');
    const c = await awb('score', good, '--format', 'csv');
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout.split('\n')[0]!, /^run,file,source,judge,domain,bucket,rows,valid,failed,mean,score,score_text,ci_lo,ci_hi,best/);
    const m = await awb('score', good, '--format', 'markdown', '--by', 'turn');
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /^\| Run \| MCP \| Search \| Overall \\\(macro\\\) \| Overall \\\(micro\\\) \|$/m);
    assert.match(m.stdout, /Turn 1/);
    // `md` is markdown, in score and compare alike.
    const md = await awb('score', good, '-f', 'md', '--by', 'turn');
    assert.equal(md.code, 0, md.stderr);
    assert.equal(md.stdout, m.stdout);
    const cmp = await awb('compare', good, good, '-f', 'md');
    assert.equal(cmp.code, 0, cmp.stderr);
    assert.equal(cmp.stdout, (await awb('compare', good, good, '-f', 'markdown')).stdout);
    assert.match(cmp.stdout, /^## awb compare/m);
    // --summary in a folder not made yet: made, as report -o and merge -o make theirs.
    const summary = join(dir, 'not-yet', 'summary.md');
    const withSummary = await awb('compare', good, good, '--summary', summary);
    assert.equal(withSummary.code, 0, withSummary.stderr);
    assert.match(readFileSync(summary, 'utf8'), /^## awb compare/m);
  });

  it('--no-ci drops the intervals; --failures-as-lowest scores failed rows at 1', async () => {
    const r = await awb('score', good, '--no-ci', '--failures-as-lowest');
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /±/);
    // mcp (5+3+4+1)/4 = 3.25 -> 56.25
    assert.match(r.stdout, /^good\.jsonl\s+56\.25\s+50\.00/m);
    assert.match(r.stdout, /--failures-as-lowest/);
  });

  it('a bad line: one line naming file:line, no stack trace, non-zero exit', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, jsonl([judgedRow({ id: 1 })]) + '{"task": "mcp", "id": 2,\n' + jsonl([judgedRow({ id: 3 })]));
    const r = await awb('score', bad);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`^awb: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not valid JSON`));
    assert.doesNotMatch(r.stderr, /\n\s+at /);

    const field = writeJudged(dir, 'field.jsonl', [{ ...judgedRow(), quality: 'great' }]);
    const f = await awb('score', field);
    assert.equal(f.code, 2);
    assert.match(f.stderr, /field\.jsonl:1: quality: expected number/);
  });

  it('an empty file or one without valid rows is an error', async () => {
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const r = await awb('score', empty);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^awb: .*empty\.jsonl: no valid judged rows/);
    const failed = writeJudged(dir, 'failed.jsonl', [judgedRow({ id: 1, bare: true })]);
    assert.match((await awb('score', failed)).stderr, /failed\.jsonl: no valid judged rows/);
    assert.match((await awb('score', join(dir, 'missing.jsonl'))).stderr, /missing\.jsonl: no such file/);
  });

  it('a predictions or dataset file says what it is and what to run, instead of "all rows failed"', async () => {
    const dataset = join(root, 'fixtures/data/mcp_test.jsonl');
    const rows = readFileSync(dataset, 'utf8').split('\n').filter(Boolean);
    const predictions = join(dir, 'predictions.jsonl');
    writeFileSync(predictions, rows.map((l) => JSON.stringify({ ...(JSON.parse(l) as object), gen: 'x' }) + '\n').join(''));
    for (const extra of [[], ['--failures-as-lowest']]) {
      const r = await awb('score', predictions, ...extra);
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /predictions\.jsonl: is a predictions file \(its rows have gen but no judge results\)/);
      assert.match(r.stderr, /`(awb|node \S+) judge --predictions .*predictions\.jsonl --judge-base-url URL --judge-model MODEL/);
      assert.doesNotMatch(r.stderr, /rows failed/);
    }
    const d = await awb('score', dataset);
    assert.equal(d.code, 2);
    assert.match(d.stderr, /mcp_test\.jsonl: holds dataset rows \(no gen\), not judged rows; run `(awb|node \S+) infer` first/);
  });

  it('a field that may take two types (id, failed) says which, in score and rows alike, not "Invalid input"', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['failed-string.jsonl', { failed: '0' }, /:2: failed: must be 0 \(graded\) or 1 \(failed\), or false or true; got "0"$/],
      ['id-null.jsonl', { id: null }, /:2: id: expected number or string, received null$/],
      ['id-missing.jsonl', { id: undefined }, /:2: id: expected number or string, but it is missing$/],
    ];
    for (const [name, change, pattern] of cases) {
      const file = writeJudged(dir, name, [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), ...change }]);
      for (const command of ['score', 'rows']) {
        const r = await awb(command, file);
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
        assert.match(r.stderr.trimEnd(), pattern);
      }
    }
  });

  it('token counts inside a raw usage (prompt_tokens_details, completion_tokens_details) are held to whole numbers >= 0 too', async () => {
    const details = [
      [
        'cached-negative.jsonl',
        { judge_usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: -1 } } },
        /judge_usage\.prompt_tokens_details\.cached_tokens: /,
      ],
      [
        'reasoning-fraction.jsonl',
        { usage: { prompt_tokens: 10, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 2.5 } } },
        /usage\.completion_tokens_details\.reasoning_tokens: /,
      ],
    ] as const;
    for (const [name, change, field] of details) {
      const file = writeJudged(dir, name, [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), ...change }]);
      const r = await awb('score', file, '--format', 'json', '--no-ci');
      assert.equal(r.code, 2, `${name}: ${r.stdout}`);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`${name.replace('.', '\\.')}:2: ${field.source}`));
    }
    // Reported ones are read: 4 of 10 prompt tokens cached.
    const fine = writeJudged(dir, 'details.jsonl', [
      {
        ...judgedRow({ id: 1 }),
        judge_usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: null,
        },
      },
    ]);
    const r = await awb('score', fine, '--format', 'json', '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).runs[0].usage.judge.cache_hit_ratio, 0.4);
  });

  it('a grade within 1-5 that no mean of grades gives says why it is refused', async () => {
    const file = writeJudged(dir, 'odd-grade.jsonl', [judgedRow({ id: 1 }), { ...judgedRow({ id: 2 }), format: 4.123 }]);
    const r = await awb('score', file);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /odd-grade\.jsonl:2: format: .*got 4\.123, which is no mean of up to five 1-5 grades \(read in steps of 1\/60\)\n$/,
    );
  });

  it('a cut last line is skipped with a warning', async () => {
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, jsonl([judgedRow({ id: 1 }), judgedRow({ id: 2 })]) + '{"task": "agentworld/mcp", "id": 3, "pro');
    const r = await awb('score', cut, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stderr.startsWith(warningLine({ kind: 'judged-line-cut', file: cut, line: 3 })), r.stderr);
    assert.match(r.stdout, /^\s+2\/2/m);
  });

  it('rejects bad option values in one line', async () => {
    const r = await awb('score', good, '--bootstrap', '0');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^awb: --bootstrap must be a whole number from 10 to 1000000, got "0"\n$/);
    assert.match((await awb('score', good, '--by', 'domain')).stderr, /--by must be one of turn/);
  });

  it('compare: the gate exits 4 on a significant drop and 0 otherwise', async () => {
    const rows = (lift: number) =>
      [1, 2, 3, 4, 5, 6].flatMap((id) =>
        [1, 2].map((turn) => judgedRow({ domain: 'mcp', id, turn, dims: Array(5).fill(2 + ((id + turn) % 3) + lift) })),
      );
    const base = writeJudged(dir, 'base.jsonl', rows(0));
    const worse = writeJudged(dir, 'worse.jsonl', rows(-1));
    const fail = await awb('compare', base, worse, '--fail-below', '1');
    assert.equal(fail.code, 4, fail.stderr);
    assert.match(fail.stdout, /Gate FAILED/);
    const pass = await awb('compare', base, base, '--fail-below', '1');
    assert.equal(pass.code, 0, pass.stderr);
    assert.match(pass.stdout, /Gate passed/);
  });

  it('compare --format json names the interval method it uses (CR2, Bell-McCaffrey), as the table does', async () => {
    const rows = [1, 2, 3].flatMap((id) =>
      [1, 2, 3].slice(0, id).map((turn) => judgedRow({ domain: 'mcp', id, turn, dims: Array(5).fill(1 + ((id * turn) % 5)) })),
    );
    const base = writeJudged(dir, 'method-base.jsonl', rows);
    const cand = writeJudged(
      dir,
      'method-cand.jsonl',
      rows.map((r, i) => ({
        ...r,
        ...judgedRow({ domain: 'mcp', id: r.id as number, turn: r.turn_idx as number, dims: Array(5).fill(1 + (i % 5)) }),
      })),
    );
    const r = await awb('compare', base, cand, '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.match(doc.intervals.method, /CR2/);
    assert.match(doc.intervals.method, /Bell-McCaffrey/);
    assert.doesNotMatch(doc.intervals.method, /G\/\(G-1\)|G-1 degrees/);
    // Unequal trajectories (1, 2 and 3 rows): Bell-McCaffrey's degrees of freedom are not G - 1 = 2.
    assert.notEqual(doc.domains.mcp.df, 2);
  });
});

describe('awb score on a --repeat file', () => {
  it('reads it once: a cut last line is warned about once, and the judge noise still comes out', async () => {
    const rows = [1, 2, 3].map((id) => repeatRow({ domain: 'mcp', id }, [3, 3 + (id % 2)]));
    const file = writeJudged(dir, 'repeat-cut.jsonl', rows, '{"task": "agentworld/mcp", "id": 9');
    const r = await awb('score', file, '--format', 'csv', '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, warningLine({ kind: 'judged-line-cut', file, line: 4 }));
    assert.match(r.stdout, /judge_noise/);
  });

  it('a rubric file holding a row of another judge mode is refused at that line, as a mode file holding a rubric row is', async () => {
    const order = (real_at: 'A' | 'B') => ({ real_at, choice: 'A', picked_real: real_at === 'A', raw: '\\boxed{A}', attempts: 1 });
    const turing = { ...judgedRow({ id: 3 }), turing: { orders: [order('A'), order('B')], failed: 0 } };
    for (const [name, row, field] of [
      ['mixed-turing.jsonl', turing, 'turing'],
      ['mixed-repeat.jsonl', repeatRow({ id: 3 }, [4, 4]), 'judge_repeats'],
    ] as const) {
      const file = writeJudged(dir, name, [judgedRow({ id: 1 }), judgedRow({ id: 2 }), row]);
      for (const command of [['score'], ['compare', good], ['report', '-o', join(dir, `${name}.html`)]]) {
        const r = await awb(command[0]!, file, ...command.slice(1));
        assert.equal(r.code, 2, `${command[0]} ${name}: ${r.stderr}`);
        assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
        assert.match(
          r.stderr,
          new RegExp(`${name}:3: a rubric file .* but this row has ${field}; files of different judge modes cannot be mixed`),
        );
      }
    }
  });

  it('compare on a turing or pairwise file says it has no grades to compare, not "no row valid on both sides"', async () => {
    const order = (real_at: 'A' | 'B') => ({ real_at, choice: 'A', picked_real: real_at === 'A', raw: '\\boxed{A}', attempts: 1 });
    // As `awb judge --mode turing` writes them: no grades, the two orders and failed.
    const rows = [1, 2].map((id) => ({
      ...judgedRow({ id, bare: true }),
      gen: 'simulated observation',
      error_message: undefined,
      turing: { orders: [order('A'), order('B')], failed: 0 },
      failed: 0,
    }));
    const file = writeJudged(dir, 'turing-only.jsonl', rows);
    const r = await awb('compare', file, file);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /turing-only\.jsonl: a turing file .*no grades to compare; .*score.* report/);
  });

  it('--format json spells the prices it used in snake_case, as every other key', async () => {
    const r = await awb(
      'score',
      good,
      '--format',
      'json',
      '--no-ci',
      '--price-input',
      '2',
      '--price-output',
      '8',
      '--price-judge-cached-input',
      '0.5',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).settings.prices_usd_per_million, {
      infer: { input: 2, output: 8 },
      judge: { input: 2, output: 8, cached_input: 0.5 },
    });
  });

  it('--format json keys what it read from the manifests in snake_case too (provenance), in score and compare', async () => {
    const withManifest = writeJudged(
      dir,
      'with-manifest.jsonl',
      readFileSync(good, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
    writeManifest(withManifest, judgedManifest({ model: 'm', judge: 'j' }));
    const s = await awb('score', withManifest, '--format', 'json', '--no-ci');
    assert.equal(s.code, 0, s.stderr);
    const c = await awb('compare', withManifest, withManifest, '--format', 'json');
    assert.equal(c.code, 0, c.stderr);
    for (const provenance of [JSON.parse(s.stdout).runs[0].provenance, JSON.parse(c.stdout).candidate.provenance]) {
      assert.equal(provenance.manifest, 'found');
      assert.equal(provenance.rubrics_sha256, 'ab'.repeat(32));
      for (const key of Object.keys(provenance)) assert.match(key, /^[a-z0-9_]+$/);
    }
  });

  it('--format json with judge-mode files is the same document: its header, runs (empty without graded files), controls escaped', async () => {
    const order = (real_at: 'A' | 'B') => ({ real_at, choice: 'A', picked_real: real_at === 'A', raw: '\\boxed{A}', attempts: 1 });
    const turing = writeJudged(
      dir,
      'turing-json.jsonl',
      [1, 2].map((id) => ({
        ...judgedRow({ id, bare: true }),
        error_message: undefined,
        turing: { orders: [order('A'), order('B')], failed: 0 },
        failed: 0,
      })),
    );
    const alone = await awb('score', turing, '--format', 'json', '--no-ci');
    assert.equal(alone.code, 0, alone.stderr);
    const doc = JSON.parse(alone.stdout);
    assert.equal(doc.format, 'agentworldbench-score');
    assert.equal(doc.version, 1);
    assert.deepEqual(doc.runs, []);
    assert.equal(doc.modes[0].mode, 'turing');
    // A C1 control (CSI) and DEL in a run's name: escaped in the JSON text, with or without mode files beside it.
    const odd = join(dir, 'odd\u009b\u007fname.jsonl');
    writeFileSync(odd, readFileSync(good));
    for (const files of [[odd], [odd, turing]]) {
      const r = await awb('score', ...files, '--format', 'json', '--no-ci');
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /[\u007f-\u009f]/, files.join(' '));
      assert.equal(JSON.parse(r.stdout).runs[0].label, 'odd\u009b\u007fname.jsonl');
    }
  });

  it('a task spelled in capitals (`Terminal`, `agentworld/OS`) is the same domain: one column, and compare pairs it', async () => {
    const lower = writeJudged(dir, 'task-lower.jsonl', [
      judgedRow({ domain: 'terminal', id: 1, dims: [4, 4, 4, 4, 4] }),
      judgedRow({ domain: 'os', id: 2, dims: [2, 2, 2, 2, 2] }),
    ]);
    const upper = writeJudged(dir, 'task-upper.jsonl', [
      { ...judgedRow({ domain: 'terminal', id: 1, dims: [4, 4, 4, 4, 4] }), task: 'Terminal' },
      { ...judgedRow({ domain: 'terminal', id: 3, dims: [2, 2, 2, 2, 2] }), task: 'terminal' },
      { ...judgedRow({ domain: 'os', id: 2, dims: [2, 2, 2, 2, 2] }), task: 'agentworld/OS' },
    ]);
    const r = await awb('score', upper, '--format', 'json', '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    const run = JSON.parse(r.stdout).runs[0];
    assert.deepEqual(Object.keys(run.domains), ['terminal', 'os']);
    assert.equal(run.domains.terminal.valid, 2);
    assert.equal(run.domains.terminal.text, '50.00');
    const c = await awb('compare', lower, upper, '--format', 'json');
    assert.equal(c.code, 0, c.stderr);
    const pairs = JSON.parse(c.stdout);
    assert.equal(pairs.only_in_baseline.count, 0);
    assert.equal(pairs.only_in_candidate.count, 1, 'only the row with id 3');
  });
});

/*
 * `awb report` in a real browser: Debian's chromium driven by playwright-core
 * (never a downloaded browser). The page is opened from file:// with every
 * network request refused, and checked against `awb score --format json`.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { domainLabel } from '../../src/core/domains.js';
import { combineRepeats, pairwiseOrderResult, pairwiseResult, turingOrderResult, turingResult } from '../../src/core/judge/index.js';
import { formatFixed } from '../../src/core/score/index.js';
import { judgedManifest, judgedRow, panelRows, tempDir, writeJudged, writeManifest } from '../fixtures/judged/rows.js';
import { browserSkip, launchChromium } from '../support/browser.js';
import { awb } from '../support/cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const dir = tempDir('awb-report-browser-');

/** A web prediction that would run script if it were ever parsed as markup. */
const HOSTILE =
  '<think>hidden reasoning</think><predicted_observation><html><body><script>window.__pwned = 1; alert(1)</script>' +
  '<img src="x" onerror="window.__pwned = 2"><svg onload="window.__pwned = 3"></svg></textarea></script><!-- ' +
  '<iframe src="https://example.com/"></iframe>visible words</body></html></predicted_observation>';

function row(spec: Parameters<typeof judgedRow>[0], extra: Record<string, unknown> = {}) {
  return { ...judgedRow(spec), ...extra };
}

// Run A: two domains plus the duplicated android pair (same id and turn, distinct rows) and a failed row.
const runA = writeJudged(dir, 'a.jsonl', [
  row({ domain: 'mcp', id: 1, dims: [5, 5, 5, 5, 5] }, { strengths: ['exact tool result'], judge_raw_output: 'RAW-JUDGE-A1' }),
  row({ domain: 'mcp', id: 2, turn: 2, dims: [2, 3, 2, 3, 2] }, { weaknesses: ['wrong count'], current_prompt: 'ACTION-MCP-2' }),
  row({ domain: 'mcp', id: 3, bare: true }),
  row(
    { domain: 'web', id: 7, turn: 3, dims: [1, 2, 1, 2, 1] },
    {
      gen: HOSTILE,
      response: ['r1', 'r2', '<html><script>window.__pwned = 4</script>TRUTH-WEB-7</html>'],
      judge_raw_output: '</script><script>window.__pwned=5</script>',
    },
  ),
  row({ domain: 'android', id: 42, turn: 2, dims: [4, 4, 4, 4, 4] }, { response: ['x', 'ANDROID-TRUTH-ONE'] }),
  row({ domain: 'android', id: 42, turn: 2, dims: [3, 3, 3, 3, 3] }, { response: ['x', 'ANDROID-TRUTH-TWO'] }),
  row({ domain: 'os', id: 5, dims: [4, 4, 4, 4, 4] }, { gen: 'L'.repeat(9000) + 'TAIL-NEVER-SHOWN' }),
]);
writeManifest(runA, judgedManifest({ model: 'model-a', judge: 'judge-x' }));
// Run B: the same keys, other grades, another model.
const runB = writeJudged(dir, 'b.jsonl', [
  row({ domain: 'mcp', id: 1, dims: [4, 4, 4, 4, 4] }),
  row({ domain: 'mcp', id: 2, turn: 2, dims: [5, 5, 5, 5, 5] }, { current_prompt: 'ACTION-MCP-2' }),
  row({ domain: 'web', id: 7, turn: 3, dims: [3, 3, 3, 3, 3] }),
  row({ domain: 'android', id: 42, turn: 2, dims: [2, 2, 2, 2, 2] }, { response: ['x', 'ANDROID-TRUTH-ONE'] }),
  row({ domain: 'os', id: 5, dims: [5, 5, 5, 5, 5] }),
]);
writeManifest(runB, judgedManifest({ model: 'model-b', judge: 'judge-x' }));
const out = join(dir, 'report.html');

// A mixed report: a rubric file (with a known diff pair and a pair too large to diff), a turing, a pairwise and a --repeat file.
const DIFF_TRUTH = 'alpha\nbeta\ngamma';
const DIFF_PREDICTION = 'alpha\nBETA\ngamma\ndelta';
const graded = writeJudged(dir, 'c.jsonl', [
  row({ domain: 'mcp', id: 1, dims: [4, 4, 4, 4, 4] }),
  row({ domain: 'search', id: 8, dims: [3, 3, 3, 3, 3] }, { gen: DIFF_PREDICTION, response: [DIFF_TRUTH] }),
  row({ domain: 'os', id: 9, dims: [2, 2, 2, 2, 2] }, { gen: 'p\n'.repeat(3000), response: ['t\n'.repeat(3000)] }),
]);
/** A dataset row of a choice-mode file: what infer wrote, then the mode's fields. */
const base = (domain: string, id: number, turn = 1) => ({
  task: `agentworld/${domain}`,
  id,
  turn_idx: turn,
  prompt: Array.from({ length: turn }, (_, i) => `action ${id}.${i + 1}`),
  response: Array.from({ length: turn }, (_, i) => `REAL ${domain} ${id}.${i + 1}`),
  gen: `SIMULATED ${domain} ${id}`,
});
type Side = 'A' | 'B';
const turingRow = (domain: string, id: number, choices: [Side | null, Side | null], turn = 1) => {
  const turing = turingResult([
    turingOrderResult('A', { choice: choices[0], raw: `TURING-REPLY-${id}-1 \\boxed{${choices[0]}}`, attempts: 1 }),
    turingOrderResult('B', { choice: choices[1], raw: `TURING-REPLY-${id}-2`, attempts: 1 }),
  ]);
  return { ...base(domain, id, turn), turing, failed: turing.failed, extracted_output: `SIMULATED ${domain} ${id}` };
};
const turingFile = writeJudged(dir, 't.jsonl', [
  turingRow('mcp', 101, ['A', 'B']),
  turingRow('mcp', 101, ['B', 'B'], 2),
  turingRow('mcp', 102, ['B', 'A']),
  turingRow('mcp', 103, ['A', 'A']),
  turingRow('web', 104, ['B', 'B']),
  turingRow('web', 105, ['A', 'B']),
  turingRow('web', 106, ['A', null]),
  turingRow('web', 107, ['B', 'A']),
]);
const pairwiseRow = (domain: string, id: number, choices: [Side, Side]) => {
  const pairwise = pairwiseResult(
    `${domain}:${id}:1:ref`,
    [
      pairwiseOrderResult('A', { choice: choices[0], raw: 'P1', attempts: 1 }),
      pairwiseOrderResult('B', { choice: choices[1], raw: 'P2', attempts: 1 }),
    ],
    `REFERENCE-PREDICTION-${id}`,
  );
  return { ...base(domain, id), pairwise, failed: pairwise.failed, extracted_output: `CANDIDATE ${id}` };
};
const pairwiseFile = writeJudged(dir, 'p.jsonl', [
  pairwiseRow('mcp', 201, ['A', 'B']),
  pairwiseRow('mcp', 202, ['A', 'A']),
  pairwiseRow('mcp', 203, ['A', 'B']),
  pairwiseRow('android', 204, ['B', 'A']),
  pairwiseRow('android', 205, ['A', 'B']),
  pairwiseRow('android', 206, ['B', 'B']),
]);
const repeat = (total: number, failed: 0 | 1 = 0) => ({
  format: total,
  factuality: total,
  consistency: total,
  realism: total,
  quality: total,
  total_score: failed ? 0 : total,
  failed,
  judge_raw_output: `REPEAT-REPLY ${total}`,
});
const repeatRow = (domain: string, id: number, totals: Array<[number, 0 | 1]>) => {
  const judge_repeats = totals.map(([t, f]) => repeat(t, f));
  return { ...judgedRow({ domain, id }), judge_repeats, ...combineRepeats(judge_repeats) };
};
const repeatFile = writeJudged(dir, 'r.jsonl', [
  repeatRow('mcp', 301, [
    [3, 0],
    [4, 0],
    [5, 0],
  ]),
  repeatRow('mcp', 302, [
    [2, 0],
    [2, 0],
    [3, 0],
  ]),
  repeatRow('os', 303, [
    [1, 0],
    [3, 0],
    [0, 1],
  ]),
  repeatRow('os', 304, [
    [4, 0],
    [5, 0],
    [4, 0],
  ]),
]);
const mixed = join(dir, 'mixed.html');
const mixedFiles = [graded, turingFile, pairwiseFile, repeatFile];

describe('awb report in chromium', { skip: browserSkip }, () => {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;
  const requests: string[] = [];
  const dialogs: string[] = [];
  const errors: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(root, 'dist/commands/results/report.js')), 'run `npm run build` first');
    const r = await awb('report', runA, runB, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /wrote .*report\.html \(12 rows/);
    const m = await awb('report', ...mixedFiles, '-o', mixed);
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stderr, /wrote .*mixed\.html \(21 rows/);
    browser = await launchChromium();
    page = await browser.ctx.newPage();
    page.on('request', (req) => {
      if (!req.url().startsWith('file:')) requests.push(req.url());
    });
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
  });

  after(() => browser?.close());

  it('shows the leaderboard with the numbers `awb score` prints', async () => {
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    const json = JSON.parse((await awb('score', runA, runB, '--format', 'json')).stdout);
    const table = page.locator('table[data-grid="0"] tbody tr');
    assert.equal(await table.count(), 2);
    for (const [i, run] of json.runs.entries()) {
      const cells = table.nth(i).locator('td');
      assert.equal(await cells.nth(0).textContent(), run.label);
      for (const [d, s] of Object.entries(run.domains) as [string, { text: string; valid: number; rows: number }][]) {
        const title = { mcp: 'MCP', web: 'Web', android: 'Android', os: 'OS' }[d]!;
        const cell = page.locator('table[data-grid="0"] tbody tr').nth(i).locator(`td[data-col="${title}"]`);
        assert.equal(await cell.locator('.v, .best').textContent(), s.text, `${run.label} ${d}`);
        assert.equal(await cell.locator('.sub').textContent(), `${s.valid}/${s.rows}`);
      }
      const macro = table.nth(i).locator('td[data-col="Overall (macro)"]');
      assert.equal(await macro.locator('.v, .best').textContent(), run.overall.macro.text);
      const half = (run.overall.macro.ci.hi - run.overall.macro.ci.lo) / 2;
      assert.equal(await macro.locator('.extra').textContent(), `±${formatFixed(half)}`);
      const micro = table.nth(i).locator('td[data-col="Overall (micro)"]');
      assert.equal(await micro.locator('.v, .best').textContent(), run.overall.micro.text);
    }
    // The best cell of each column is marked, as score's json says.
    const bestMacro = json.runs.findIndex((r: { overall: { macro: { best: boolean } } }) => r.overall.macro.best);
    assert.equal(await table.nth(bestMacro).locator('td[data-col="Overall (macro)"] strong.best').count(), 1);
    // Both runs come from different models: the comparability note is there.
    assert.match((await page.locator('#leaderboard .notes').textContent())!, /Scores: \(mean grade - 1\)/);
  });

  it('draws the four charts as SVG', async () => {
    const captions = await page.locator('#charts figcaption').allTextContents();
    assert.ok(captions.some((c) => c.startsWith('Score per domain')));
    assert.ok(captions.some((c) => c.startsWith('The five dimensions per domain')));
    assert.ok(captions.some((c) => c.startsWith('Score by turn depth')));
    assert.ok(captions.some((c) => c.startsWith('Failed rows per domain')));
    // Per-domain bars: 4 domains x 2 runs, each titled with the printed score.
    const first = page.locator('#charts figure').first();
    assert.equal(await first.locator('rect.bar').count(), 8);
    const titles = await first.locator('rect.bar title').allTextContents();
    const json = JSON.parse((await awb('score', runA, runB, '--format', 'json')).stdout);
    assert.ok(titles.includes(`${json.runs[0].label} · MCP: ${json.runs[0].domains.mcp.text}`), titles.join('\n'));
    assert.ok((await first.locator('line.whisker').count()) > 0, 'interval whiskers');
  });

  it('opens a #row= link and shows both rows of a pair held twice', async () => {
    await page.goto(`${pathToFileURL(out).href}#row=android/42/2`);
    await page.waitForSelector('#detail article[data-ref="android/42/2"]');
    const articles = page.locator('#detail article.row');
    // Run A has the pair twice (two distinct rows), run B once.
    assert.equal(await articles.count(), 3);
    const truths = await page.locator('#detail .truth pre').allTextContents();
    assert.deepEqual(truths.sort(), ['ANDROID-TRUTH-ONE', 'ANDROID-TRUTH-ONE', 'ANDROID-TRUTH-TWO']);
    // A link followed from inside the page.
    await page.locator('#row-list a[href="#row=mcp/2/2"]').first().click();
    await page.waitForSelector('#detail article[data-ref="mcp/2/2"]');
    assert.equal(await page.locator('#detail article.row').count(), 2);
    assert.equal(await page.locator('#detail .action pre').first().textContent(), 'ACTION-MCP-2');
    assert.match((await page.locator('#detail .weaknesses').first().textContent())!, /wrong count/);
  });

  it('keeps hostile predictions as text: nothing runs, nothing is fetched', async () => {
    await page.goto(`${pathToFileURL(out).href}#row=web/7/3`);
    await page.waitForSelector('#detail article[data-ref="web/7/3"]');
    const prediction = await page.locator('#detail .prediction pre').first().textContent();
    // Cleaned as the judge saw it: no think block, no wrapper; the markup itself shown as text.
    assert.ok(prediction!.startsWith('<html><body><script>window.__pwned = 1; alert(1)</script>'), prediction!);
    assert.ok(!prediction!.includes('hidden reasoning'));
    assert.ok(!prediction!.includes('predicted_observation'));
    assert.match((await page.locator('#detail .truth pre').first().textContent())!, /TRUTH-WEB-7/);
    await page.locator('#detail details summary').first().click();
    assert.equal(await page.locator('#detail .judge pre').first().textContent(), '</script><script>window.__pwned=5</script>');
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('#detail img, #detail iframe, #detail script, #app svg[onload]').count(), 0);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(requests, []);
    assert.deepEqual(errors, []);
  });

  it('marks a cut text', async () => {
    await page.goto(`${pathToFileURL(out).href}#row=os/5/1`);
    await page.waitForSelector('#detail article[data-ref="os/5/1"]');
    const a = page.locator('#detail article.row').first();
    const text = (await a.locator('.prediction pre').textContent())!;
    assert.ok(!text.includes('TAIL-NEVER-SHOWN'));
    assert.match((await a.locator('.prediction .cut').textContent())!, /^\[cut: the first 6000 of 9016 characters\]$/);
  });

  it('filters by domain, run, score range and failed, and sorts by score', async () => {
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    const refs = () => page.locator('#row-list tr td:first-child').allTextContents();
    assert.equal((await refs()).length, 12);
    await page.selectOption('#f-domain', 'android');
    assert.deepEqual(await refs(), ['android/42/2', 'android/42/2', 'android/42/2']);
    await page.selectOption('#f-run', '1');
    assert.deepEqual(await refs(), ['android/42/2']);
    await page.selectOption('#f-domain', '');
    await page.selectOption('#f-run', '');
    await page.selectOption('#f-failed', '1');
    assert.deepEqual(await refs(), ['mcp/3/1']);
    assert.equal(await page.locator('#row-list tr td:nth-child(3)').textContent(), 'n/a', 'a failed row has no score');
    await page.selectOption('#f-failed', '');
    await page.fill('#f-min', '90');
    assert.deepEqual((await refs()).sort(), ['mcp/1/1', 'mcp/2/2', 'os/5/1']);
    await page.fill('#f-min', '');
    await page.selectOption('#f-sort', 'asc');
    const scores = (await page.locator('#row-list tr td:nth-child(3)').allTextContents()).filter((s) => s !== 'n/a').map(Number);
    assert.deepEqual(
      scores,
      [...scores].sort((x, y) => x - y),
    );
    assert.match((await page.locator('#f-count').textContent())!, /^12 of 12 rows/);
  });

  it('shows the judge modes with the figures and intervals `awb score` gives', async () => {
    await page.goto(pathToFileURL(mixed).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    const json = JSON.parse((await awb('score', ...mixedFiles, '--format', 'json')).stdout);
    // The leaderboard holds the rubric file and the --repeat file (its grades are means), as score's does.
    assert.equal(await page.locator('table[data-grid="0"] tbody tr').count(), json.runs.length);
    assert.equal(json.runs.length, 2);
    const macro = page.locator('table[data-grid="0"] tbody tr').nth(1).locator('td[data-col="Overall (macro)"]');
    assert.equal(await macro.locator('.v, .best').textContent(), json.runs[1].overall.macro.text);
    const TITLES: Record<string, string> = {
      fooling_rate: 'Fooling rate',
      win_rate: 'Win rate',
      position_consistency: 'Position consistency',
      judge_noise: 'Judge noise',
    };
    type Fig = { value: number | null; ci95?: [number, number] };
    assert.deepEqual(
      json.modes.map((m: { mode: string }) => m.mode),
      ['turing', 'pairwise', 'repeat'],
    );
    let checked = 0;
    for (const [k, mode] of json.modes.entries()) {
      const grid = page.locator(`table[data-mode-grid="${k}"]`);
      assert.match((await grid.locator('caption').textContent())!, new RegExp(`\\(${mode.mode}\\)$`));
      const lines = [...Object.entries(mode.domains), ['Overall', { ...mode.overall, rows: mode.rows, counted: mode.counted }]] as Array<
        [string, Record<string, Fig> & { rows: number; counted: number }]
      >;
      assert.equal(await grid.locator('tbody tr').count(), lines.length);
      for (const [i, [domain, figures]] of lines.entries()) {
        const tr = grid.locator('tbody tr').nth(i);
        assert.equal(await tr.locator('td').first().textContent(), domain === 'Overall' ? domain : domainLabel(domain));
        assert.equal(await tr.locator('td[data-col="Rows counted"] .v').textContent(), `${figures.counted}/${figures.rows}`);
        for (const name of Object.keys(mode.overall)) {
          const f = figures[name]!;
          const cell = tr.locator(`td[data-col="${TITLES[name]}"]`);
          assert.equal(await cell.locator('.v').textContent(), formatFixed(f.value ?? undefined), `${mode.mode} ${domain} ${name}`);
          if (f.ci95) assert.equal(await cell.locator('.extra').textContent(), `[${formatFixed(f.ci95[0])}, ${formatFixed(f.ci95[1])}]`);
          checked++;
        }
      }
    }
    assert.equal(checked, 2 * 3 + 2 * 3 + 1 * 3, 'every figure of every domain and Overall');
    // A chart per mode file, bars with whiskers.
    assert.equal(await page.locator('#modes figure').count(), 3);
    assert.ok((await page.locator('#modes figure').first().locator('line.whisker').count()) > 0);
    assert.deepEqual(errors, []);
    // Judge-mode files alone: no leaderboard, no rubric charts, the modes and the rows.
    const only = join(dir, 'only.html');
    const r = await awb('report', turingFile, '-o', only);
    assert.equal(r.code, 0, r.stderr);
    await page.goto(pathToFileURL(only).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    assert.equal(await page.locator('table[data-grid]').count(), 0);
    assert.equal(await page.locator('table[data-mode-grid]').count(), 1);
    assert.equal(await page.locator('#charts').count(), 0);
    assert.match((await page.locator('#f-count').textContent())!, /^8 of 8 rows/);
    assert.deepEqual(errors, []);
  });

  it('opens a row of a turing and of a pairwise file with the choices of the judge', async () => {
    await page.goto(`${pathToFileURL(mixed).href}#row=web/106/1`);
    await page.waitForSelector('#detail article[data-ref="web/106/1"]');
    const a = page.locator('#detail article.row');
    assert.equal(await a.count(), 1);
    const cells = await a.locator('table.choices tr').nth(1).locator('td').allTextContents();
    assert.deepEqual(cells, ['1', 'A', 'A', 'spotted the real one']);
    assert.deepEqual(await a.locator('table.choices tr').nth(2).locator('td').allTextContents(), ['2', 'B', '–', 'no choice']);
    assert.equal(await a.locator('.prediction pre').textContent(), 'SIMULATED web 106');
    assert.equal(await a.locator('.truth pre').textContent(), 'REAL web 106.1');
    await a.locator('details summary').first().click();
    assert.match((await a.locator('.judge pre').first().textContent())!, /^TURING-REPLY-106-1/);
    await page.goto(`${pathToFileURL(mixed).href}#row=android/204/1`);
    await page.waitForSelector('#detail article[data-ref="android/204/1"]');
    const p = page.locator('#detail article.row');
    assert.deepEqual(await p.locator('table.choices tr').nth(1).locator('td').allTextContents(), ['1', 'A', 'B', 'reference']);
    assert.equal(await p.locator('.reference pre').textContent(), 'REFERENCE-PREDICTION-204');
    assert.equal(await p.locator('.prediction pre').textContent(), 'CANDIDATE 204');
  });

  it('opens a row of a --repeat file with each of its judgements', async () => {
    await page.goto(`${pathToFileURL(mixed).href}#row=os/303/1`);
    await page.waitForSelector('#detail article[data-ref="os/303/1"]');
    const a = page.locator('#detail article.row');
    assert.deepEqual(await a.locator('table.repeats tr').nth(1).locator('td').allTextContents(), ['total (1-5)', '1', '3', 'failed']);
    assert.equal(await a.locator('details').count(), 3);
    await a.locator('details summary').nth(1).click();
    assert.equal(await a.locator('details .judge pre').nth(1).textContent(), 'REPEAT-REPLY 3');
  });

  it('shows a line diff of the ground truth and the prediction, and no diff past its cap', async () => {
    await page.goto(`${pathToFileURL(mixed).href}#row=search/8/1`);
    await page.waitForSelector('#detail article[data-ref="search/8/1"]');
    const diff = page.locator('#detail .diff');
    assert.deepEqual(await diff.locator('span').allTextContents(), ['  alpha', '- beta', '+ BETA', '  gamma', '+ delta']);
    assert.deepEqual(await diff.locator('.del').allTextContents(), ['- beta']);
    assert.deepEqual(await diff.locator('.add').allTextContents(), ['+ BETA', '+ delta']);
    await page.goto(`${pathToFileURL(mixed).href}#row=os/9/1`);
    await page.waitForSelector('#detail article[data-ref="os/9/1"]');
    assert.equal(await page.locator('#detail .diff').count(), 0);
    assert.match((await page.locator('#detail .diff-note').textContent())!, /^No diff: 3000 × 3000 lines/);
    assert.equal(await page.locator('#detail .prediction pre').count(), 1, 'the texts stay side by side');
  });

  it("shows a panel's agreement between its members, linked from the nav", async () => {
    const panel = join(dir, 'panel.html');
    const r = await awb('report', writeJudged(dir, 'panel.jsonl', panelRows()), '-o', panel, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    await page.goto(pathToFileURL(panel).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    assert.equal(await page.locator('nav a[href="#agreement"]').count(), 1);
    assert.match((await page.locator('#agreement h3').textContent())!, /a panel of a, b, c$/);
    // Three pairs of members, two tables each, and alpha over all three.
    assert.equal(await page.locator('#agreement table[data-agreement-grid]').count(), 7);
    const ac = page.locator('#agreement table', { has: page.locator('caption', { hasText: 'A = a, B = c: totals by domain' }) });
    assert.equal(await ac.locator('tbody tr').first().locator('td[data-col="κw"]').textContent(), '0.714');
    assert.deepEqual(errors, []);
  });

  it('takes a screenshot', async () => {
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(statSync(shot).size > 10_000);
  });
});

/*
 * The comparison view of `awb report` (two or more graded runs) in Debian's
 * chromium, driven by playwright-core, at 1280 and 1920 px: its deltas are
 * the ones `awb compare` prints, and a row opens with both predictions
 * beside the truth. Data stays text, as in the rest of the page.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../fixtures/judged/rows.js';
import { browserSkip, launchChromium } from '../support/browser.js';
import { awb } from '../support/cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const dir = tempDir('awb-report-compare-');
const grade = (g: number) => [g, g, g, g, g];
/** Six mcp and six web trajectories; the candidate gains a grade on mcp rows 0-3 and loses two on web row 5. */
function run(name: string, side: 'base' | 'cand') {
  const rows = ['mcp', 'web'].flatMap((domain) =>
    Array.from({ length: 6 }, (_, id) => {
      const g = 2 + (id % 3);
      const moved = side === 'base' ? g : domain === 'mcp' && id < 4 ? g + 1 : domain === 'web' && id === 5 ? g - 2 : g;
      const gen = side === 'base' ? `PRED-BASE-${domain}-${id}` : `<script>window.__pwned = 1</script>PRED-CAND-${domain}-${id}`;
      return { ...judgedRow({ domain, id, dims: grade(moved) }), gen, response: [`TRUTH-${domain}-${id}`] };
    }),
  );
  const file = writeJudged(dir, `${name}.jsonl`, rows);
  writeManifest(file, { ...judgedManifest({ model: `model-${name}`, judge: 'judge-x' }), label: name });
  return file;
}
const baseline = run('baseline', 'base');
const candidate = run('candidate', 'cand');
const out = join(dir, 'compare.html');

describe('awb report: comparison view in chromium', { skip: browserSkip }, () => {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    assert.ok(existsSync(join(root, 'dist/core/report/comparison.js')), 'run `npm run build` first');
    const r = await awb('report', baseline, candidate, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    browser = await launchChromium();
    const { ctx } = browser;
    await ctx.route(/^(?!file:)/, (route) => route.abort());
    page = await ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('body[data-ready="1"]');
  });

  after(() => browser?.close());

  it('shows the paired deltas per domain as `awb compare` prints them', async () => {
    const cmp = await awb('compare', baseline, candidate, '--format', 'json');
    assert.equal(cmp.code, 0, cmp.stderr);
    const doc = JSON.parse(cmp.stdout) as unknown;
    const cells = await page.$$eval('#c-deltas tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    const mcp = cells.find((c) => c[0] === 'MCP')!;
    const web = cells.find((c) => c[0] === 'Web')!;
    // mcp: four of six rows up one grade (25 points): +16.67 on 0-100.
    assert.equal(mcp[3], '+16.67');
    assert.equal(web[3], '-8.33');
    assert.equal(mcp[5], '6');
    for (const [label, row] of [
      ['mcp', mcp],
      ['web', web],
    ] as const) {
      assert.ok(JSON.stringify(doc).includes(row[3]!), `${label}: ${row[3]} is in awb compare's output`);
      assert.match(row[4]!, /^\[[+-]\d+\.\d\d, [+-]\d+\.\d\d\]$/);
    }
    const ci = /^\[([+-][\d.]+), ([+-][\d.]+)\]$/.exec(mcp[4]!)!;
    assert.ok(Number(ci[1]) <= 16.67 && 16.67 <= Number(ci[2]));
    assert.equal((await page.locator('#compare td.delta.good').count()) >= 1, true, 'an interval that excludes 0 is marked');
  });

  it('lists rows by change, filters them, and opens a pair beside the truth', async () => {
    assert.equal(await page.locator('#c-count').textContent(), '12 of 12 paired rows');
    const first = await page.$$eval('#c-list tr:first-child td', (tds) => tds.map((t) => t.textContent));
    assert.deepEqual(first, ['web/5/1', '75.00', '25.00', '-50.00']);
    await page.selectOption('#c-order', 'gain');
    assert.equal(await page.locator('#c-list tr:first-child td:last-child').textContent(), '+25.00');
    await page.selectOption('#c-domain', 'web');
    assert.equal(await page.locator('#c-count').textContent(), '6 of 12 paired rows');
    await page.selectOption('#c-domain', '');
    await page.fill('#c-text', 'PRED-CAND-mcp-2');
    assert.equal(await page.locator('#c-count').textContent(), '1 of 12 paired rows');
    await page.click('#c-list button.link');
    const texts = await page.$$eval('#c-detail .pair.three pre', (ps) => ps.map((p) => p.textContent));
    assert.deepEqual(texts, ['PRED-BASE-mcp-2', 'TRUTH-mcp-2', '<script>window.__pwned = 1</script>PRED-CAND-mcp-2']);
    assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
    assert.deepEqual(errors, []);
  });

  for (const width of [1280, 1920])
    it(`fits a ${width} px window and takes a screenshot`, async () => {
      await page.setViewportSize({ width, height: 1000 });
      const overflow = await page.$eval('html', (h) => h.scrollWidth - h.clientWidth);
      assert.equal(overflow, 0, 'no horizontal scroll');
      const box = (await page.locator('#c-deltas').boundingBox())!;
      assert.ok(box.x + box.width <= width, 'the delta table is not clipped');
      await page.locator('#compare').screenshot({ path: join(process.env.AWB_SCREENSHOTS ?? dir, `compare-${width}.png`) });
    });
});

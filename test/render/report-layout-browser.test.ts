/*
 * `awb report` pages opened as a person opens them, in Debian's chromium
 * (playwright-core, never a downloaded browser): a `#row=` link opened from
 * outside scrolls to its row, and the leaderboard fits common windows.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { browserSkip, launchChromium } from '../support/browser.js';
import { runAwb } from '../support/cli.js';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../fixtures/judged/rows.js';

const dir = tempDir('awb-report-layout-');
const DOMAINS = ['web', 'mcp', 'search', 'terminal', 'swe', 'android', 'os'];
/** Every domain, three turns of twelve trajectories: a page long enough that a row's detail lies far below the top. */
const rows = (lift: number) =>
  DOMAINS.flatMap((domain) =>
    Array.from({ length: 12 }, (_, i) =>
      [1, 2, 3].map((turn) => ({
        ...judgedRow({ domain, id: 1 + i, turn, dims: Array(5).fill(1 + ((i + turn + lift) % 5)) }),
        response: Array.from({ length: turn }, (_, t) => `${domain.toUpperCase()}-TRUTH-${i + 1}.${t + 1}\n`.repeat(20)),
      })),
    ).flat(),
  );
const runA = writeJudged(dir, 'a.jsonl', rows(0));
const runB = writeJudged(dir, 'b.jsonl', rows(1));
// A label as long as people give them: it must not push the Overall columns out of the window.
writeManifest(runA, {
  ...judgedManifest({ model: 'm-a', judge: 'j' }),
  label: 'Qwen3-235B-A22B-Instruct-2507-FP8/vllm-0.11-tp8-prefix-cache',
});
writeManifest(runB, judgedManifest({ model: 'Qwen-AgentWorld-397B-A17B-candidate', judge: 'j' }));
const report = join(dir, 'report.html');

describe('awb report: links and layout in chromium', { skip: browserSkip }, () => {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  const errors: string[] = [];

  before(async () => {
    const r = await runAwb(['report', runA, runB, '--with-published', '-o', report]);
    assert.equal(r.code, 0, r.stderr);
    browser = await launchChromium({ width: 1280, height: 800 });
  });

  after(async () => {
    await browser?.close();
    assert.deepEqual(errors, []);
  });

  /** A fresh tab at `hash`, as a link from a chat or a CI log opens it, `width` px wide. */
  async function open(hash: string, width = 1280): Promise<Page> {
    const page = await browser!.ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${pathToFileURL(report).href}${hash}`);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    return page;
  }

  /** Where the top of the opened row's heading is, in the window: on screen means 0 <= top < the window's height. */
  const headingTop = async (page: Page, ref: string) =>
    (await page.locator(`#detail article[data-ref="${ref}"] h3`).first().boundingBox())!.y;
  const scrollY = (page: Page) => page.evaluate('window.scrollY') as Promise<number>;

  it("report.html#row=web/7/3 opened from outside: both runs' rows of that name open, scrolled to, and the list marks it", async () => {
    const page = await open('#row=web/7/3');
    assert.equal(await page.locator('#detail article[data-ref="web/7/3"]').count(), 2);
    assert.ok((await scrollY(page)) > 1000, 'scrolled down the page');
    const top = await headingTop(page, 'web/7/3');
    assert.ok(top >= 0 && top < 800, `heading at ${top}`);
    assert.match((await page.locator('#detail .truth pre').first().textContent())!, /^WEB-TRUTH-7\.3$/m);
    // The list shows run A's rows first: its row of that name is the one listed.
    assert.deepEqual(await page.locator('#row-list tr.current a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))), [
      '#row=web/7/3',
    ]);
    await page.close();
  });

  it('the same link followed again after scrolling away opens the row again', async () => {
    const page = await open('#row=web/7/3');
    await page.evaluate('window.scrollTo(0, 0)');
    assert.equal(await scrollY(page), 0);
    // A click event sent to the link: playwright's own click would scroll to the link first.
    await page.locator('#row-list a[href="#row=web/7/3"]').first().dispatchEvent('click');
    await page.waitForFunction('window.scrollY > 1000');
    const top = await headingTop(page, 'web/7/3');
    assert.ok(top >= 0 && top < 800, `heading at ${top}`);
    await page.close();
  });

  it("every row link of the page has the #row=<domain>/<id>/<turn_idx> form, the comparison view's too, and opens its row", async () => {
    const page = await open('');
    const hrefs = await page.locator('a[href^="#row="]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    assert.ok(hrefs.length >= 50, String(hrefs.length));
    for (const h of hrefs) assert.match(h, /^#row=[a-z]+\/\d+\/[1-3]$/);
    // A pair of the comparison view names its row with the same link.
    await page.locator('#c-list button.link').first().click();
    const link = page.locator('#c-detail h3 a.ref');
    const href = (await link.getAttribute('href'))!;
    assert.match(href, /^#row=[a-z]+\/\d+\/[1-3]$/);
    await link.click();
    const ref = href.slice('#row='.length);
    await page.waitForSelector(`#detail article[data-ref="${ref}"]`);
    const top = await headingTop(page, ref);
    assert.ok(top >= 0 && top < 800, `heading at ${top}`);
    // The opened row names itself with its link too.
    assert.equal(await page.locator(`#detail article[data-ref="${ref}"] h3 a.ref`).first().getAttribute('href'), href);
    await page.close();
  });

  for (const width of [1280, 1920]) {
    it(`the leaderboard fits a ${width} px window: no column cut, Overall (micro) on screen`, async () => {
      const page = await open('', width);
      const box = page.locator('table[data-grid="0"]').locator('xpath=..');
      const [scroll, client] = await Promise.all([box.evaluate((e) => e.scrollWidth), box.evaluate((e) => e.clientWidth)]);
      assert.ok(scroll <= client, `the table needs ${scroll} px in ${client}`);
      const micro = (await page.locator('table[data-grid="0"] th', { hasText: 'Overall (micro)' }).boundingBox())!;
      assert.ok(micro.x >= 0 && micro.x + micro.width <= width, `Overall (micro) spans ${micro.x}+${micro.width} of ${width}`);
      // The long label wraps inside its column instead.
      if (width === 1280)
        assert.ok((await page.locator('table[data-grid="0"] tbody td[data-col="Run"]').first().boundingBox())!.height > 30);
      await page.close();
    });
  }
});

/*
 * How an `awb report` page behaves in Debian's chromium (driven by
 * playwright-core, as in test/report-browser.test.ts): the time from
 * navigation to the leaderboard on screen and to every row listed, and how
 * long a filter, a sort and opening a row take once it is there.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { median } from './measure.js';

const CHROMIUM = '/usr/bin/chromium';

export interface PageTimings {
  /** Per load: ms from the start of navigation until playwright sees the leaderboard's table visible. */
  leaderboardMs: number[];
  /**
   * Per load: when the browser painted the leaderboard (its Element Timing
   * renderTime, ms after navigation start). Playwright's check runs in the
   * page between tasks, so it lags the paint while the page unpacks its rows.
   */
  paintedMs: number[];
  /** Per load: the same for a page holding one small table, the browser's own share at the moment. */
  trivialMs: number[];
  /** Per load: ms from the start of navigation until every row is read and the list drawn. */
  rowsMs: number[];
  /** Median ms of a change of the domain filter (script and layout), of a sort, of a score bound, of opening a row. */
  filterMs: number;
  sortMs: number;
  boundMs: number;
  openRowMs: number;
}

/** undefined when chromium is missing. */
export async function pageTimings(html: string, loads = 3): Promise<PageTimings | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  const profile = mkdtempSync(join(tmpdir(), 'awb-bench-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
  });
  try {
    const url = pathToFileURL(html).href;
    const out: PageTimings = {
      leaderboardMs: [],
      paintedMs: [],
      trivialMs: [],
      rowsMs: [],
      filterMs: 0,
      sortMs: 0,
      boundMs: 0,
      openRowMs: 0,
    };
    const trivial = join(profile, 'trivial.html');
    writeFileSync(trivial, '<!doctype html><title>t</title><section id="leaderboard"><table><tr><td>1</td></tr></table></section>');
    let page: Page | undefined;
    for (let i = 0; i < loads; i++) {
      await page?.close();
      page = await ctx.newPage();
      let started = performance.now();
      await page.goto(pathToFileURL(trivial).href, { waitUntil: 'commit' });
      await page.waitForSelector('#leaderboard table', { state: 'visible' });
      out.trivialMs.push(performance.now() - started);
      started = performance.now();
      await page.goto(url, { waitUntil: 'commit' });
      await page.waitForSelector('#leaderboard table', { state: 'visible', timeout: 120_000 });
      out.leaderboardMs.push(performance.now() - started);
      await page.waitForSelector('body[data-ready="1"]', { state: 'attached', timeout: 120_000 });
      out.rowsMs.push(performance.now() - started);
      out.paintedMs.push(
        await page.evaluate<number>(
          `new Promise((resolve) => new PerformanceObserver((list, observer) => { const e = list.getEntries().find((x) => x.identifier === 'data-grid'); if (e) { observer.disconnect(); resolve(e.renderTime); } }).observe({ type: 'element', buffered: true }))`,
        ),
      );
    }
    const p = page!;
    // Each change is timed in the page: the handler's script and the layout it forces.
    // Page scripts go as strings: this file is compiled without the DOM's types.
    const timed = (change: string) =>
      p.evaluate<number>(
        `(() => { const t = performance.now(); ${change} void document.body.offsetHeight; return performance.now() - t; })()`,
      );
    const set = (id: string, value: string, event: string) =>
      `const e = document.getElementById(${JSON.stringify(id)}); e.value = ${JSON.stringify(value)}; e.dispatchEvent(new Event(${JSON.stringify(event)}));`;
    const filter: number[] = [];
    const sort: number[] = [];
    const bound: number[] = [];
    const open: number[] = [];
    const refs = [await p.locator('#row-list a').nth(5).getAttribute('href'), await p.locator('#row-list a').nth(40).getAttribute('href')];
    for (let i = 0; i < 5; i++) {
      filter.push(await timed(set('f-domain', 'web', 'change')));
      filter.push(await timed(set('f-domain', '', 'change')));
      sort.push(await timed(set('f-sort', 'asc', 'change')));
      sort.push(await timed(set('f-sort', 'file', 'change')));
      bound.push(await timed(set('f-min', '40', 'input')));
      bound.push(await timed(set('f-min', '', 'input')));
      // The listener is added after the page's own, so it runs once the row is drawn.
      open.push(
        await p.evaluate<number>(
          `new Promise((resolve) => { const t = performance.now(); addEventListener('hashchange', () => resolve(performance.now() - t), { once: true }); location.hash = ${JSON.stringify(refs[i % 2])}; })`,
        ),
      );
    }
    out.filterMs = median(filter);
    out.sortMs = median(sort);
    out.boundMs = median(bound);
    out.openRowMs = median(open);
    return out;
  } finally {
    await ctx.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

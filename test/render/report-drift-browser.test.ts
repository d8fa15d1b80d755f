/*
 * `awb report` of a teacher-forced run and free-running ones (issue 53) in a
 * real browser: the drift section draws score against horizon per domain and
 * Overall, and a free-running row's page shows its rollout beside the real
 * observations. Debian's chromium, driven by playwright-core.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { judgedRow, tempDir, writeJudged } from '../fixtures/judged/rows.js';
import { browserSkip, launchChromium } from '../support/browser.js';
import { awb } from '../support/cli.js';

const dir = tempDir('awb-report-drift-');

/**
 * A run at `horizon` (undefined: teacher-forced): rows at turn 3 of mcp and web and one at turn 6, all graded
 * `grade`, one grade lower on odd ids.
 */
function run(name: string, horizon: number | 'all' | undefined, grade: number): string {
  const at = ['mcp', 'web'].flatMap((domain) => [1, 2, 3, 4, 5, 6].map((id) => ({ domain, id, turn: 3 })));
  const rows = [...at, { domain: 'mcp', id: 8, turn: 6 }].map(({ domain, id, turn: t }) => {
    const g = grade - (id % 2);
    const row = judgedRow({ domain, id, turn: t, dims: [g, g, g, g, g] });
    if (horizon === undefined) return row;
    const from = horizon === 'all' ? 1 : Math.max(1, t - horizon);
    const rollout = [];
    for (let turn = from; turn < t; turn++)
      rollout.push({ turn, gen: `<predicted_observation>GENERATED ${domain} ${id}.${turn}</predicted_observation>` });
    return { ...row, horizon, rollout };
  });
  return writeJudged(dir, name, rows);
}

const files = [run('tf.jsonl', undefined, 5), run('h1.jsonl', 1, 4), run('hall.jsonl', 'all', 3)];
const out = join(dir, 'drift.html');

describe('awb report of free-running runs, in chromium', { skip: browserSkip }, () => {
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    const r = await awb('report', ...files, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    browser = await launchChromium();
    page = await browser.ctx.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
  });

  after(() => browser?.close());

  it('draws score against horizon, a line per domain and Overall, and the drops with their first significant horizon', async () => {
    await page.goto(pathToFileURL(out).href);
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached' });
    assert.equal(await page.locator('nav a[href="#drift"]').count(), 1);
    const figure = page.locator('#drift figure');
    assert.equal(await figure.count(), 1);
    // MCP, Web, Overall: one line each over the three horizons.
    assert.equal(await figure.locator('path.line').count(), 3);
    assert.equal(await figure.locator('circle.dot').count(), 9);
    const json = JSON.parse((await awb('drift', ...files, '--format', 'json')).stdout) as {
      curves: { scope: string; points: { score: number; horizon: number | 'all' }[] }[];
    };
    const overall = json.curves.find((c) => c.scope === 'overall')!;
    const titles = await figure.locator('circle.dot title').allTextContents();
    for (const p of overall.points) {
      const h = p.horizon === 0 ? 'H=0' : `H=${p.horizon}`;
      assert.ok(titles.includes(`Overall (macro) · horizon ${h}: ${p.score.toFixed(2)}`), `${h}: ${titles.join('\n')}`);
    }
    const cells = await page.locator('#drift table tr').last().locator('td').allTextContents();
    assert.equal(cells[0], 'Overall (macro)');
    assert.match(cells[1]!, /^\+25\.00 \[/);
    assert.equal(cells.at(-1), 'H=1');
    assert.deepEqual(errors, []);
  });

  it("shows a free-running row's generated observations beside the real ones", async () => {
    await page.goto(`${pathToFileURL(out).href}#row=web/2/3`);
    await page.waitForSelector('#detail article[data-ref="web/2/3"]');
    assert.equal(await page.locator('#detail article.row').count(), 3);
    const rollouts = page.locator('#detail details.rollout');
    // The teacher-forced row has none; H=1 generated turn 2, all turns 1 and 2.
    assert.equal(await rollouts.count(), 2);
    const generated = await page.locator('#detail details.rollout .prediction pre').allTextContents();
    assert.deepEqual(generated.sort(), ['GENERATED web 2.1', 'GENERATED web 2.2', 'GENERATED web 2.2']);
    const real = await page.locator('#detail details.rollout .truth pre').allTextContents();
    assert.deepEqual(real.sort(), ['observation 2.1', 'observation 2.2', 'observation 2.2']);
    assert.deepEqual(errors, []);
  });

  it('shows the last turns of a long rollout and says how many it generated', async () => {
    await page.goto(`${pathToFileURL(out).href}#row=mcp/8/6`);
    await page.waitForSelector('#detail article[data-ref="mcp/8/6"]');
    const summaries = await page.locator('#detail details.rollout summary').allTextContents();
    // H=1: turn 5 alone; all: turns 1-5, the last three shown.
    assert.deepEqual(summaries.sort(), [
      "Rollout: the model's own observations for turn 5, beside the real ones",
      "Rollout: the model's own observations for turns 3–5 (the last 3 of the 5 it generated; awb rows shows them all), beside the real ones",
    ]);
    const generated = await page.locator('#detail details.rollout .prediction pre').allTextContents();
    assert.deepEqual(generated.sort(), ['GENERATED mcp 8.3', 'GENERATED mcp 8.4', 'GENERATED mcp 8.5', 'GENERATED mcp 8.5']);
    assert.deepEqual(errors, []);
  });
});

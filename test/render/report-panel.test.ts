import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ALL, krippendorffAlpha } from '../../src/core/agreement/index.js';
import { collectWithPairs } from '../../src/core/report/index.js';
import { judgedRow, panelRows, scoreRequestOf, tempDir, writeJudged } from '../fixtures/judged/rows.js';
import { awb } from '../support/cli.js';

/* The report's agreement between the members of a panel of judges, as `awb agreement` computes it between files. */

const dir = tempDir('awb-report-panel-');

const panelFile = writeJudged(dir, 'panel.jsonl', panelRows());
const singleFile = writeJudged(dir, 'single.jsonl', [
  judgedRow({ domain: 'mcp', id: 1 }),
  judgedRow({ domain: 'mcp', id: 2, dims: [3, 3, 3, 3, 3] }),
]);

describe('report: agreement between the members of a panel', () => {
  it('gives every pair of members its exact agreement, weighted kappa and alpha per domain, and alpha over all members', async () => {
    const { panels } = await collectWithPairs(scoreRequestOf([singleFile, panelFile]));
    assert.equal(panels.length, 1, 'the file judged by one judge has no members to compare');
    const { run, agreement } = panels[0]!;
    assert.equal(run, 1);
    assert.deepEqual(
      agreement.judges.map((j) => j.label),
      ['a', 'b', 'c'],
    );
    const pair = (a: number, b: number) => agreement.pairs.find((p) => p.a === a && p.b === b)!;
    for (const d of pair(0, 1).domains) {
      assert.deepEqual([d.dims.total.exact, d.dims.total.kappa, d.dims.total.alpha], [1, 1, 1], `a and b alike in ${d.domain}`);
    }
    for (const d of pair(0, 2).domains) {
      const t = d.dims.total;
      assert.equal(t.rows, 4 * (d.domain === ALL ? 2 : 1));
      assert.equal(t.exact, 0, `c one grade higher in ${d.domain}`);
      assert.ok(Math.abs(t.kappa - 5 / 7) < 1e-12, `κw ${t.kappa} in ${d.domain}`);
      // The same alpha `awb agreement` gives two files graded g and g + 1 on these rows.
      const units = [1, 2, 3, 4].map((g) => [g * 60, (g + 1) * 60]);
      assert.equal(t.alpha, krippendorffAlpha(d.domain === ALL ? [...units, ...units] : units));
      assert.equal(t.meanDiff, -25);
    }
    assert.deepEqual(
      agreement.panel!.map((p) => p.domain),
      ['mcp', 'search', ALL],
    );
  });

  it('the page carries those tables under Judge agreement, and none for a file judged by one judge', async () => {
    const page = async (files: string[], name: string) => {
      const out = join(dir, name);
      const r = await awb('report', ...files, '-o', out, '--no-ci');
      assert.equal(r.code, 0, r.stderr);
      const html = readFileSync(out, 'utf8');
      return JSON.parse(/<script type="application\/json" id="awb-data">(.*?)<\/script>/s.exec(html)![1]!) as {
        agreement?: Array<{
          run: number;
          label: string;
          judges: string[];
          grids: Array<{ title: string; rows: Array<{ cells: Array<{ text: string }> }> }>;
        }>;
      };
    };
    const data = await page([singleFile, panelFile], 'panel.html');
    assert.equal(data.agreement!.length, 1);
    const [panel] = data.agreement!;
    assert.deepEqual([panel!.run, panel!.judges], [1, ['a', 'b', 'c']]);
    const totals = panel!.grids.find((g) => g.title === 'A = a, B = c: totals by domain')!;
    // Domain, Matched, Failed A/B, Rows, Exact, κw, α, r, Mean A − B
    assert.deepEqual(
      totals.rows.map((r) => [r.cells[0]!.text, r.cells[4]!.text, r.cells[5]!.text]),
      [
        ['MCP', '0.0%', '0.714'],
        ['Search', '0.0%', '0.714'],
        ['All domains', '0.0%', '0.714'],
      ],
    );
    assert.ok(panel!.grids.some((g) => g.title === "Krippendorff's α (ordinal), all 3 judges"));
    assert.equal((await page([singleFile], 'single.html')).agreement, undefined);
  });
});

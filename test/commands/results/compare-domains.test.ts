/*
 * awb compare --domains from the CLI: every format and the step summary show
 * only the domains asked for; the gate's exit code is theirs (6 for one too
 * small to test); a domain neither run has is a one-line usage error (2).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { refusalLine } from '../../support/refusal.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';

const dir = tempDir('awb-compare-domains-cli-');

/** Trajectories per domain, one row each: MCP and Search testable, OS too small to test. */
const SIZES: Record<string, number> = { mcp: 12, search: 12, os: 4 };
const run = (name: string, grade: (domain: string) => number) =>
  writeJudged(
    dir,
    name,
    Object.entries(SIZES).flatMap(([domain, n]) =>
      Array.from({ length: n }, (_, i) => judgedRow({ domain, id: i + 1, dims: Array(5).fill(grade(domain)) })),
    ),
  );
// MCP loses a grade on every row (-25 points), Search and OS keep theirs.
const baseline = run('base.jsonl', () => 4);
const candidate = run('cand.jsonl', (d) => (d === 'mcp' ? 3 : 4));

const compare = (args: string[]) => runAwb(['compare', baseline, candidate, ...args]);
const tableDomains = (out: string) => [...out.matchAll(/^\|? ?(MCP|Search|OS|Overall \\?\(macro\\?\)) /gm)].map((m) => m[1]);

describe('awb compare --domains', () => {
  it('json: only the domains asked for, Overall their macro, the gate saying which were asked for', async () => {
    const r = await compare(['--domains', 'Search,os', '--format', 'json', '--fail-below', '1', '--allow-partial']);
    // OS asked for but too small to test: exit 6, although Search passes and MCP's drop is left out.
    assert.equal(r.code, 6, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(json.domains), ['search', 'os']);
    assert.deepEqual(json.requested_domains, ['search', 'os']);
    assert.equal(json.overall.delta, 0);
    assert.equal(json.overall.domains, 2);
    assert.deepEqual(json.gate.domains, ['search', 'os']);
    assert.equal(json.gate.outcome, 'untestable');
    assert.deepEqual(
      json.gate.reasons.map((x: Record<string, unknown>) => [x.code, x.domain, x.trajectories, x.tests]),
      [['untestable', 'os', 4, 3]],
    );
    assert.deepEqual(json.gate.not_tested, []);
    assert.deepEqual(json.gate.tests.map((t: { domain: string }) => t.domain).sort(), ['overall', 'search']);
  });

  it('the gate on testable domains: their regression fails it (4), the others do not (0)', async () => {
    const mcp = await compare(['--domains', 'mcp', '--fail-below', '1', '--format', 'json']);
    assert.equal(mcp.code, 4, mcp.stderr);
    assert.equal(JSON.parse(mcp.stdout).overall.delta, -25);
    const search = await compare(['--domains', 'search', '--fail-below', '1', '--format', 'json']);
    assert.equal(search.code, 0, search.stderr);
    const gate = JSON.parse(search.stdout).gate;
    assert.equal(gate.outcome, 'passed');
    assert.equal(gate.tests.length, 2);
    // Without --domains, OS only goes under not_tested and MCP's drop fails the gate.
    const all = await compare(['--fail-below', '1', '--format', 'json']);
    assert.equal(all.code, 4, all.stderr);
    assert.deepEqual(
      JSON.parse(all.stdout).gate.not_tested.map((u: { domain: string }) => u.domain),
      ['os'],
    );
    assert.equal(JSON.parse(all.stdout).requested_domains, null);
  });

  it('table, markdown and the step summary list only the domains asked for', async () => {
    const summary = join(dir, 'summary.md');
    const table = await compare(['--domains', 'search', '--fail-below', '1', '--summary', summary]);
    assert.equal(table.code, 0, table.stderr);
    const md = await compare(['--domains', 'search', '--format', 'md']);
    assert.equal(md.code, 0, md.stderr);
    for (const out of [table.stdout, md.stdout, readFileSync(summary, 'utf8')]) {
      const lines = tableDomains(out);
      assert.ok(lines.includes('Search'), out);
      assert.ok(!lines.includes('MCP') && !lines.includes('OS'), out);
      assert.match(out, /Domains: +Search only/);
    }
  });

  it('a domain neither run has: one line naming it, exit 2, nothing on stdout', async () => {
    const r = await compare(['--domains', 'search,termnal', '--fail-below', '1']);
    const line = refusalLine(r, 2);
    assert.match(line, /"termnal"/);
    assert.doesNotMatch(line, /"search"/);
    assert.equal(r.stdout, '');
  });
});

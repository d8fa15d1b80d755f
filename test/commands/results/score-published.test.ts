/*
 * Comparisons that stay honest: published rows, rubrics per domain, Overall
 * across different domain sets, the side-by-side views, stage prices.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { pricesOption, SCORE_OPTIONS } from '../../../src/commands/results/results-options.js';
import { declare, parseOptions } from '../../../src/commands/shared/option-table.js';
import { domainName, parseDomainList, PUBLISHED_ROW_COUNTS } from '../../../src/core/domains.js';
import { scoreFiles, type ScoreRequest } from '../../../src/core/score/score-files.js';
import { comparabilityNotes, isDifference, type Provenance, type ScoreNotice } from '../../../src/core/score/index.js';
import { NOTE_WORDS } from '../../../src/commands/words/index.js';
import { loadRubrics } from '../../../src/core/rubrics/rubrics.js';
import { renderScoreJson } from '../../../src/render/json.js';
import { renderScoreTable } from '../../../src/render/table.js';
import { isFault } from '../../support/fault-kind.js';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../../fixtures/judged/rows.js';

const dir = tempDir('awb-honest-');

const request = (files: string[], extra: Partial<ScoreRequest> = {}): ScoreRequest => ({
  files,
  failuresAsLowest: false,
  bootstrap: { resamples: 100, seed: 3 },
  withPublished: false,
  prices: undefined,
  byTurn: false,
  ...extra,
});

/** The parts of a judged manifest the tests change. */
interface EditableManifest {
  settings: { judge_sampling?: { temperature: number; max_tokens: number }; rubrics?: unknown };
  upstream: { settings: { history: string } };
}

/** A manifest meeting every condition of the published numbers, with `change` applied. */
function publishedLike(model: string, change: (m: EditableManifest) => void = () => {}): Record<string, unknown> {
  const manifest = judgedManifest({ model, judge: 'gpt-5.2-2025-12-11', commit: 'f'.repeat(40) });
  const m = manifest as unknown as EditableManifest;
  m.settings.judge_sampling = { temperature: 0.6, max_tokens: 32768 };
  m.settings.rubrics = { source: '/rubrics/official', sha256: 'cd'.repeat(32), layout: 'official', domains: {} };
  change(m);
  return manifest;
}

/** Every row of the published split, grade `g` everywhere (small rows: a trajectory per row). */
function fullSplit(name: string, g: number): string {
  const rows: Array<Record<string, unknown>> = [];
  for (const [domain, n] of Object.entries(PUBLISHED_ROW_COUNTS)) {
    for (let id = 1; id <= n; id++) rows.push(judgedRow({ domain, id, dims: [g, g, g, g, g] }));
  }
  return writeJudged(dir, name, rows);
}

const row = (line: string | undefined): string => line ?? '';

describe('--with-published', () => {
  it('ranks a run meeting every condition against the published rows, and names what another run misses', async () => {
    const good = fullSplit('good.jsonl', 5);
    writeManifest(good, publishedLike('good-model'));
    const cool = fullSplit('cool.jsonl', 5);
    writeManifest(
      cool,
      publishedLike('cool-model', (m) => {
        m.settings.judge_sampling!.temperature = 0;
        m.upstream.settings.history = 'none';
      }),
    );
    const report = await scoreFiles(request([good, cool], { withPublished: true, bootstrap: undefined }));
    assert.deepEqual(report.runs[0]!.publishedGaps, []);
    assert.deepEqual(report.runs[1]!.publishedGaps, [
      { kind: 'judge-sampling', temperature: 0, maxTokens: 32768, published: { temperature: 0.6, maxTokens: 32768 } },
      { kind: 'history', history: 'none' },
    ]);
    const out = renderScoreTable(report, NOTE_WORDS, 0);
    const lines = out.split('\n');
    // 100 everywhere: the comparable run is best against everyone; the other only among the runs, so it ties there.
    assert.match(row(lines.find((l) => l.startsWith('good-model'))), /^good-model\s+100\.00\*/);
    assert.match(row(lines.find((l) => l.startsWith('GPT-5.4 (published)'))), /70\.10(?!\*)/);
    assert.match(out, /cool-model is not comparable with the published rows \(not ranked against them\): judge sampling: temperature 0/);
    assert.doesNotMatch(out, /good-model is not comparable/);
  });
});

describe('comparability', () => {
  const prov = (byDomain: Record<string, string> | undefined, sha = 'ab'.repeat(32)): Provenance => ({
    manifest: 'found',
    judge: 'j',
    history: 'full',
    rubricsSha256: sha,
    rubricsByDomain: byDomain,
  });

  it('identifies rubrics per domain: the bundled rubrics on fewer domains are the same rubrics', async () => {
    const all = await loadRubrics(undefined, ['mcp', 'search', 'terminal']);
    const two = await loadRubrics(undefined, ['mcp', 'search']);
    assert.notEqual(all.sha256, two.sha256, 'the set hashes differ...');
    assert.equal(all.perDomain.mcp, two.perDomain.mcp, '...the per-domain hashes do not');
    const notes = comparabilityNotes([
      { label: 'a', provenance: prov(all.perDomain, all.sha256), domains: ['mcp', 'search', 'terminal'] },
      { label: 'b', provenance: prov(two.perDomain, two.sha256), domains: ['mcp', 'search'] },
    ]);
    assert.ok(!notes.some(isDifference), JSON.stringify(notes));
    // A rubric edited for one shared domain is named.
    const edited = comparabilityNotes([
      { label: 'a', provenance: prov({ mcp: '1'.repeat(64), search: '2'.repeat(64) }), domains: ['mcp', 'search'] },
      { label: 'b', provenance: prov({ mcp: '1'.repeat(64), search: '3'.repeat(64) }), domains: ['mcp', 'search'] },
    ]);
    assert.deepEqual(edited.filter(isDifference), [
      {
        kind: 'rubrics-differ',
        domains: [
          {
            domain: 'search',
            values: [
              { hash: '2'.repeat(64), runs: ['a'] },
              { hash: '3'.repeat(64), runs: ['b'] },
            ],
          },
        ],
      },
    ]);
  });

  it('files judged before per-domain hashes, with the bundled rubrics on different domains, are not flagged', async () => {
    const judged = async (name: string, domains: string[], sha: string) => {
      const file = writeJudged(
        dir,
        name,
        domains.map((domain) => judgedRow({ domain, id: 1 })),
      );
      const m = judgedManifest({ model: name, judge: 'j', rubrics: sha }) as { dataset: { domains: string[] } };
      m.dataset.domains = domains;
      writeManifest(file, m as unknown as Record<string, unknown>);
      return file;
    };
    const three = ['mcp', 'search', 'terminal'];
    const a = await judged('old-a.jsonl', three, (await loadRubrics(undefined, three)).sha256);
    const b = await judged('old-b.jsonl', ['mcp', 'search'], (await loadRubrics(undefined, ['mcp', 'search'])).sha256);
    const report = await scoreFiles(request([a, b], { bootstrap: undefined }));
    const rubricKinds = ['rubrics-differ', 'rubrics-per-domain-unknown'];
    const aboutRubrics = (n: ScoreNotice) => rubricKinds.includes(n.kind) || (n.kind === 'setting-differs' && n.setting === 'rubrics-set');
    assert.ok(!report.notes.some(aboutRubrics), JSON.stringify(report.notes));
    // A set hash that is not the bundled one stays uncheckable across domain sets, never a false "differs".
    const c = await judged('old-c.jsonl', ['mcp'], 'ef'.repeat(32));
    const mixed = await scoreFiles(request([a, c], { bootstrap: undefined }));
    assert.deepEqual(mixed.notes.filter(aboutRubrics), [{ kind: 'rubrics-per-domain-unknown', runs: ['old-c.jsonl'] }]);
  });

  it('does not rank Overall across runs over different domains; shows dimensions per run and one by-turn table', async () => {
    const rows = (domains: string[], g: number) =>
      domains.flatMap((domain) =>
        [1, 2, 3, 4].flatMap((id) => [1, 2, 3].map((turn) => judgedRow({ domain, id, turn, dims: [g, g, g, Math.max(1, g - 1), g] }))),
      );
    const wide = writeJudged(dir, 'wide.jsonl', rows(['mcp', 'search'], 3));
    const narrow = writeJudged(dir, 'narrow.jsonl', rows(['mcp'], 4));
    const report = await scoreFiles(request([wide, narrow], { byTurn: true }));
    const out = renderScoreTable(report, NOTE_WORDS, 0);
    const board = out.split('\n').slice(0, 8);
    const narrowLine = row(board.find((l) => l.startsWith('narrow')));
    assert.match(narrowLine, /^narrow\.jsonl\s+70\.00\* ±/, 'the shared domain is ranked');
    assert.doesNotMatch(narrowLine.replace(/^narrow\.jsonl\s+70\.00\*/, ''), /\*/, 'Overall is not');
    assert.match(out, /domains differ, so Overall averages different sets and is not ranked/);
    // Dimensions for each run.
    assert.match(out, /Per domain: wide\.jsonl/);
    assert.match(out, /Per domain: narrow\.jsonl/);
    // One by-turn table: both runs, an all-domains row each, intervals.
    assert.equal(out.match(/^By turn \(/gm)!.length, 1);
    assert.match(out, /^wide\.jsonl\s+All domains\s+45\.00 ±[\d.]+/m);
    assert.match(out, /^narrow\.jsonl\s+All domains\s+70\.00 ±[\d.]+/m);
    const json = JSON.parse(renderScoreJson(report, NOTE_WORDS));
    assert.equal(json.runs.length, 2);
  });
});

describe('small things', () => {
  it('domain names are case-insensitive', () => {
    assert.deepEqual(parseDomainList('Terminal, SWE,os'), ['terminal', 'swe', 'os']);
    assert.equal(domainName('MCP'), 'mcp');
    assert.equal(domainName('my_domain'), 'my_domain');
  });

  it('prices each stage separately; --price-input/--price-output price both', async () => {
    const prices = (...args: string[]) =>
      pricesOption(parseOptions(SCORE_OPTIONS, declare(new Command('score'), SCORE_OPTIONS).parse(args, { from: 'user' }).opts()));
    assert.equal(prices(), undefined);
    assert.deepEqual(prices('--price-input', '1', '--price-output', '2', '--price-judge-input', '5'), {
      infer: { input: 1, output: 2 },
      judge: { input: 5, output: 2 },
    });
    assert.deepEqual(prices('--price-cached-input', '0.5', '--price-model-cached-input', '0.1', '--price-judge-output', '3'), {
      infer: { input: 0, output: 0, cachedInput: 0.1 },
      judge: { input: 0, output: 3, cachedInput: 0.5 },
    });
    const file = writeJudged(dir, 'usage.jsonl', [
      {
        ...judgedRow({ id: 1, usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } }),
        judge_usage: { prompt_tokens: 2_000_000, completion_tokens: 0 },
      },
    ]);
    const report = await scoreFiles(
      request([file], { bootstrap: undefined, prices: { infer: { input: 1, output: 2 }, judge: { input: 10, output: 20 } } }),
    );
    const json = JSON.parse(renderScoreJson(report, NOTE_WORDS));
    assert.equal(json.runs[0].usage.infer.cost_usd, 3);
    assert.equal(json.runs[0].usage.judge.cost_usd, 20);
  });

  it('a predictions file given to score is named as such, with how to judge it', async () => {
    const file = join(dir, 'predictions.jsonl');
    writeFileSync(file, JSON.stringify({ task: 'mcp', id: 1, turn_idx: 1, prompt: ['a'], response: ['b'], gen: 'x' }) + '\n');
    await assert.rejects(scoreFiles(request([file])), isFault('judged-file-of-earlier-stage', { file, stage: 'prediction' }));
  });
});

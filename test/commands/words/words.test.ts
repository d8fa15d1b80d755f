import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NOTE_WORDS, noticed, worded } from '../../../src/commands/words/index.js';
import type { Fault, Notice } from '../../../src/core/errors.js';
import type { Samples } from '../../support/fault-samples.js';
import { AGREEMENT_SAMPLES } from './samples/samples-agreement.js';
import { COMPARE_SAMPLES } from './samples/samples-compare.js';
import { MERGE_SAMPLES } from './samples/samples-merge.js';
import { OUTPUT_SAMPLES } from './samples/samples-output.js';
import { PUBLISH_SAMPLES } from './samples/samples-publish.js';
import { ROWS_SAMPLES } from './samples/samples-rows.js';
import { RUBRICS_SAMPLES } from './samples/samples-rubrics.js';
import { SCORE_SAMPLES } from './samples/samples-score.js';
import { STAGE_SAMPLES } from './samples/samples-stage.js';
import { DOWNLOAD_SAMPLES } from './samples/samples-download.js';
import { DRIFT_SAMPLES } from './samples/samples-drift.js';
import { ENDPOINT_SAMPLES } from './samples/samples-endpoints.js';
import { JUDGE_SAMPLES } from './samples/samples-judge.js';
import { RUNNER_SAMPLES } from './samples/samples-runner.js';
import { TOP_SAMPLES } from './samples/samples-top.js';
import { NOTICE_SAMPLES } from './samples/samples-notices.js';
import { renderSamples } from './samples/samples-render.js';
import { lineSamples } from './samples/samples-lines.js';

/*
 * Tests elsewhere assert kinds; this one keeps the wording: every kind said
 * once, compared with a snapshot. UPDATE_SNAPSHOTS=1 writes it anew (review the diff).
 */
const SAMPLES: Samples = {
  ...AGREEMENT_SAMPLES,
  ...COMPARE_SAMPLES,
  ...DOWNLOAD_SAMPLES,
  ...DRIFT_SAMPLES,
  ...ENDPOINT_SAMPLES,
  ...JUDGE_SAMPLES,
  ...MERGE_SAMPLES,
  ...OUTPUT_SAMPLES,
  ...PUBLISH_SAMPLES,
  ...ROWS_SAMPLES,
  ...RUBRICS_SAMPLES,
  ...RUNNER_SAMPLES,
  ...SCORE_SAMPLES,
  ...STAGE_SAMPLES,
  ...TOP_SAMPLES,
};
const SNAPSHOT = fileURLToPath(new URL('./snapshots/words.txt', import.meta.url));

function said(): string {
  const faults = Object.values(SAMPLES).map((fault: Fault) => {
    const e = worded(fault, 'awb');
    return `${fault.kind} (exit ${e.exitCode})\n  ${e.message.replaceAll('\n', '\n  ')}`;
  });
  const notices = (Object.values(NOTICE_SAMPLES) as Notice[]).map((n) => `${n.kind} (notice)\n  ${noticed(n)}`);
  const rendered = renderSamples().map(([what, line]) => `${what} (render)\n  ${line}`);
  const lines = lineSamples().map(([what, line]) => `${what} (line)\n  ${line}`);
  return [...faults, ...notices, ...rendered, ...lines].sort().join('\n') + '\n';
}

describe('the words of every fault', () => {
  it('match the snapshot', () => {
    const now = said();
    if (process.env.UPDATE_SNAPSHOTS) writeFileSync(SNAPSHOT, now);
    assert.equal(now, readFileSync(SNAPSHOT, 'utf8'));
  });

  it('renderers are handed, and of the lines sampled, are one line each', () => {
    for (const [what, line] of [...renderSamples(), ...lineSamples()]) assert.ok(line.length > 0 && !line.includes('\n'), what);
  });

  it("the report page's scripts use, and only those, each worded once", () => {
    const scripts = ['page.js', 'compare.js']
      .map((f) => readFileSync(new URL(`../../../assets/report/${f}`, import.meta.url), 'utf8'))
      .join('\n');
    const used = new Set([...scripts.matchAll(/\bW\.(\w+)|\bsay\('(\w+)'/g)].map((m) => m[1] ?? m[2]!));
    // The page's markup (html/report.ts) says its title and its no-script line.
    const markup = readFileSync(new URL('../../../src/render/html/report.ts', import.meta.url), 'utf8');
    for (const m of markup.matchAll(/\bpage\.(\w+)(?![\w'])/g)) used.add(m[1]!);
    // The labels and the bold mark the page shares with the grids come from NOTE_WORDS.labels and .best (html/report.ts).
    const shared = ['na', 'overall', 'overallMacro', 'best'];
    assert.deepEqual(
      [...used].filter((k) => !(k in NOTE_WORDS.page) && !shared.includes(k)),
      [],
      'used, not worded',
    );
    assert.deepEqual(
      Object.keys(NOTE_WORDS.page).filter((k) => !used.has(k)),
      [],
      'worded, never used',
    );
    for (const [key, text] of Object.entries(NOTE_WORDS.page)) {
      for (const t of typeof text === 'string' ? [text] : text) assert.ok(t.length > 0 && !t.includes('\n'), key);
    }
  });

  it('of every notice are one line each', () => {
    for (const n of Object.values(NOTICE_SAMPLES) as Notice[]) {
      const line = noticed(n);
      assert.ok(line.length > 0 && !line.includes('\n'), n.kind);
    }
  });

  it('are one line each, with an exit code of the documented set', () => {
    for (const fault of Object.values(SAMPLES) as Fault[]) {
      const e = worded(fault, 'awb');
      assert.ok(e.message.length > 0, fault.kind);
      assert.ok(!e.message.includes('\n') || /\n {2}\$ |\n {2}[A-Z_]+=/.test(e.message), `${fault.kind}: one line`);
      assert.ok([1, 2, 3, 4, 5, 6, 130].includes(e.exitCode), `${fault.kind}: exit ${e.exitCode}`);
    }
  });

  it("show a hostile hub's values without raw control characters", () => {
    for (const what of [{ field: 'path' }, { field: 'file name' }] as const) {
      const message = worded(
        { kind: 'hub-listing-unsafe', hub: 'http://127.0.0.1:9', what, value: 'os\u0000\u001b[2J_test.jsonl\u007f' },
        'awb',
      ).message;
      assert.doesNotMatch(message, /[\u0000-\u001f\u007f]/, message);
      assert.match(message, /os.*_test\.jsonl/, 'the value is still shown');
    }
  });

  it('name the commands to run with the invocation they are given, never a hard-coded one', () => {
    const npx = "npx --package 'agentworldbench@0.1.0' awb";
    const command = /\bawb (?:infer|judge|score|report|compare|rows|merge|download|models|agreement)\b|npx agentworldbench/;
    const named: string[] = [];
    for (const fault of Object.values(SAMPLES) as Fault[]) {
      const message = worded(fault, npx).message;
      if (message.includes(npx)) named.push(fault.kind);
      assert.doesNotMatch(message.replaceAll(npx, '<invocation>'), command, fault.kind);
    }
    for (const kind of ['predictions-not-benchmark', 'predictions-are-dataset', 'agreement-choice-file', 'shard-other-stage']) {
      assert.ok(named.includes(kind), `${kind} names a command`);
    }
  });
});

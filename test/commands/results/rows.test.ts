/*
 * `awb rows` and the gate's exit codes, run as a user runs them (the built binary).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgedManifest, judgedRow, tempDir, writeJudged, writeManifest } from '../../fixtures/judged/rows.js';
import { awb } from '../../support/cli.js';

const dir = tempDir('awb-rows-cli-');

const LONG = 'x'.repeat(300);
const row = (domain: string, id: number, g: number, extra: Record<string, unknown> = {}) => ({
  ...judgedRow({ domain, id, turn: 2, dims: [g, g, g, g, g] }),
  response: ['first observation', `**Environment Observation:**\ntruth ${id}\n${LONG}`],
  current_prompt: `run step ${id}`,
  gen: `<think>private reasoning</think><predicted_observation>guess ${id}\u001b[31m</predicted_observation>`,
  strengths: [`right format ${id}`],
  weaknesses: [`wrong numbers ${id}`],
  ...extra,
});
// Lines in finishing order, not by grade; one failed row; one row of another domain.
const file = writeJudged(dir, 'judged.jsonl', [
  row('mcp', 1, 4),
  row('mcp', 2, 1),
  row('terminal', 7, 2),
  { ...row('mcp', 3, 3), total_score: 0, failed: 1, error_message: 'Judge scoring failed: reply could not be parsed' },
  row('mcp', 4, 2),
  row('mcp', 5, 5),
]);

describe('awb rows', () => {
  it('--worst N: the lowest totals first, keyed domain/id/turn_idx, prediction cleaned beside the truth, cut marked, escapes shown', async () => {
    const r = await awb('rows', file, '--domain', 'MCP', '--worst', '2');
    assert.equal(r.code, 0, r.stderr);
    const heads = r.stdout.split('\n').filter((l) => l.startsWith('── '));
    assert.deepEqual(
      heads.map((l) => l.split(' ')[1]),
      ['mcp/2/2', 'mcp/4/2'],
    );
    assert.match(r.stdout, /action: run step 2/);
    // The prediction as the judge saw it: no think block, no wrapper; the escape spelled out, never sent raw.
    assert.match(r.stdout, /^guess 2\\x1b\[31m\s+│ truth 2$/m);
    assert.doesNotMatch(r.stdout, /private reasoning|\u001b/);
    assert.match(r.stdout, /│ x+…$/m, 'a long truth line is cut, and the cut is marked');
    assert.match(r.stdout, /strengths:\n {2}- right format 2\nweaknesses:\n {2}- wrong numbers 2/);
  });

  it('--best, --failed, and json with the row fields plus prediction and ground truth', async () => {
    const best = await awb('rows', file, '--best', '1', '--format', 'json');
    assert.equal(best.code, 0, best.stderr);
    const [top] = JSON.parse(best.stdout);
    assert.deepEqual(
      { ...top, ground_truth: top.ground_truth.slice(0, 7) },
      {
        key: 'mcp/5/2',
        fingerprint: top.fingerprint,
        task: 'agentworld/mcp',
        id: 5,
        turn_idx: 2,
        total_score: 5,
        format: 5,
        factuality: 5,
        consistency: 5,
        realism: 5,
        quality: 5,
        failed: 0,
        current_action: 'run step 5',
        prediction: 'guess 5\u001b[31m',
        ground_truth: 'truth 5',
        strengths: ['right format 5'],
        weaknesses: ['wrong numbers 5'],
      },
    );
    const failed = JSON.parse((await awb('rows', file, '--failed', '--format', 'json')).stdout);
    assert.deepEqual(
      failed.map((r: { key: string; error_message: string }) => [r.key, r.error_message]),
      [['mcp/3/2', 'Judge scoring failed: reply could not be parsed']],
    );
    // Without --worst/--best: every row, in file order.
    assert.equal(JSON.parse((await awb('rows', file, '--format', 'json')).stdout).length, 6);
    assert.equal((await awb('rows', file, '--worst', '1', '--best', '1')).code, 2);
  });

  it('a grade score refuses is refused here too, in one line naming file, line and field', async () => {
    const bad = writeJudged(dir, 'grade-7.jsonl', [row('mcp', 1, 4), { ...row('mcp', 2, 4), factuality: 7 }, row('mcp', 3, 2)]);
    for (const args of [[], ['--worst', '1'], ['--format', 'json']]) {
      const r = await awb('rows', bad, ...args);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^awb: .*grade-7\.jsonl:2: factuality: must be 0 \(no score\) or a grade from 1 to 5.*got 7\n$/);
    }
  });

  it('a row parsed with every grade 0 is failed, as score counts it: never among --worst, listed by --failed', async () => {
    const zeros = writeJudged(dir, 'zeros.jsonl', [row('mcp', 1, 4), { ...row('mcp', 2, 0), total_score: 0, failed: 0 }, row('mcp', 3, 2)]);
    const worst = JSON.parse((await awb('rows', zeros, '--worst', '1', '--format', 'json')).stdout);
    assert.deepEqual(
      worst.map((r: { key: string }) => r.key),
      ['mcp/3/2'],
    );
    const failed = JSON.parse((await awb('rows', zeros, '--failed', '--format', 'json')).stdout);
    assert.deepEqual(
      failed.map((r: { key: string; failed: number }) => [r.key, r.failed]),
      [['mcp/2/2', 0]],
      "the row's own failed field is shown as it is",
    );
  });

  it('a predictions or dataset file is refused as score refuses it, not listed as rows that all failed', async () => {
    const judgeResults = ['total_score', 'failed', 'format', 'factuality', 'consistency', 'realism', 'quality', 'strengths', 'weaknesses'];
    const unjudged = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => !judgeResults.includes(k)));
    const preds = writeJudged(dir, 'predictions.jsonl', [unjudged(row('mcp', 1, 4)), unjudged(row('mcp', 2, 3))]);
    const { gen: _gen, ...datasetRow } = unjudged(row('mcp', 1, 4));
    const data = writeJudged(dir, 'mcp_test.jsonl', [datasetRow]);
    for (const [f, why] of [
      [preds, /predictions\.jsonl: is a predictions file .*judge it first/],
      [data, /mcp_test\.jsonl: holds dataset rows/],
    ] as const) {
      for (const args of [[], ['--failed'], ['--format', 'json']]) {
        const r = await awb('rows', f, ...args);
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, new RegExp(`^awb: .*${why.source}[^\\n]*\\n$`));
      }
    }
  });
});

describe('awb rows FILE ROW...', () => {
  // The real data's android pair: one id and turn, two distinct rows (another action and truth).
  const pair = writeJudged(dir, 'pair.jsonl', [
    row('android', 9, 4),
    { ...row('android', 9, 2), current_prompt: 'tap other', response: ['first observation', 'other truth'] },
    row('web', 563640682553697, 3),
  ]);

  it('shows the rows named (domain/id/turn_idx as compare prints them; the domain in any case), in file order', async () => {
    const r = await awb('rows', file, 'terminal/7/2', 'MCP/2/2', '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).map((x: { key: string }) => x.key),
      ['mcp/2/2', 'terminal/7/2'],
    );
    const one = await awb('rows', pair, 'web/563640682553697/2');
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(
      one.stdout.split('\n').filter((l) => l.startsWith('── ')).map((l) => l.split(' ')[1]),
      ['web/563640682553697/2'],
    );
  });

  it('a key held by two rows shows both and names each with its fingerprint, which picks one', async () => {
    const both = await awb('rows', pair, 'android/9/2', '--format', 'json');
    assert.equal(both.code, 0, both.stderr);
    const rows = JSON.parse(both.stdout) as Array<{ key: string; fingerprint: string; current_action: string }>;
    assert.equal(rows.length, 2);
    assert.notEqual(rows[0]!.fingerprint, rows[1]!.fingerprint);
    assert.match(both.stderr, new RegExp(`^awb: note: android/9/2 names 2 rows .*android/9/2#${rows[0]!.fingerprint}, android/9/2#${rows[1]!.fingerprint}$`, 'm'));
    const second = await awb('rows', pair, `android/9/2#${rows[1]!.fingerprint}`, '--format', 'json');
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      JSON.parse(second.stdout).map((x: { current_action: string }) => x.current_action),
      ['tap other'],
    );
  });

  it('a row the file lacks, or a word that names no row, is one line and exit 2', async () => {
    const missing = await awb('rows', file, 'mcp/1/2', 'web/1/1');
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /^awb: .*judged\.jsonl: no row "web\/1\/1"; a row is named domain\/id\/turn_idx/m);
    for (const word of ['mcp-1-2', 'mcp/1', 'mcp/1/0', '/1/2']) {
      const bad = await awb('rows', file, word);
      assert.equal(bad.code, 2, bad.stderr);
      assert.equal(bad.stdout, '');
      assert.match(bad.stderr, /names no row: a row is domain\/id\/turn_idx/);
    }
  });
});

describe('awb compare: exit codes and rows', () => {
  const rows = (lift: number, ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) =>
    ids.flatMap((id) => [1, 2].map((turn) => judgedRow({ domain: 'mcp', id, turn, dims: Array(5).fill(2 + ((id + turn) % 3) + lift) })));
  const base = writeJudged(dir, 'base.jsonl', rows(0));
  writeManifest(base, judgedManifest({ model: 'm', judge: 'j' }));

  it('a candidate missing baseline rows fails the gate (exit 5) unless --allow-partial', async () => {
    const partial = writeJudged(dir, 'partial.jsonl', rows(0, [1, 2, 3, 4, 5, 6, 7, 8]));
    writeManifest(partial, judgedManifest({ model: 'm2', judge: 'j' }));
    const r = await awb('compare', base, partial, '--fail-below', '1', '--format', 'markdown');
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stdout, /^## awb compare\n\n\*\*Gate FAILED/);
    assert.match(r.stdout, /incomplete candidate: 4 row\\\(s\\\) of the baseline are missing/);
    assert.equal((await awb('compare', base, partial, '--fail-below', '1', '--allow-partial')).code, 0);
  });

  it('runs with another judge fail the gate unless --allow-incomparable; --rows lists the rows that moved most', async () => {
    const other = writeJudged(
      dir,
      'other.jsonl',
      rows(0).map((r) => (r.id === 3 && r.turn_idx === 2 ? judgedRow({ domain: 'mcp', id: 3, turn: 2, dims: [1, 1, 1, 1, 1] }) : r)),
    );
    writeManifest(other, judgedManifest({ model: 'm2', judge: 'another-judge' }));
    const r = await awb('compare', base, other, '--fail-below', '1', '--rows', '1');
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stdout, /not comparable: judge differs .*--allow-incomparable/);
    assert.match(r.stdout, /^mcp\/3\/2\s+75\.00\s+0\.00\s+-75\.00$/m);
    // The command compare prints for those rows pastes: it shows them.
    const command = /prediction beside ground truth: (.*)$/m.exec(r.stdout)![1]!.split(' ');
    assert.deepEqual(command.slice(-3), ['rows', other, 'mcp/3/2']);
    const shown = await awb(...command.slice(-3), '--format', 'json');
    assert.deepEqual(
      JSON.parse(shown.stdout).map((x: { key: string }) => x.key),
      ['mcp/3/2'],
    );
    assert.equal((await awb('compare', base, other, '--fail-below', '1', '--allow-incomparable')).code, 0);
    assert.equal((await awb('compare', base, other, '--allow-partial')).code, 2, 'allowances only mean something with a gate');
  });
});

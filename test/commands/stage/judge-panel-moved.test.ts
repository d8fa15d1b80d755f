import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { rowMarker, readRowsOf, synthRows, tempDirs } from '../../support/dataset.js';
import { lastUserText, type ReplyFn } from '../../support/openai-server.js';
import { judgeArgs, useServers } from '../../support/harness.js';

/*
 * Resuming a panel whose members' endpoints moved (issue 51, item 12): hosts and ports are never
 * compared, for a member's own `--member-base-url` as for the shared `--judge-base-url`, so the
 * resume goes on without `--force`, and with it records no "mixed" run.
 */

const dirs = tempDirs('panel-moved');
const serve = useServers();
const rows = synthRows(4, ['mcp']);
let predictions: string;

before(async () => {
  const dir = await dirs.make();
  predictions = join(dir, 'predictions.jsonl');
  const lines = rows.map((r) => JSON.stringify({ ...r, gen: `<predicted_observation>obs of ${rowMarker(r)}</predicted_observation>` }));
  await writeFile(predictions, lines.map((l) => `${l}\n`).join(''));
});

const graded: ReplyFn = (req) => {
  const g = { a: 3, b: 4, c: 5 }[req.model]!;
  return `<final_evaluation>${JSON.stringify({ scores: { format: g, factuality: g, consistency: g, realism: g, quality: g }, strengths: [], weaknesses: [] })}</final_evaluation>`;
};

const args = (shared: string, own: string, out: string, extra: string[] = []) =>
  judgeArgs(shared, predictions, out, ['--member-base-url', `c=${own}`, '--max-retries', '0', ...extra], 'a,b,c');

for (const force of [false, true])
  test(`a panel resumed after its shared and own endpoints moved to other ports goes on${force ? ' (--force records no mixed run)' : ''}`, async () => {
    const target = rows[0]!; // a one-turn trajectory: its marker is in no other row
    const shared = await serve({
      models: ['a', 'b'],
      reply: graded,
      faults: (req) => (req.model === 'b' && lastUserText(req).includes(rowMarker(target)) ? '500' : undefined),
    });
    const own = await serve({ models: ['c'], reply: graded });
    const out = join(await dirs.make(), 'judged.jsonl');
    const first = await runAwb(args(shared.url, own.url, out));
    assert.equal(first.code, 1, first.stderr);

    const [movedShared, movedOwn] = [await serve({ models: ['a', 'b'], reply: graded }), await serve({ models: ['c'], reply: graded })];
    const again = await runAwb(args(movedShared.url, movedOwn.url, out, force ? ['--force'] : []));
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(
      movedShared.log.filter((e) => e.request).map((e) => e.model),
      ['b'],
      'only the member without a judgement is asked',
    );
    assert.equal(movedOwn.stats.requests, 0);
    const judged = await readRowsOf(out);
    assert.deepEqual(
      judged.map((r) => [r.total_score, r.failed]),
      rows.map(() => [4, 0]),
    );
    const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));
    assert.equal(manifest.mixed, undefined, 'nothing that decides a result changed');
    const hosts = (manifest.settings.panel.members as { model: string; hosts: string[] }[]).map((m) => [m.model, m.hosts]);
    const host = (url: string) => new URL(url).host;
    assert.deepEqual(hosts, [
      ['a', [host(movedShared.url)]],
      ['b', [host(movedShared.url)]],
      ['c', [host(movedOwn.url)]],
    ]);
  });

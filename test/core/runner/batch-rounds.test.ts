import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { inferStage } from '../../../src/core/infer/infer.js';
import { BatchPhase } from '../../../src/core/runner/batch-phase.js';
import { plannedRows } from '../../../src/core/runner/plan.js';
import { planLines } from '../../../src/core/rows/input.js';
import { answering, startBatchServer, type BatchServer } from '../../support/batch-server.js';
import { synthRows, tempDirs, writeDataset } from '../../support/dataset.js';

/* A free-running run's batch rounds (--batch --horizon): each round reads only the rows that still ask something. */

const temps = tempDirs('batch-rounds');
const servers: BatchServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await temps.cleanup();
});

test('a row with nothing left to ask (finished, done) is not read in the later rounds', async () => {
  const dir = await temps.make();
  // A trajectory of three turns (rows at turns 1, 2, 3: one, two and three steps at --horizon all), and a row done already.
  const all = synthRows(6, ['os']);
  const [doneRow, , , ...trajectory] = all;
  assert.deepEqual(
    trajectory.map((r) => r.turn_idx),
    [1, 2, 3],
  );
  const data = await writeDataset(join(dir, 'data'), [doneRow!, ...trajectory]);
  const server = await startBatchServer({ reply: answering(() => '<predicted_observation>ok</predicted_observation>') });
  servers.push(server);
  const output = join(dir, 'out.jsonl');
  const settings = { horizon: 'all' as const };
  const stage = inferStage({ describe: () => 'failed' }, { temperature: 0 }, 'full', {}, { horizon: 'all' });
  const end = await stage.begin!(output, settings, false);
  /** How many times each row was read for a round's next step, by `id:turn`. */
  const read = new Map<string, number>();
  const next = stage.rounds!.next;
  stage.rounds!.next = (row, key) => {
    const at = `${row.id}:${row.turn_idx}`;
    read.set(at, (read.get(at) ?? 0) + 1);
    return next(row, key);
  };
  const plan = await planLines([...data.files.values()], {});
  const phase = new BatchPhase(stage, {
    connection: { baseURL: server.url, apiKey: 'k' },
    endpoint: server.url,
    model: 'm',
    output,
    plan,
    settings,
    pollMs: 1,
    secrets: [],
    signal: new AbortController().signal,
  });
  const done = new Set<string>();
  for await (const { read: r } of plannedRows(plan, stage.schema)) if (r.ok && r.row.id === doneRow!.id) done.add(r.key);
  assert.equal(done.size, 1);
  await phase.run(done);
  await end();
  // Three rounds of one step each, then one that finds none left: each row read until the round that finds it finished.
  assert.equal(server.created, 3);
  const id = trajectory[0]!.id;
  assert.deepEqual(Object.fromEntries(read), { [`${id}:1`]: 2, [`${id}:2`]: 3, [`${id}:3`]: 4 });
});

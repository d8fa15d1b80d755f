import assert from 'node:assert/strict';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { respell } from '../../support/respell.js';
import {
  readRowsOf,
  shuffled,
  synthRows,
  tempDirs,
  waitUntil,
  worldReply,
  judgeReply,
  writeDataset,
  type SynthRow,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import type { ChatRequest, FakeServer, LogEntry, ReplyFn } from '../../support/openai-server.js';

/*
 * The order requests reach the endpoint: a later turn of a trajectory is
 * sent only once every request of its earlier turns has been answered (or
 * failed for good), whatever the order of the file (issue 13).
 */

const startServer = useServers();
const dirs = tempDirs('awb-cache-order-');

/** The row a request is for: the marker of the highest turn in its text (earlier turns are its history). */
function rowOf(e: LogEntry): { traj: string; turn: number } {
  const text = JSON.stringify(e.request?.messages ?? []);
  let best: { traj: string; turn: number } | undefined;
  for (const m of text.matchAll(/\[row (\w+)\/(\d+)\/(\d+)\]/g)) {
    const turn = Number(m[3]);
    if (!best || turn > best.turn) best = { traj: `${m[1]}/${m[2]}`, turn };
  }
  assert.ok(best, 'every request carries its row marker');
  return best;
}

/** Asserts that no request of turn t arrived before the last outcome of a request of an earlier turn of its trajectory. */
function assertTurnOrder(server: FakeServer): void {
  const chat = server.log.filter((e) => e.request);
  const byTraj = new Map<string, { turn: number; at: number; doneAt: number }[]>();
  for (const e of chat) {
    const { traj, turn } = rowOf(e);
    const list = byTraj.get(traj) ?? [];
    list.push({ turn, at: e.receivedAt, doneAt: e.receivedAt + e.ms });
    byTraj.set(traj, list);
  }
  let chained = 0;
  for (const [traj, list] of byTraj) {
    for (const r of list) {
      for (const earlier of list.filter((x) => x.turn < r.turn)) {
        assert.ok(r.at >= earlier.doneAt, `${traj} turn ${r.turn} was sent before turn ${earlier.turn} was answered`);
        chained++;
      }
    }
  }
  assert.ok(chained > 0, 'the data has chains to check');
}

/** Trajectories of up to three turns (synthRows), plus longer ones so the chains differ in length. */
function rows(): SynthRow[] {
  const base = synthRows(42);
  const long: SynthRow[] = [];
  const prompt: string[] = [];
  const response: string[] = [];
  for (let t = 1; t <= 6; t++) {
    prompt.push(`### Turn ${t}\n**Action:**\nstep ${t} [row web/77/${t}]`);
    response.push(`observation ${t}`);
    long.push({
      task: 'web',
      id: 77,
      prompt: [...prompt],
      response: [...response],
      current_prompt: prompt[t - 1]!,
      system_str: 'You simulate the web.',
      turn_idx: t,
      total_turns: 6,
    });
  }
  return [...base, ...long];
}

/**
 * World replies, those of the requests `held` picks answered only once `n` requests have been in the reply at
 * once (or after a minute, when the client never sends that many together): how many a client keeps in flight
 * then does not depend on the machine's speed.
 */
function heldUntil(n: number, held: (req: ChatRequest) => boolean): ReplyFn {
  let now = 0;
  let peak = 0;
  return async (req, ctx) => {
    peak = Math.max(peak, ++now);
    if (held(req)) await waitUntil(() => peak >= n);
    now--;
    return worldReply(req, ctx);
  };
}

describe('cache-aware order', () => {
  for (const [name, arrange] of [
    ['reversed', (r: SynthRow[]) => [...r].reverse()],
    ['shuffled', (r: SynthRow[]) => shuffled(r, 7)],
  ] as const) {
    it(`infer and judge on a ${name} file: a later turn only after the earlier turns were answered, slots kept busy`, async () => {
      const dir = await dirs.make();
      const data = await writeDataset(join(dir, 'data'), arrange(rows()));
      // No reply goes before six requests are in flight together: slots fill however loaded the machine is.
      const world = await startServer({ reply: heldUntil(6, () => true), latencyMs: 20 });
      const pred = join(dir, 'pred.jsonl');
      const r = await runAwb(inferArgs(world.url, data.dir, pred, ['-c', '6']));
      assert.equal(r.code, 0, r.stderr);
      assert.equal((await readRowsOf(pred)).length, data.rows.length);
      assertTurnOrder(world);
      assert.equal(world.stats.maxInFlight, 6, 'other trajectories keep every slot busy');

      const judge = await startServer({ reply: judgeReply, latencyMs: 15 });
      const judged = join(dir, 'judged.jsonl');
      const j = await runAwb(judgeArgs(judge.url, pred, judged, ['-c', '6']));
      assert.equal(j.code, 0, j.stderr);
      assert.equal((await readRowsOf(judged)).length, data.rows.length);
      assertTurnOrder(judge);
    });
  }

  it('lines of one trajectory spelled differently (escapes, 77.0 for 77) are still one chain', async () => {
    const dir = await dirs.make();
    // Each line another spelling of its row, as JSON.parse reads it the same: a file partly rewritten by another tool.
    const lines = shuffled(rows(), 5).map((row, i) => respell(row, 1000 + i));
    const data = await writeDataset(join(dir, 'data'), lines);
    const world = await startServer({ reply: worldReply, latencyMs: 20 });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(world.url, data.dir, pred, ['-c', '6']));
    assert.equal(r.code, 0, r.stderr);
    assertTurnOrder(world);
    const judge = await startServer({ reply: judgeReply, latencyMs: 5 });
    const j = await runAwb(judgeArgs(judge.url, pred, join(dir, 'judged.jsonl'), ['-c', '6']));
    assert.equal(j.code, 0, j.stderr);
    assertTurnOrder(judge);
  });

  it('every judge mode, --repeat and --stream keep the order; a dry run sends nothing', async () => {
    const dir = await dirs.make();
    const data = await writeDataset(join(dir, 'data'), shuffled(rows(), 11));
    const world = await startServer({ reply: worldReply, latencyMs: 10 });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(world.url, data.dir, pred, ['-c', '4', '--stream']));
    assert.equal(r.code, 0, r.stderr);
    assertTurnOrder(world);
    const reference = join(dir, 'reference.jsonl');
    await copyFile(pred, reference);
    const boxed: ReplyFn = () => 'Reasoning.\n\\boxed{A}';
    for (const [name, reply, extra] of [
      ['turing', boxed, ['--mode', 'turing']],
      ['pairwise', boxed, ['--mode', 'pairwise', '--reference', reference]],
      ['repeat', judgeReply, ['--repeat', '2', '--stream']],
    ] as const) {
      const judge = await startServer({ reply, latencyMs: 10 });
      const judged = join(dir, `judged-${name}.jsonl`);
      const j = await runAwb(judgeArgs(judge.url, pred, judged, ['-c', '4', ...extra]));
      assert.equal(j.code, 0, `${name}: ${j.stderr}`);
      assert.equal((await readRowsOf(judged)).length, data.rows.length, name);
      assert.equal(judge.stats.requests, 2 * data.rows.length, `${name}: two requests a row`);
      assertTurnOrder(judge);
    }
    const dry = await startServer({ reply: worldReply });
    const d = await runAwb(inferArgs(dry.url, data.dir, join(dir, 'dry.jsonl'), ['--dry-run']));
    assert.equal(d.code, 0, d.stderr);
    assert.equal(dry.stats.requests, 0);
  });

  it('a chain whose earlier turn fails: the next turn goes once the retries are spent, and the run goes on', async () => {
    const dir = await dirs.make();
    const data = await writeDataset(join(dir, 'data'), [...rows()].reverse());
    const server = await startServer({
      reply: worldReply,
      latencyMs: 5,
      faults: (req) =>
        JSON.stringify(req.messages).includes('[row web/77/3]') && !JSON.stringify(req.messages).includes('[row web/77/4]')
          ? '500'
          : undefined,
    });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(server.url, data.dir, pred, ['-c', '4', '--max-retries', '2']));
    assert.equal(r.code, 1, r.stderr);
    const out = await readRowsOf(pred);
    assert.equal(out.length, data.rows.length);
    const failed = out.filter((row) => row.error !== undefined);
    assert.deepEqual(
      failed.map((row) => [row.id, row.turn_idx]),
      [[77, 3]],
    );
    assert.equal(server.log.filter((e) => e.outcome === '500').length, 3, 'turn 3 was tried three times');
    assertTurnOrder(server);
    assert.ok(
      out.some((row) => row.id === 77 && row.turn_idx === 6 && row.error === undefined),
      'the chain went on past the failure',
    );
  });

  it('the duplicated android key: both rows are sent, side by side, before the next turn', async () => {
    const dir = await dirs.make();
    const mk = (turn: number, variant: string): SynthRow => {
      const prompt = Array.from({ length: turn }, (_, k) => `action ${k + 1} [row android/42/${k + 1}]`);
      return {
        task: 'android',
        id: 42,
        prompt,
        response: prompt.map((_, k) => `screen ${k + 1}${k + 1 === turn ? variant : ''}`),
        current_prompt: prompt[turn - 1]!,
        system_str: 'You simulate android.',
        turn_idx: turn,
        total_turns: 3,
      };
    };
    const data = await writeDataset(join(dir, 'data'), [mk(3, ''), mk(2, ' (second)'), mk(1, ''), mk(2, ' (first)')]);
    const server = await startServer({ reply: worldReply, latencyMs: 20 });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(server.url, data.dir, pred, ['-c', '4']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await readRowsOf(pred)).length, 4);
    assert.deepEqual(
      server.log.map((e) => rowOf(e).turn),
      [1, 2, 2, 3],
    );
    assertTurnOrder(server);
  });

  it('shards cutting through a trajectory: each shard keeps the order of the turns it has, and together they cover every row', async () => {
    const dir = await dirs.make();
    const data = await writeDataset(join(dir, 'data'), shuffled(rows(), 3));
    const seen = new Set<string>();
    for (const k of [1, 2, 3]) {
      const server = await startServer({ reply: worldReply, latencyMs: 5 });
      const pred = join(dir, `pred-${k}.jsonl`);
      const r = await runAwb(inferArgs(server.url, data.dir, pred, ['-c', '4', '--shard', `${k}/3`]));
      assert.equal(r.code, 0, r.stderr);
      for (const row of await readRowsOf(pred)) seen.add(`${String(row.task)}/${String(row.id)}/${String(row.turn_idx)}`);
      const turns = server.log.map((e) => rowOf(e)).filter((x) => x.traj === 'web/77');
      assert.ok(turns.length < 6, 'the long trajectory is cut by the shards');
      assertTurnOrder(server);
    }
    assert.equal(seen.size, data.rows.length);
  });

  it('a line the scan cannot place (no id) is still read, and reported as a bad row', async () => {
    const dir = await dirs.make();
    const data = await writeDataset(join(dir, 'data'), synthRows(3, ['mcp']));
    await writeFile(data.files.get('mcp')!, `${data.lines.join('\n')}\n{"task": "mcp", "prompt": []}\n`);
    const server = await startServer({ reply: worldReply });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(server.url, data.dir, pred, ['--on-bad-row', 'skip']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await readRowsOf(pred)).length, 3);
    assert.match(r.stderr, /mcp_test\.jsonl:4/);
  });
});

describe('--max-inflight-mb', () => {
  /** Single-turn rows whose lines are about `kb` KB each (the padding is in the action, so it is also sent). */
  function paddedRows(n: number, kb: number, first = 0): SynthRow[] {
    return Array.from({ length: n }, (_, i) => {
      const action = `### Turn 1\n**Action:**\n${'x'.repeat(kb * 500)} [row os/${first + i}/1]`;
      return {
        task: 'os',
        id: first + i,
        prompt: [action],
        response: ['ok'],
        current_prompt: action,
        system_str: 'You simulate an OS.',
        turn_idx: 1,
        total_turns: 1,
      };
    });
  }

  /** Entries whose time at the server overlaps `e`'s. */
  const overlapping = (log: LogEntry[], e: LogEntry) =>
    log.filter((o) => o !== e && o.receivedAt < e.receivedAt + e.ms && e.receivedAt < o.receivedAt + o.ms);

  it('keeps the rows handed out under the budget, sends a larger row alone, and with 0 fills every slot', async () => {
    const dir = await dirs.make();
    // Eight rows of ~600 KB and one of ~2 MB: under 1.5 MB at most two of the small ones fit together.
    const data = await writeDataset(join(dir, 'data'), [...paddedRows(8, 600), ...paddedRows(1, 2000, 100)]);
    // The first small row sent is answered only once a second request is in flight beside it (or after a minute,
    // when the budget wrongly let it go alone), so reaching two at once does not depend on the machine's speed. Not
    // the first request: the 2 MB row has the most bytes left and goes first, alone.
    let heldOne = false;
    const first = heldUntil(2, (req) => {
      if (heldOne || JSON.stringify(req.messages).includes('[row os/100/1]')) return false;
      return (heldOne = true);
    });
    const bounded = await startServer({ reply: first, latencyMs: 150 });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(bounded.url, data.dir, pred, ['-c', '8', '--max-inflight-mb', '1.5']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await readRowsOf(pred)).length, 9);
    assert.equal(bounded.stats.maxInFlight, 2);
    assert.match(r.stderr, /\d+ rows? waited for room under --max-inflight-mb/);
    const log = bounded.log.filter((e) => e.request);
    const big = log.find((e) => JSON.stringify(e.request!.messages).includes('[row os/100/1]'))!;
    assert.deepEqual(overlapping(log, big), [], 'the 2 MB row went alone');

    // Nothing is answered before eight requests are in flight (or a minute has passed, when fewer were sent).
    const open = await startServer({ reply: heldUntil(8, () => true) });
    const u = await runAwb(inferArgs(open.url, data.dir, join(dir, 'open.jsonl'), ['-c', '8', '--max-inflight-mb', '0']));
    assert.equal(u.code, 0, u.stderr);
    assert.equal(open.stats.maxInFlight, 8);
    assert.doesNotMatch(u.stderr, /waited for room/);
  });

  it('refuses a budget that is not a number of MB', async () => {
    const r = await runAwb(['infer', '--model-base-url', 'http://127.0.0.1:9/v1', '--model-name', 'm', '--max-inflight-mb', 'lots']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--max-inflight-mb/);
  });
});

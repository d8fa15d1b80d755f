import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tallies, fillCounts, newManifest } from '../../../src/core/runner/accounting.js';
import { BadRows } from '../../../src/core/runner/bad-rows.js';
import { RunManifest } from '../../../src/core/runner/run-manifest.js';
import type { BadRow } from '../../../src/core/rows/row.js';
import type { Manifest } from '../../../src/core/schemas/manifest.js';
import { Dispatcher } from '../../../src/core/runner/dispatch.js';
import { PlanInputs, fileOrder, orderedLines, type Order } from '../../../src/core/runner/plan.js';
import { OutputWriter, dropRedone, scanOutput } from '../../../src/core/runner/writer.js';
import { UserError, fail } from '../../../src/core/errors.js';
import { isFault } from '../../support/fault-kind.js';
import type { LinePlan, PlannedLine } from '../../../src/core/rows/input.js';
import { datasetRowSchema } from '../../../src/core/schemas/dataset-row.js';
import { inferOutcome } from '../../../src/core/schemas/prediction-row.js';

const line = (lineNo: number): PlannedLine => ({
  file: 0,
  lineNo,
  start: lineNo * 10,
  length: 9,
  terminated: true,
  domain: 'mcp',
  id: String(lineNo),
  turn: 1,
});
const plan = (n: number): LinePlan => ({
  files: ['a'],
  lines: Array.from({ length: n }, (_, i) => line(i + 1)),
  selectedDomains: ['mcp'],
  perDomain: new Map([['mcp', n]]),
});
const row = (id: number, extra: object = {}) => JSON.stringify({ task: 'mcp', id, prompt: ['a'], response: ['b'], turn_idx: 1, ...extra });

describe('plan order', () => {
  it('sends in file order by default, and in any order a scheduler gives', () => {
    assert.deepEqual(
      orderedLines(plan(3), fileOrder).map((l) => l.lineNo),
      [1, 2, 3],
    );
    const reversed: Order = (lines) => [...lines].reverse();
    assert.deepEqual(
      orderedLines(plan(3), reversed).map((l) => l.lineNo),
      [3, 2, 1],
    );
  });

  it('refuses an order that drops or repeats a line', () => {
    assert.throws(() => orderedLines(plan(3), (l) => l.slice(1)));
    assert.throws(() => orderedLines(plan(3), (l) => [l[0]!, l[0]!, l[1]!]));
  });
});

describe('plan inputs', () => {
  it('lends each line its own bytes: a line asked for while another is lent waits until that one is done with', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-inputs-'));
    const file = join(dir, 'rows.jsonl');
    const lines = ['x'.repeat(5000), 'short', 'y'.repeat(20000)];
    await writeFile(file, lines.map((l) => `${l}\n`).join(''));
    const planned: PlannedLine[] = [];
    let start = 0;
    for (const [i, l] of lines.entries()) {
      planned.push({ ...line(i + 1), start, length: l.length });
      start += l.length + 1;
    }
    const inputs = await PlanInputs.open({ ...plan(0), files: [file], lines: planned });
    try {
      const order: string[] = [];
      // The first use is slow: the others are read only after it has finished with its bytes.
      const seen = await Promise.all(
        planned.map((p, i) =>
          inputs.withLine(p, async (bytes) => {
            order.push(`start ${i}`);
            if (i === 0) await new Promise((r) => setTimeout(r, 20));
            order.push(`end ${i}`);
            return bytes.toString();
          }),
        ),
      );
      assert.deepEqual(seen, lines);
      assert.deepEqual(order, ['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
      // A use that fails leaves the next line's turn alone.
      await assert.rejects(
        inputs.withLine(planned[1]!, () => {
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await inputs.withLine(planned[1]!, (b) => b.toString()), 'short');
    } finally {
      await inputs.close();
    }
  });

  it('reads a line longer than any its plan holds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-inputs-'));
    const file = join(dir, 'rows.jsonl');
    await writeFile(file, `short\n${'z'.repeat(70000)}\n`);
    const short = { ...line(1), start: 0, length: 5 };
    const long = { ...line(2), start: 6, length: 70000 };
    const inputs = await PlanInputs.open({ ...plan(0), files: [file], lines: [short] });
    try {
      assert.equal(await inputs.withLine(short, (b) => b.toString()), 'short');
      assert.equal(await inputs.withLine(long, (b) => b.toString()), 'z'.repeat(70000));
      assert.equal(await inputs.withLine(short, (b) => b.toString()), 'short');
    } finally {
      await inputs.close();
    }
  });
});

/** Whether `p` is still pending after a turn of the event loop. */
async function stillPending(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return !done;
}

describe('dispatcher', () => {
  it('runs at most `concurrency` tasks at once and makes room only for a few more', async () => {
    const slots = new Dispatcher(2, 1);
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    for (let i = 0; i < 3; i++) {
      await slots.room();
      slots.submit(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => releases.push(r));
        running--;
      });
    }
    const room = slots.room();
    assert.equal(await stillPending(room), true, 'two running and one ready fill the window');
    releases.shift()!();
    await room;
    while (releases.length || running) {
      releases.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await slots.drain();
    assert.equal(most, 2);
  });

  it('a task that throws cancels the others through their signals and is reported once', async () => {
    const slots = new Dispatcher(4);
    const aborted: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      slots.submit(
        (signal) =>
          new Promise<void>((resolve) => {
            signal.addEventListener('abort', () => {
              aborted.push(true);
              resolve();
            });
          }),
      );
    }
    slots.submit(async () => {
      throw new UserError('boom');
    });
    await slots.drain();
    assert.equal(aborted.length, 3);
    assert.equal((slots.error?.error as Error).message, 'boom');
  });

  it('runs what a task hands back outside its slot, and fails the dispatch when that throws', async () => {
    const slots = new Dispatcher(1, 1);
    const events: string[] = [];
    let saveA!: () => void;
    slots.submit(async () => {
      events.push('A answered');
      return async () => {
        await new Promise<void>((r) => (saveA = r));
        events.push('A saved');
      };
    });
    slots.submit(async () => {
      events.push('B answered');
    });
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, ['A answered', 'B answered'], 'B took the slot while A waited to be saved');
    saveA();
    await slots.drain();
    assert.deepEqual(events, ['A answered', 'B answered', 'A saved'], 'drain waits for what was handed back');

    const failing = new Dispatcher(2, 0);
    let cancelled = false;
    failing.submit(async () => async () => {
      throw new UserError('disk full');
    });
    failing.submit(
      (signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            cancelled = true;
            resolve();
          }),
        ),
    );
    await failing.drain();
    assert.equal((failing.error?.error as Error).message, 'disk full');
    assert.ok(cancelled, 'the task in flight was cancelled');
  });

  it('after a fault, lets the tasks in flight finish within the grace and starts no queued one; past it, cancels them', async () => {
    const settle = (slots: Dispatcher, ms: number) => {
      const seen = { finished: false, cancelled: false, queuedRan: false };
      slots.submit(async () => {
        throw fail({ kind: 'no-quota', role: 'judge', endpoint: 'http://h/v1', said: 'no quota' });
      });
      slots.submit(
        (signal) =>
          new Promise<void>((resolve) => {
            const t = setTimeout(() => {
              seen.finished = true;
              resolve();
            }, ms);
            signal.addEventListener('abort', () => {
              clearTimeout(t);
              seen.cancelled = true;
              resolve();
            });
          }),
      );
      slots.submit(async () => {
        seen.queuedRan = true;
      });
      return seen;
    };
    const kept = new Dispatcher(2, 1, 1000);
    const a = settle(kept, 30);
    await new Promise((r) => setImmediate(r));
    assert.equal(kept.finishing, true);
    await kept.drain();
    assert.deepEqual(a, { finished: true, cancelled: false, queuedRan: false });
    assert.ok(isFault('no-quota')(kept.error?.error));
    assert.equal(kept.finishing, false);

    const cut = new Dispatcher(2, 1, 20);
    const b = settle(cut, 5000);
    await cut.drain();
    assert.deepEqual(b, { finished: false, cancelled: true, queuedRan: false });
  });

  it('makes no room while as many answered tasks wait to be saved as there are slots', async () => {
    const slots = new Dispatcher(1, 0);
    const saves: (() => void)[] = [];
    const answeredAndSaving = () =>
      slots.submit(async () => async () => {
        await new Promise<void>((r) => saves.push(r));
      });
    await slots.room();
    answeredAndSaving();
    await new Promise((r) => setImmediate(r));
    await slots.room();
    answeredAndSaving();
    await new Promise((r) => setImmediate(r));
    assert.equal(saves.length, 2, 'both answered; the slot is free again');
    const room = slots.room();
    assert.equal(await stillPending(room), true, 'two answers wait to be saved: no third row is read');
    saves.shift()!();
    await room;
    saves.shift()!();
    await slots.drain();
  });

  it('after finish(), queued tasks never start; running ones finish within the grace, and past it are cancelled', async () => {
    // No task ends on a timer: each ends when the test says (`end`) or when it is cancelled, so the order never
    // depends on the machine's speed. A grace of an hour is never reached; one of 0 ms always is.
    const run = async (graceMs: number | undefined, ends: boolean) => {
      const slots = new Dispatcher(1, 4, graceMs);
      const seen: string[] = [];
      let started!: () => void;
      const first = new Promise<void>((r) => (started = r));
      const enders: (() => void)[] = [];
      for (let i = 0; i < 3; i++) {
        slots.submit(
          (signal) =>
            new Promise<void>((resolve) => {
              seen.push(`${i} started`);
              enders.push(() => (seen.push(`${i} finished`), resolve()));
              signal.addEventListener('abort', () => (seen.push(`${i} cancelled`), resolve()));
              started();
            }),
        );
      }
      await first;
      slots.finish();
      if (ends) enders[0]!();
      // The grace's timer is unref'd (it must not keep awb alive) and these tasks hold no socket: something has to keep
      // the event loop up until the drain, or the test runner finds it empty and cancels the test.
      const alive = setInterval(() => undefined, 60_000);
      try {
        await slots.drain();
      } finally {
        clearInterval(alive);
      }
      return seen;
    };
    assert.deepEqual(await run(3_600_000, true), ['0 started', '0 finished']);
    assert.deepEqual(await run(0, false), ['0 started', '0 cancelled']);
    assert.deepEqual(await run(undefined, true), ['0 started', '0 finished'], 'without a grace, a stop lets them end');
  });
});

describe('accounting', () => {
  it('counts final results as done, failures among them, and the rest as left to redo', () => {
    const t = new Tallies();
    t.of('mcp').total = 4;
    t.count('mcp', 'done');
    t.count('mcp', 'failed');
    t.count('mcp', 'incomplete');
    assert.equal(t.remaining(), 2);
    const m = newManifest({
      stage: 'infer',
      dataset: { source: 'x', domains: ['mcp'], rows: { mcp: 4 } },
      settings: {},
      startedAt: 'then',
    });
    fillCounts(m, t, { 'http://a/v1': { requests: 5, failures: 1 } });
    // failed as score counts it (the final failure and the row to retry), to_retry the rows the same command redoes.
    assert.deepEqual(m.counts, {
      total: 4,
      done: 2,
      failed: 2,
      to_retry: 1,
      per_domain: { mcp: { total: 4, done: 2, failed: 2, to_retry: 1, empty: 0, truncated: 0, no_output: 0 } },
    });
    assert.equal(m.usage.requests, 5);
    assert.equal(m.complete, false);
    t.count('mcp', 'done');
    t.count('mcp', 'done');
    fillCounts(m, t);
    assert.equal(m.complete, true);
    assert.ok(m.finished_at);
  });
});

describe('bad rows', () => {
  const bad = (lineNo: number): BadRow => ({ file: 'a', lineNo, message: `a:${lineNo}: turn_idx: is missing` });

  it('skip: each bad row is reported and no longer counted, and a domain left with no rows is dropped', () => {
    const t = new Tallies();
    t.of('mcp').total = 2;
    t.of('?').total = 1;
    const skipped: BadRow[] = [];
    const rows = new BadRows('skip', t, (b) => skipped.push(b));
    rows.met(bad(2), 'mcp', 1);
    rows.met(bad(3), '?', 2);
    assert.deepEqual(skipped, [bad(2), bad(3)]);
    assert.equal(t.of('mcp').total, 1);
    assert.equal(t.perDomain.has('?'), false);
    assert.equal(rows.pastCutoff(5), false);
    assert.equal(rows.stopError(false), undefined);
  });

  it('stop: the earliest bad row in plan order found so far ends the run, and rows after it are not sent', () => {
    const t = new Tallies();
    t.of('mcp').total = 9;
    const rows = new BadRows('stop', t, () => assert.fail('nothing is skipped'));
    assert.equal(rows.stopError(false), undefined);
    rows.met(bad(7), 'mcp', 6);
    rows.met(bad(4), 'mcp', 3);
    rows.met(bad(9), 'mcp', 8);
    assert.equal(rows.pastCutoff(3), false);
    assert.equal(rows.pastCutoff(4), true);
    assert.equal(t.of('mcp').total, 9);
    assert.deepEqual(rows.stopError(false)!.fault, { kind: 'stopped-at-bad-row', bad: bad(4), rowsBefore: true });
    // Interrupted, or stopped at the first row: no "rows before it are saved".
    assert.deepEqual(rows.stopError(true)!.fault, { kind: 'stopped-at-bad-row', bad: bad(4), rowsBefore: false });
    const first = new BadRows('stop', t, () => undefined);
    first.met(bad(1), 'mcp', 0);
    assert.deepEqual(first.stopError(false)!.fault, { kind: 'stopped-at-bad-row', bad: bad(1), rowsBefore: false });
  });
});

describe('run manifest', () => {
  const start = (settings: Manifest['settings']) =>
    newManifest({ stage: 'infer', dataset: { source: 'x', domains: ['mcp'], rows: { mcp: 2 } }, settings, startedAt: 'then' });

  it('keeps the earlier manifest until the run adds a row, then writes its own with the counts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-run-manifest-'));
    const out = join(dir, 'p.jsonl');
    const t = new Tallies();
    t.of('mcp').total = 2;
    const m = new RunManifest(out, start({ sampling: { temperature: 0.6 } }), start({ sampling: { temperature: 1 } }), t, () => ({
      'http://a/v1': { requests: 3, failures: 0 },
    }));
    const written = async () => JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as Manifest;
    await m.save();
    assert.equal((await written()).settings.sampling?.temperature, 1);
    t.count('mcp', 'done');
    await m.rowAdded();
    const own = await written();
    assert.equal(own.settings.sampling?.temperature, 0.6);
    assert.equal(own.counts.done, 1);
    assert.equal(own.usage.requests, 3);
    assert.equal(m.manifest.settings.sampling?.temperature, 0.6);
  });

  it('without an earlier manifest, adding a row writes nothing new', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-run-manifest-'));
    const out = join(dir, 'p.jsonl');
    const m = new RunManifest(out, start({}), undefined, new Tallies());
    await m.rowAdded();
    await assert.rejects(readFile(`${out}.manifest.json`, 'utf8'), { code: 'ENOENT' });
  });
});

describe('writer', () => {
  it('a resume reading a huge output stops between rows once stopped (Ctrl-C), with the fault the check throws', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-writer-'));
    const out = join(dir, 'p.jsonl');
    await writeFile(out, Array.from({ length: 1000 }, (_, i) => `${row(i + 1, { gen: 'ok' })}\n`).join(''));
    const stop = new AbortController();
    let read = 0;
    const scan = scanOutput(out, {
      schema: datasetRowSchema,
      keep: () => true,
      onKept: () => {
        if (++read === 10) stop.abort();
      },
      between: () => {
        if (stop.signal.aborted) throw fail({ kind: 'stopped-before-first-request', stage: 'infer' });
      },
    });
    await assert.rejects(scan, isFault('stopped-before-first-request'));
    assert.equal(read, 10);
  });

  it('resume keeps finished rows, drops rows to redo and a cut last line, and appends after them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-writer-'));
    const out = join(dir, 'p.jsonl');
    await writeFile(
      out,
      [row(1, { gen: 'ok' }), row(2, { gen: '', error: 'timeout' }), row(3, { gen: '' }), '{"task":"mcp","id":4,'].join('\n'),
    );
    const kept: unknown[] = [];
    const r = await scanOutput(out, {
      schema: datasetRowSchema,
      keep: (x) => inferOutcome(x) !== 'incomplete',
      onKept: (x) => kept.push(x.id),
    });
    assert.deepEqual(r.dropped, { failed: 1, cut: 1, invalid: 0 });
    await dropRedone(out, r);
    assert.deepEqual(kept, [1, 3]);
    assert.equal(await readFile(out, 'utf8'), `${row(1, { gen: 'ok' })}\n${row(3, { gen: '' })}\n`);
    const w = await OutputWriter.open(out, ['gen', 'error']);
    await w.write(Buffer.from(row(2, { gen: '', error: 'timeout' })), { gen: 'new' });
    await w.close();
    const last = (await readFile(out, 'utf8')).trimEnd().split('\n').at(-1)!;
    assert.equal(last, row(2, { gen: 'new' }));
  });

  it('resuming in a read-only folder with a line to drop is one user error, not an unhandled error event', async (t) => {
    if (process.getuid?.() === 0) return t.skip('root writes anywhere');
    const dir = await mkdtemp(join(tmpdir(), 'awb-writer-ro-'));
    const out = join(dir, 'p.jsonl');
    await writeFile(out, `${row(1, { gen: 'ok' })}\n{"task":"mcp",`);
    await chmod(dir, 0o555);
    try {
      const scan = await scanOutput(out, { schema: datasetRowSchema, keep: () => true });
      await assert.rejects(dropRedone(out, scan), isFault('file-error', { code: 'EACCES' }));
    } finally {
      await chmod(dir, 0o755);
    }
  });
});

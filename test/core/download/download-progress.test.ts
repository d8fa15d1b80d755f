import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  PROGRESS_INTERVAL_MS,
  progressDue,
  progressReporter,
  type DownloadProgress,
  type ProgressClock,
} from '../../../src/core/download/download-progress.js';

describe('progressDue: the throttle, alone', () => {
  it("sends a file's first event, its edges and an event past the interval at once", () => {
    assert.equal(progressDue(undefined, 5, false), 'now');
    assert.equal(progressDue(1000, 1010, true), 'now');
    assert.equal(progressDue(1000, 1000 + PROGRESS_INTERVAL_MS, false), 'now');
  });

  it('holds an event inside the interval until the interval ends', () => {
    assert.equal(progressDue(1000, 1010, false), 1000 + PROGRESS_INTERVAL_MS);
    assert.equal(progressDue(1000, 1099, false), 1000 + PROGRESS_INTERVAL_MS);
    assert.equal(progressDue(1000, 1050, false, 20), 'now');
  });
});

/** A clock the test moves by hand, and the waits the reporter asked for. */
function manualClock() {
  let now = 0;
  const waits: { at: number; fn: () => void; cancelled: boolean }[] = [];
  const clock: ProgressClock = {
    now: () => now,
    after: (ms, fn) => {
      const wait = { at: now + ms, fn, cancelled: false };
      waits.push(wait);
      return () => void (wait.cancelled = true);
    },
  };
  /** Moves the clock to `t`, running the waits that end by then. */
  const advance = (t: number) => {
    now = t;
    for (const w of waits.filter((w) => !w.cancelled && w.at <= t)) {
      w.cancelled = true;
      w.fn();
    }
  };
  return { clock, advance, pending: () => waits.filter((w) => !w.cancelled).length };
}

describe('progressReporter: trailing edge', () => {
  it('shows the first chunk of a body that stalls right after it, once the interval ends', () => {
    const { clock, advance, pending } = manualClock();
    const seen: DownloadProgress[] = [];
    const progress = progressReporter((e) => seen.push(e), 'mcp_test.jsonl', 1000, clock);
    progress.report(0, false);
    advance(10);
    progress.report(64, false);
    // Held: the start went out 10 ms ago.
    assert.deepEqual(
      seen.map((e) => e.bytes),
      [0],
    );
    advance(PROGRESS_INTERVAL_MS);
    assert.deepEqual(
      seen.map((e) => e.bytes),
      [0, 64],
    );
    assert.equal(pending(), 0);
  });

  it('sends only the latest of the events held in one interval, and the end at once', () => {
    const { clock, advance, pending } = manualClock();
    const seen: DownloadProgress[] = [];
    const progress = progressReporter((e) => seen.push(e), 'f', 1000, clock);
    progress.report(0, false);
    for (const [t, bytes] of [
      [20, 100],
      [40, 200],
      [60, 300],
    ]) {
      advance(t!);
      progress.report(bytes!, false);
    }
    assert.equal(pending(), 1);
    advance(80);
    progress.report(1000, true);
    // The end replaced the held 300 and cancelled its wait.
    assert.deepEqual(
      seen.map((e) => [e.bytes, e.done]),
      [
        [0, false],
        [1000, true],
      ],
    );
    assert.equal(pending(), 0);
    advance(500);
    assert.equal(seen.length, 2);
  });

  it('drops a held event when the transfer fails: nothing is shown after the failure', async () => {
    const { clock, advance, pending } = manualClock();
    const seen: DownloadProgress[] = [];
    const progress = progressReporter((e) => seen.push(e), 'f', 1000, clock);
    const failure = new Error('cut off');
    await assert.rejects(
      progress.transfer(async (onBytes) => {
        advance(5);
        onBytes(10);
        throw failure;
      }),
      (err) => err === failure,
    );
    assert.equal(pending(), 0);
    advance(1000);
    assert.deepEqual(
      seen.map((e) => e.bytes),
      [0],
    );
  });

  it('a transfer that resolves ends with the whole file, never past it', async () => {
    const { clock } = manualClock();
    const seen: DownloadProgress[] = [];
    const progress = progressReporter((e) => seen.push(e), 'f', 1000, clock);
    assert.equal(
      await progress.transfer(async (onBytes) => {
        onBytes(5000);
        return 'sha';
      }),
      'sha',
    );
    assert.deepEqual(seen.at(-1), { file: 'f', bytes: 1000, total: 1000, done: true });
  });
});

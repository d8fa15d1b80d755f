/*
 * awb's Schedule alone, in virtual time: C slots take rows as awb's runner
 * does (the best ready row whenever a slot frees), and a request takes the
 * endpoint's latency plus the prefill of what its line adds to the previous
 * turn of its trajectory (a stand-in for the prompt bytes the cache has not
 * seen, since a later turn is sent only once the earlier one is answered).
 * No processes and no CPU: what the order itself costs when the client is
 * never the bottleneck, to read beside the measured wall times.
 *
 * With `anchor` (a free-running infer's, infer --horizon), a row holds its
 * slot for its `steps` requests one after another, each a latency, and an
 * `early` row lets its chain go on once its first request is answered, as
 * the runner does (Schedule.advance).
 */
import { planLines } from '../src/core/rows/index.js';
import { scheduleRows } from '../src/core/runner/plan.js';
import { Schedule, chainKey, type ScheduleRow } from '../src/core/runner/schedule.js';

export interface VirtualRun {
  makespanS: number;
  /** (rows × latency + prefill of every line's new bytes) ÷ concurrency, with the same stand-in for prefill. */
  idealS: number;
  meanInFlight: number;
}

export async function virtualRuns(
  files: string[],
  concurrencies: number[],
  latencyMs: number,
  prefillMsPerMB: number,
  anchor?: (turn: number) => number,
): Promise<VirtualRun[]> {
  const rows: ScheduleRow[] = scheduleRows(await planLines(files, {}), undefined, anchor);
  const chains = new Map<string, ScheduleRow[]>();
  for (const r of rows) chains.set(chainKey(r), [...(chains.get(chainKey(r)) ?? []), r]);
  const cost = new Map<number, number>();
  for (const chain of chains.values()) {
    let before = 0;
    for (const r of chain.sort((a, b) => a.turn - b.turn)) {
      cost.set(r.index, (r.steps ?? 1) * latencyMs + (prefillMsPerMB * Math.max(0, r.bytes - before)) / 1e6);
      before = r.bytes;
    }
  }
  const work = [...cost.values()].reduce((a, b) => a + b, 0);
  return concurrencies.map((c) => {
    const schedule = new Schedule(rows);
    const running: { row: ScheduleRow; end: number; first?: number }[] = [];
    let now = 0;
    let busy = 0;
    for (;;) {
      for (let r = running.length < c ? schedule.next() : undefined; r; r = running.length < c ? schedule.next() : undefined) {
        running.push({ row: r, end: now + cost.get(r.index)!, ...(r.early && { first: now + latencyMs }) });
      }
      if (!running.length) break;
      const next = Math.min(...running.map((x) => Math.min(x.end, x.first ?? Infinity)));
      busy += running.length * (next - now);
      now = next;
      for (const x of running.filter((y) => y.first === now)) {
        delete x.first;
        schedule.advance(x.row);
      }
      for (const x of running.filter((y) => y.end === now)) {
        running.splice(running.indexOf(x), 1);
        schedule.finish(x.row);
      }
    }
    return { makespanS: now / 1000, idealS: work / c / 1000, meanInFlight: busy / now };
  });
}

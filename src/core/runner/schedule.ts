/*
 * Cache-aware order of a stage's requests (issue 13). A serving engine with a
 * prefix cache (vLLM, SGLang, OpenAI) can serve turn k+1 of a trajectory from
 * turn k's prefill only once turn k has been processed, so a later turn is
 * handed out only after every earlier turn of its trajectory in this run has
 * finished (answered, or failed for good). Meanwhile other trajectories keep
 * the slots busy, and the trajectories with the most work left go first so
 * the run does not end on one long chain.
 *
 * Pure bookkeeping over small facts of the planned rows: no I/O, no timers.
 *
 * Why domain + id + turn order is enough, and what the optional `prefix` is
 * for: both the world model's messages and the judge's are built from the
 * row's own fields, so a row never depends on another row's answer; the order
 * only decides what the cache can reuse. Rows that share an id but not a
 * history would merely wait for each other for nothing. When the caller can
 * tell histories apart cheaply (e.g. a hash of system_str and prompt[0]), it
 * passes that as `prefix` and such rows form separate chains.
 */

/** What the scheduler needs to know of one planned row. */
export interface ScheduleRow {
  /** Stable and unique within the run (e.g. the row's position in the plan); breaks ties, so the order is deterministic. */
  index: number;
  domain: string;
  id: string;
  turn: number;
  /** Size of the request's prompt, in bytes (any consistent measure). */
  bytes: number;
  /** Optional fingerprint of the history's head: rows with different prefixes are never chained. */
  prefix?: string;
  /** Requests the row sends one after another (a free-running row's rollout steps); default 1. */
  steps?: number;
  /**
   * Its chain's next turn may go once the row's first request is answered (`advance`), not only once it is
   * settled: a free-running row whose next turn starts its rollout one turn later, from a prompt that extends
   * this row's first one.
   */
  early?: boolean;
}

/** Weights of the work left in a chain: each turn costs a round trip, each new prompt byte its prefill. */
export interface CostModel {
  perTurn: number;
  perByte: number;
}

/** Chain length decides; bytes break ties (see `compareReady`). */
export const DEFAULT_COST: CostModel = { perTurn: 1, perByte: 0 };

/** Rows of one turn of a chain: usually one, two for the duplicated android (id, turn) pair. */
interface Level<T> {
  rows: T[];
  /** Rows of this level not finished yet. */
  open: number;
  /** Work from this level to the end of the chain, by the cost model and in bytes. */
  costLeft: number;
  bytesLeft: number;
}

interface Chain<T> {
  levels: Level<T>[];
  /** The level whose rows are handed out now. */
  at: number;
}

interface Ready<T> {
  row: T;
  /** `next` has held it back for room under maxBytes at least once. */
  heldBack?: boolean;
  chain: Chain<T>;
  costLeft: number;
  bytesLeft: number;
}

/** The trajectory a row belongs to. */
export function chainKey(row: ScheduleRow): string {
  return JSON.stringify([row.domain, row.id, row.prefix ?? '']);
}

/**
 * Splits a chain's rows into levels by turn. Rows with the same turn are
 * siblings: both extend the previous level's prefix and neither can be a
 * prefix of the other, so they run side by side and the next turn waits for
 * both.
 */
export function levelsOf<T extends ScheduleRow>(rows: T[]): T[][] {
  const sorted = [...rows].sort((a, b) => a.turn - b.turn || a.index - b.index);
  const levels: T[][] = [];
  for (const r of sorted) {
    const last = levels[levels.length - 1];
    if (last && last[0]!.turn === r.turn) last.push(r);
    else levels.push([r]);
  }
  return levels;
}

/**
 * Work left from each level to the chain's end. A level's new bytes are what
 * its largest prompt adds to the previous level's (the rest is cached); the
 * first level of the run pays in full.
 */
export function workLeft(levels: readonly (readonly ScheduleRow[])[], cost: CostModel): { cost: number; bytes: number }[] {
  const out: { cost: number; bytes: number }[] = [];
  let costLeft = 0;
  let bytesLeft = 0;
  for (let i = levels.length - 1; i >= 0; i--) {
    const size = (l: readonly ScheduleRow[]) => Math.max(...l.map((r) => r.bytes));
    const prev = i > 0 ? size(levels[i - 1]!) : 0;
    const level = levels[i]!;
    const steps = Math.max(...level.map((r) => r.steps ?? 1));
    const prefill = cost.perByte * Math.max(0, size(level) - prev);
    // An early level lets the next one start after its first request: the chain's rest runs beside its other steps.
    costLeft = level.every((r) => r.early)
      ? Math.max(cost.perTurn * steps, cost.perTurn + costLeft) + prefill
      : cost.perTurn * steps + prefill + costLeft;
    bytesLeft += level.reduce((s, r) => s + r.bytes, 0);
    out[i] = { cost: costLeft, bytes: bytesLeft };
  }
  return out;
}

/** Most work left first, then most bytes left, then plan order. Negative: `a` goes first. */
export function compareReady(
  a: { costLeft: number; bytesLeft: number; row: ScheduleRow },
  b: { costLeft: number; bytesLeft: number; row: ScheduleRow },
): number {
  return b.costLeft - a.costLeft || b.bytesLeft - a.bytesLeft || a.row.index - b.row.index;
}

/** A binary heap of ready rows, best first by `compareReady`. */
class ReadyHeap<T extends ScheduleRow> {
  private readonly items: Ready<T>[] = [];
  peek(): Ready<T> | undefined {
    return this.items[0];
  }
  push(item: Ready<T>): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compareReady(a[i]!, a[p]!) >= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): Ready<T> | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (top === undefined || last === undefined || a.length === 0) return top;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && compareReady(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && compareReady(a[r]!, a[m]!) < 0) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
    return top;
  }
}

export interface ScheduleOptions {
  cost?: CostModel;
  /**
   * Most bytes (ScheduleRow.bytes) handed out and not finished at once. The
   * best ready row waits until there is room for it (one row alone always
   * goes), so the memory held by requests in flight stays bounded whatever
   * the rows' sizes, and no row is passed over for ever by smaller ones.
   */
  maxBytes?: number;
}

/**
 * Hands out the planned rows in a cache-friendly order. The dispatcher calls
 * `next()` whenever a slot is free and `finish(row)` once the row is settled
 * for good (after its last retry); when `next` returns undefined while
 * `isDone()` is false, the remaining rows wait for rows in flight: an earlier
 * turn, or room under `maxBytes`.
 */
export class Schedule<T extends ScheduleRow> {
  private readonly ready = new ReadyHeap<T>();
  private readonly where = new Map<number, Chain<T>>();
  /** Indexes of the rows handed out and not finished. */
  private readonly handed = new Set<number>();
  /** Rows handed out whose chain went on without them (advance). */
  private readonly advanced = new Set<number>();
  private readonly maxBytes: number;
  private handedBytes = 0;
  private heldBack = 0;
  private total = 0;
  private settled = 0;

  constructor(rows: Iterable<T>, opts: ScheduleOptions = {}) {
    const cost = opts.cost ?? DEFAULT_COST;
    this.maxBytes = opts.maxBytes ?? Infinity;
    const groups = new Map<string, T[]>();
    for (const r of rows) {
      const k = chainKey(r);
      const g = groups.get(k);
      if (g) g.push(r);
      else groups.set(k, [r]);
      this.total++;
    }
    for (const g of groups.values()) {
      const rowsByLevel = levelsOf(g);
      const work = workLeft(rowsByLevel, cost);
      const chain: Chain<T> = {
        levels: rowsByLevel.map((l, i) => ({ rows: l, open: l.length, costLeft: work[i]!.cost, bytesLeft: work[i]!.bytes })),
        at: 0,
      };
      for (const r of g) {
        if (this.where.has(r.index)) throw new Error(`schedule: row index ${r.index} given twice`);
        this.where.set(r.index, chain);
      }
      this.release(chain);
    }
  }

  /** The best ready row, or undefined when every remaining row waits for an earlier turn or for room (or none is left). */
  next(): T | undefined {
    const best = this.ready.peek();
    if (!best) return undefined;
    if (this.handed.size > 0 && this.handedBytes + best.row.bytes > this.maxBytes) {
      if (!best.heldBack) this.heldBack++;
      best.heldBack = true;
      return undefined;
    }
    this.ready.pop();
    this.handed.add(best.row.index);
    this.handedBytes += best.row.bytes;
    return best.row;
  }

  /** The row is settled (answered, or failed for good); its chain's next turn may become ready. */
  finish(row: T): void {
    if (!this.where.has(row.index) || !this.handed.delete(row.index))
      throw new Error(`schedule: row ${row.index} finished but not handed out`);
    this.handedBytes -= row.bytes;
    this.settled++;
    if (!this.advanced.delete(row.index)) this.leave(row);
    this.where.delete(row.index);
  }

  /** An early row's first request is answered: its chain's next turn may become ready while it goes on. */
  advance(row: T): void {
    if (!row.early || !this.handed.has(row.index) || this.advanced.has(row.index)) return;
    this.advanced.add(row.index);
    this.leave(row);
  }

  /** The row no longer holds its chain back. */
  private leave(row: T): void {
    const chain = this.where.get(row.index)!;
    const level = chain.levels[chain.at]!;
    level.open--;
    if (level.open === 0) {
      chain.at++;
      if (chain.at < chain.levels.length) this.release(chain);
    }
  }

  private release(chain: Chain<T>): void {
    const level = chain.levels[chain.at]!;
    for (const row of level.rows) this.ready.push({ row, chain, costLeft: level.costLeft, bytesLeft: level.bytesLeft });
  }

  /** Every row settled. */
  isDone(): boolean {
    return this.settled === this.total;
  }

  /** Rows that `next` held back at least once for want of room under maxBytes. */
  heldForRoom(): number {
    return this.heldBack;
  }
}

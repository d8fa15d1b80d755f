import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import type { z } from 'zod';
import { SAME_ROW, lineKey, readLineAt, readRow, type BadRow, type LinePlan, type PlannedLine, type ReadRow } from '../rows/index.js';
import type { DatasetRow } from '../schemas/index.js';
import { updateText } from '../text-parts.js';
import { chainKey, type ScheduleRow } from './schedule.js';
import type { Stage } from './stage.js';

/**
 * The order of the plan's lines as the schedule (schedule.ts) sees it: it
 * breaks ties between rows the schedule ranks alike. The runner reads each
 * line when it is sent, so any order costs the same.
 */
export type Order = (lines: readonly PlannedLine[]) => PlannedLine[];

/** The rows in file order: the default. */
export const fileOrder: Order = (lines) => [...lines];

/** The plan's lines in the order they are to be sent; an order must keep every line exactly once. */
export function orderedLines(plan: LinePlan, order: Order = fileOrder): PlannedLine[] {
  const out = order(plan.lines);
  if (out.length !== plan.lines.length || new Set(out).size !== out.length) throw new Error('an order must keep every planned line once');
  return out;
}

/**
 * The plan's lines as the schedule's rows (schedule.ts), each carrying its line; `order` only decides ties.
 * With `anchor` (a free-running infer's, Stage.anchor), each row counts the rollout steps it sends: all of
 * its own where its anchor differs from the previous turn's of its trajectory, else those it adds to that
 * turn's rollout (the rest are shared). A row whose next turn starts one turn later is early: that turn may
 * go once the row's first step is answered, since its first prompt extends this row's.
 */
export function scheduleRows(plan: LinePlan, order?: Order, anchor?: (turn: number) => number): (ScheduleRow & { line: PlannedLine })[] {
  const rows = orderedLines(plan, order).map((line, index) => ({
    index,
    domain: line.domain,
    id: line.id,
    turn: line.turn,
    bytes: line.length,
    prefix: line.prefix,
    line,
  }));
  if (!anchor) return rows;
  const turns = new Map<string, number[]>();
  for (const r of rows) turns.set(chainKey(r), [...(turns.get(chainKey(r)) ?? []), r.turn]);
  for (const [k, ts] of turns)
    turns.set(
      k,
      [...new Set(ts)].sort((a, b) => a - b),
    );
  return rows.map((r) => {
    const ts = turns.get(chainKey(r))!;
    const at = ts.indexOf(r.turn);
    const [prev, next] = [ts[at - 1], ts[at + 1]];
    const own = anchor(r.turn);
    const steps = prev !== undefined && anchor(prev) === own ? r.turn - prev : r.turn - own + 1;
    return { ...r, steps: Math.max(1, steps), early: next !== undefined && anchor(next) !== own };
  });
}

/**
 * The plan's files, open: a planned line is read again from its file
 * whenever it is needed, one line at a time, into one buffer as long as the
 * plan's longest line, made once: a multi-MB line read into fresh memory each
 * time is garbage that the GC frees late, and a buffer grown and freed raises
 * glibc's mmap threshold (bench/README.md).
 */
export class PlanInputs {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly inputs: { path: string; handle: FileHandle }[],
    private scratch: Buffer,
  ) {}

  static async open(plan: LinePlan): Promise<PlanInputs> {
    const longest = plan.lines.reduce((n, line) => Math.max(n, line.length), 0);
    const inputs = await Promise.all(plan.files.map(async (path) => ({ path, handle: await open(path, 'r') })));
    return new PlanInputs(inputs, Buffer.allocUnsafe(longest));
  }

  /** Lends the line's bytes (without its newline) to `use`, until what it returns has settled; lines are lent one after another. */
  withLine<T>(line: PlannedLine, use: (bytes: Buffer) => T | Promise<T>): Promise<T> {
    const turn = this.queue.then(async () => {
      if (this.scratch.length < line.length) this.scratch = Buffer.allocUnsafe(line.length);
      return use(await readLineAt(this.inputs[line.file]!, line.start, line.length, this.scratch));
    });
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** The line read and checked as a row of `schema`. */
  row<S extends z.ZodType<DatasetRow>>(line: PlannedLine, schema: S): Promise<ReadRow<z.infer<S>>> {
    const { path } = this.inputs[line.file]!;
    return this.withLine(line, (bytes) => readRow(bytes, schema, { file: path, lineNo: line.lineNo, terminated: line.terminated }));
  }

  async close(): Promise<void> {
    await Promise.all(this.inputs.map((i) => i.handle.close()));
  }
}

/**
 * Every planned row in file order, read and checked as the runner reads it, one at a time (dry run, batch phase), with
 * where it is; lines in `skip` are not read.
 */
export async function* plannedRows<S extends z.ZodType<DatasetRow>>(
  plan: LinePlan,
  schema: S,
  skip?: ReadonlySet<PlannedLine>,
): AsyncGenerator<{ read: ReadRow<z.infer<S>>; line: PlannedLine; file: string; lineNo: number }> {
  const inputs = await PlanInputs.open(plan);
  try {
    for (const line of plan.lines) {
      if (skip?.has(line)) continue;
      yield { read: await inputs.row(line, schema), line, file: plan.files[line.file]!, lineNo: line.lineNo };
    }
  } finally {
    await inputs.close();
  }
}

/** A planned line's row key, and for a judge the digest of the prediction it grades ('' for infer). */
export interface PlannedKey {
  key: string;
  prediction: string;
}

/** A resume compares digests of the predictions a judge grades, not the predictions: memory stays flat. */
export function predictionDigest(text: string): string {
  return updateText(createHash('sha256'), text).digest('base64url');
}

export const NO_PREDICTION = predictionDigest('');

/**
 * The planned lines' row keys, for a resume to match them with the rows it keeps: each read from
 * the few values it is made of (lineKey), not by parsing the line; a line that cannot be read
 * that way is read whole and checked, and is left out when it fails its checks.
 */
export async function plannedKeys<S extends z.ZodType<DatasetRow>>(
  plan: LinePlan,
  schema: S,
  prediction?: Stage['prediction'],
  /** Called before each line: throws to stop (Ctrl-C while a huge input is read). */
  between: () => void = () => {},
): Promise<Map<PlannedLine, PlannedKey>> {
  const keyed = (key: string, value: (field: string) => unknown) => {
    if (!prediction) return { key, prediction: '' };
    const text = prediction(value);
    // A line with no prediction a judge reads is read whole, so it is reported for its fault, not as another prediction.
    return text === undefined ? undefined : { key, prediction: predictionDigest(text) };
  };
  const keys = new Map<PlannedLine, PlannedKey>();
  const inputs = await PlanInputs.open(plan);
  try {
    for (const line of plan.lines) {
      between();
      const planned =
        (await inputs.withLine(line, (bytes) => {
          const read = lineKey(bytes);
          return read && keyed(read.key, read.value);
        })) ?? (await inputs.row(line, schema).then((read) => (read.ok ? keyed(read.key, (field) => read.parsed[field]) : undefined)));
      if (planned) keys.set(line, planned);
    }
  } finally {
    await inputs.close();
  }
  return keys;
}

/** Whether some planned row that passes its checks is not among `done`: only lines whose key is not done are read whole. */
export async function somePlannedLeft<S extends z.ZodType<DatasetRow>>(
  plan: LinePlan,
  schema: S,
  keys: ReadonlyMap<PlannedLine, PlannedKey>,
  done: ReadonlySet<string>,
  between: () => void = () => {},
): Promise<boolean> {
  const inputs = await PlanInputs.open(plan);
  try {
    for (const line of plan.lines) {
      between();
      const key = keys.get(line)?.key;
      if (key !== undefined && done.has(key)) continue;
      const read = await inputs.row(line, schema);
      if (read.ok && !done.has(read.key)) return true;
    }
    return false;
  } finally {
    await inputs.close();
  }
}

/** The rows read so far by key: a row that repeats one of them is a bad row, named with where the first one is. */
export class RowsSeen {
  private readonly where = new Map<string, string>();

  /** Notes the row at `file:lineNo`; a report when its key was seen before, else undefined. */
  repeat(key: string, file: string, lineNo: number): BadRow | undefined {
    const here = `${file}:${lineNo}`;
    const first = this.where.get(key);
    if (first !== undefined) return { file, lineNo, message: `${here}: the same row as ${first} (${SAME_ROW})` };
    this.where.set(key, here);
    return undefined;
  }
}

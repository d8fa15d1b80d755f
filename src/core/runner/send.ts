import type { z } from 'zod';
import { domainOfTask } from '../domains.js';
import { brief } from '../shown.js';
import type { PlannedLine } from '../rows/index.js';
import type { DatasetRow } from '../schemas/index.js';
import type { Tallies } from './accounting.js';
import type { BadRows } from './bad-rows.js';
import type { Dispatcher } from './dispatch.js';
import { RowsSeen, type PlanInputs, type scheduleRows } from './plan.js';
import type { RunManifest } from './run-manifest.js';
import type { RunOptions } from './run.js';
import type { Schedule } from './schedule.js';
import type { Stage } from './stage.js';
import type { OutputWriter } from './writer.js';

/*
 * The sending half of a run (runStage): rows read in the schedule's order,
 * queued on the dispatcher, and each answer written and counted as it comes.
 */

/** Why a row failed, for the summary: its error (infer), its error message (judge), or the refusal an empty prediction was. */
export function reasonOf(fields: Record<string, unknown>): string | undefined {
  if (typeof fields.error === 'string') return fields.error;
  if (typeof fields.error_message === 'string') return fields.error_message;
  return typeof fields.gen_refusal === 'string' && fields.gen === '' ? `the model refused: ${brief(fields.gen_refusal, [])}` : undefined;
}

/** `input`: the input's values of the stage's inputFields, which the outcome and the tally read as an output row holds them. */
export type SaveRow = (
  line: PlannedLine,
  domain: string,
  input: Record<string, unknown>,
  fields: Record<string, unknown>,
) => () => Promise<void>;

/**
 * Writes an answered row and counts it. Made once, not in the send loop, so
 * what it returns holds only what it is given: a closure made in the loop
 * would keep the row's request (its job) alive until the write.
 */
export function rowSaver<S extends z.ZodType<DatasetRow>>(run: {
  stage: Stage<S>;
  inputs: PlanInputs;
  writer: OutputWriter;
  manifest: RunManifest;
  tallies: Tallies;
  onEvent: RunOptions['onEvent'];
}): SaveRow {
  const { stage, inputs, writer, manifest, tallies, onEvent } = run;
  return (line, domain, input, fields) => async () => {
    // The line is read again rather than held: a row in flight keeps only its request.
    await inputs.withLine(line, (bytes) => writer.write(bytes, fields));
    await manifest.rowAdded();
    const row = { ...input, ...fields };
    const outcome = stage.outcome(row);
    stage.tally(row, tallies.count(domain, outcome));
    const error = reasonOf(fields);
    onEvent?.({ type: 'row', domain, ok: outcome === 'done', ...(error !== undefined ? { error } : {}) });
  };
}

/**
 * Reads, checks and queues the planned rows in the schedule's order (a later
 * turn of a trajectory once its earlier turns are settled, so a prefix cache
 * serves it), until they are all settled or the run stops.
 */
export async function sendPlanned<S extends z.ZodType<DatasetRow>>(run: {
  stage: Stage<S>;
  opts: Pick<RunOptions, 'plan' | 'stop' | 'chat' | 'costCap'>;
  schedule: Schedule<ReturnType<typeof scheduleRows>[number]>;
  slots: Dispatcher;
  inputs: PlanInputs;
  badRows: BadRows;
  doneKeys: ReadonlySet<string>;
  saveRow: SaveRow;
}): Promise<void> {
  const { stage, opts, schedule, slots, inputs, badRows, doneKeys, saveRow } = run;
  const { plan } = opts;
  const seen = new RowsSeen();
  const halted = () => opts.stop.aborted || opts.costCap?.reached === true || slots.error !== undefined;
  while (!schedule.isDone()) {
    if (halted()) break;
    await slots.room();
    if (halted()) break;
    const item = schedule.next();
    if (!item) {
      // Every row left waits for an earlier turn in flight or for room; none in flight means they were cancelled.
      if (await slots.settled()) continue;
      break;
    }
    const { line } = item;
    if (badRows.pastCutoff(item.index)) {
      schedule.finish(item);
      continue;
    }
    const file = plan.files[line.file]!;
    const read = await inputs.row(line, stage.schema);
    if (!read.ok) {
      schedule.finish(item);
      badRows.met(read.bad, line.domain, item.index);
      continue;
    }
    const domain = domainOfTask(read.row.task);
    const repeat = seen.repeat(read.key, file, line.lineNo);
    if (repeat) {
      schedule.finish(item);
      badRows.met(repeat, domain, item.index);
      continue;
    }
    if (doneKeys.has(read.key)) {
      schedule.finish(item);
      continue;
    }
    // A judge's input `error` (a failed inference) decides, with the new fields, the row's outcome; its `gen`, the tally's rows without output.
    const input = Object.fromEntries((stage.inputFields ?? []).map((f) => [f, read.parsed[f]]).filter(([, v]) => v !== undefined));
    const chat = opts.chat(read.key);
    const job = stage.job(read.row, read.key, opts.costCap ? opts.costCap.chat(chat) : chat);
    slots.submit(async (signal) => {
      let fields: Record<string, unknown> | undefined;
      try {
        fields = await job(signal, () => schedule.advance(item));
      } finally {
        // Settled for good (answered, failed after its retries, or cancelled): its trajectory's next turn may go.
        schedule.finish(item);
      }
      // Saved outside the slot: the slot takes the next row while this one waits its turn to be written.
      return fields && saveRow(line, domain, input, fields);
    });
    // Parsing a multi-MB row can hog the loop; yield so finished requests are written promptly.
    await new Promise<void>((r) => setImmediate(r));
  }
}

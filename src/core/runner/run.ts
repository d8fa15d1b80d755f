import type { z } from 'zod';
import { domainOfTask } from '../domains.js';
import { fail } from '../errors.js';
import { createFolders, refuseOverInputs } from '../files.js';
import { displayKey, type BadRow, type BadRowMode, type LinePlan } from '../rows/index.js';
import { manifestPathFor, type DatasetRow, type Manifest, type ManifestSettings, type MixedRun } from '../schemas/index.js';
import { Tallies, newManifest, type DomainTally } from './accounting.js';
import { BadRows } from './bad-rows.js';
import { Dispatcher } from './dispatch.js';
import { checkOutputPath, checkResumable, isNonEmptyFile, lockOutput, removeStaleTemps } from '../output/index.js';
import { batchStatePath } from './batch-phase.js';
import {
  NO_PREDICTION,
  PlanInputs,
  plannedKeys,
  plannedRows,
  predictionDigest,
  scheduleRows,
  somePlannedLeft,
  type Order,
} from './plan.js';
import { Schedule } from './schedule.js';
import type { RowChat, Stage } from './stage.js';
import { RunManifest } from './run-manifest.js';
import { OutputWriter, dropRedone, scanOutput, type Resumed } from './writer.js';
import { reasonOf, rowSaver, sendPlanned } from './send.js';
import type { CostCap, Spending } from './cost-cap.js';

export type StageEvent =
  | { type: 'planned'; total: number; alreadyDone: number; todo: number; dropped: { failed: number; cut: number; invalid: number } }
  | { type: 'bad'; bad: BadRow }
  /** --force resumed into rows made under other or unknown settings: the manifest records the file as mixed. */
  | { type: 'mixed'; rows: number; differences: string[] }
  /** A resume into an output holding rows the run's data does not (--force, or the data has bad rows): kept, not counted. */
  | { type: 'outside'; output: string; rows: number; first: string; forced: boolean }
  | { type: 'row'; domain: string; ok: boolean; error?: string }
  /** A row kept from an earlier run whose final result is a failure (not asked again without --retry-failed). */
  | { type: 'kept-failure'; domain: string; error?: string }
  | { type: 'stopping' }
  /** The output is a FIFO nothing reads yet: the run waits for a reader before it sends any row. */
  | { type: 'waiting-for-reader'; output: string };

export interface RunOptions {
  output: string;
  /** What the run covers (rows/planLines); its domains decide some settings, so the caller plans first. */
  plan: LinePlan;
  order?: Order;
  settings: ManifestSettings;
  dataset: Omit<Manifest['dataset'], 'rows' | 'domains'>;
  upstream?: unknown;
  /** The run's name (--label), recorded in the manifest. */
  label?: string;
  force: boolean;
  /** Ask again rows whose final result was a failure. */
  retryFailed: boolean;
  concurrency: number;
  /** The rows handed out and not settled hold at most this many bytes of input (Schedule's maxBytes). */
  maxInflightBytes?: number;
  onBadRow: BadRowMode;
  /** Stop taking new rows (first Ctrl-C); the requests in flight may finish within graceMs. */
  stop: AbortSignal;
  /** Cancel requests in flight at once (second Ctrl-C). */
  abort: AbortSignal;
  /**
   * When the run is stopped (stop, or a fault), how long the requests in flight may finish, their answers saved;
   * undefined: a fault cancels them at once, and a stop lets them end.
   */
  graceMs?: number;
  onEvent?: (e: StageEvent) => void;
  /** How each row's requests are sent (Stage.job's `chat`), by its key. */
  chat: (key: string) => RowChat;
  /**
   * The endpoint check: run when some planned row is not finished yet, after the output's own
   * checks and before anything on disk is made or changed (a refused run leaves nothing behind).
   */
  check?: () => Promise<void>;
  /** Runs after the resume (given the rows already done) and before anything is sent: the batches. */
  beforeDispatch?: (doneKeys: ReadonlySet<string>) => Promise<void>;
  /** The Batch API batches this run's replies came from (--batch), added to the manifest's. */
  batchIds?: () => string[];
  endpointStats?: () => Record<string, { requests: number; failures: number }>;
  /** --max-cost: each request admitted under the cap first; once it refuses one, no new row is taken and those in flight finish. */
  costCap?: CostCap;
}

export interface StageResult {
  perDomain: Map<string, DomainTally>;
  /** Rows without a final result: failed requests, or not reached. */
  remaining: number;
  stopped: boolean;
  /** Rows that waited for room under maxInflightBytes while they were next in line. */
  heldForRoom: number;
  manifest: Manifest;
  /** With --max-cost: the spending at the end (the output's rows from earlier runs included), and whether the cap stopped the run. */
  cost?: Spending & { reached: boolean; refused: number };
}

/**
 * The shared life of infer and judge: pick up where an earlier run stopped,
 * then read, check and send the planned rows in order with bounded
 * concurrency, appending each result as one whole line the moment it is
 * ready, and record what produced the file. A row in flight holds only its
 * request (its line is read again to write the result); memory grows with concurrency, not with the data.
 *
 * Nothing on disk is made or changed before the output's own checks (cheap and certain) and the
 * endpoint check (`check`, only when a row is left to send) have passed.
 */
export async function runStage<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, opts: RunOptions): Promise<StageResult> {
  const { plan } = opts;
  await refuseOverInputs([opts.output, manifestPathFor(opts.output)], plan.files);
  const missing = await checkOutputPath(opts.output);
  if (plan.lines.length === 0) throw fail({ kind: 'no-rows-planned', files: plan.files });
  // One run per output: two appending to one file would each send and write every row. A new
  // output's folder has nothing to guard yet, and is made only once the checks have passed.
  let unlock = missing.length ? undefined : await lockOutput(opts.output);
  try {
    let found = await examine(stage, opts);
    if (found.todo) {
      await opts.check?.();
      // Ctrl-C before the first request (the check ends itself when stopped during it): nothing is made or changed.
      if (opts.stop.aborted) throw fail({ kind: 'stopped-before-first-request', stage: stage.name });
    }
    if (!unlock) {
      await createFolders(missing);
      unlock = await lockOutput(opts.output);
      // Another run may have begun the output meanwhile: this one resumes what it holds.
      found = await examine(stage, opts);
    }
    return await runLocked(stage, opts, found);
  } finally {
    await unlock?.();
  }
}

async function runLocked<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, opts: RunOptions, found: Found): Promise<StageResult> {
  await removeStaleTemps([opts.output, manifestPathFor(opts.output), batchStatePath(opts.output)]);
  // What the stage keeps beside the output (a free-running run's steps) is open before the batches, whose rounds
  // fill it. A run killed in its first rounds wrote no manifest yet: its steps are kept for a run with --batch, or
  // one that finds its batches' state (a run resumed online).
  const kept = async () =>
    found.previous !== undefined || opts.batchIds !== undefined || (await isNonEmptyFile(batchStatePath(opts.output)));
  const end = stage.begin && (await stage.begin(opts.output, opts.settings, await kept()));
  try {
    return await runBegun(stage, opts, found);
  } finally {
    await end?.();
  }
}

async function runBegun<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, opts: RunOptions, found: Found): Promise<StageResult> {
  const { plan } = opts;
  const { resumed, tallies } = found;
  const manifest = await resume(stage, opts, found);

  const writer = await OutputWriter.open(opts.output, stage.outputFields, opts.stop, () =>
    opts.onEvent?.({ type: 'waiting-for-reader', output: opts.output }),
  );
  const inputs = await PlanInputs.open(plan);
  const slots = new Dispatcher(opts.concurrency, undefined, opts.graceMs);
  const onAbort = () => slots.cancel();
  const onStop = () => slots.finish();
  if (opts.abort.aborted) onAbort();
  if (opts.stop.aborted) onStop();
  opts.abort.addEventListener('abort', onAbort);
  opts.stop.addEventListener('abort', onStop);
  const badRows = new BadRows(opts.onBadRow, tallies, (bad) => opts.onEvent?.({ type: 'bad', bad }));
  const schedule = new Schedule(scheduleRows(plan, opts.order, stage.anchor), { maxBytes: opts.maxInflightBytes });
  const saveRow = rowSaver({ stage, inputs, writer, manifest, tallies, onEvent: opts.onEvent });
  opts.costCap?.start(tallies.perDomain.values());

  let readError: { error: unknown } | undefined;
  try {
    try {
      await sendPlanned({ stage, opts, schedule, slots, inputs, badRows, doneKeys: resumed.doneKeys, saveRow });
    } catch (error) {
      // A read that fails (a disk error, a file cut short) must not leave requests running into closed files.
      readError = { error };
      slots.cancel();
    }
    if (opts.stop.aborted || slots.finishing) opts.onEvent?.({ type: 'stopping' });
    await slots.drain();
  } finally {
    opts.abort.removeEventListener('abort', onAbort);
    opts.stop.removeEventListener('abort', onStop);
    await writer.close();
    await inputs.close();
    await manifest.save();
  }
  const fatal = readError ?? slots.error;
  if (fatal) throw fatal.error;
  const stoppedAtBadRow = badRows.stopError(opts.stop.aborted);
  if (stoppedAtBadRow) throw stoppedAtBadRow;
  return {
    perDomain: tallies.perDomain,
    remaining: tallies.remaining(),
    stopped: opts.stop.aborted,
    heldForRoom: schedule.heldForRoom(),
    manifest: manifest.manifest,
    ...(opts.costCap && { cost: { ...opts.costCap.spending, reached: opts.costCap.reached, refused: opts.costCap.refused } }),
  };
}

/** What examine reads of the run's options. */
export type ExamineOptions = Pick<RunOptions, 'output' | 'plan' | 'settings' | 'dataset' | 'force' | 'retryFailed' | 'onEvent'> &
  Partial<Pick<RunOptions, 'stop'>>;

/**
 * What a run would keep of its output (a dry run's view): the keys of the rows it would not send again, read and
 * checked as the run reads them, so an output the run would refuse (other settings, other data) is refused here too.
 */
export async function keptRows<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, opts: ExamineOptions): Promise<ReadonlySet<string>> {
  await refuseOverInputs([opts.output, manifestPathFor(opts.output)], opts.plan.files);
  return (await examine(stage, opts)).resumed.doneKeys;
}

/** What the output holds for this run, read without changing anything (examine). */
interface Found {
  dataset: Manifest['dataset'];
  previous: Manifest | undefined;
  overridden: string[];
  resumed: Resumed;
  /** The finished rows the run keeps, counted by domain. */
  tallies: Tallies;
  /** The finished rows the run keeps that its data holds. */
  kept: number;
  /** Whether some planned row is not finished: only then does the run need its endpoint. */
  todo: boolean;
}

/**
 * Checks that the output may be resumed (its settings; its rows belong to the data) and reads the
 * rows it keeps, counting them, changing nothing. Rows of the output that this run's data does not
 * hold (hand-added, or from other data) are refused like other settings, and with --force kept
 * but not counted. A judge's rows graded on other predictions than the input's (another model's, a
 * re-run of infer) are refused, --force or not.
 */
async function examine<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, opts: ExamineOptions): Promise<Found> {
  const { plan } = opts;
  const read: Manifest['dataset'] = {
    ...opts.dataset,
    domains: [...plan.perDomain.keys()].filter((d) => d !== '?'),
    rows: Object.fromEntries([...plan.perDomain].filter(([d]) => d !== '?')),
  };
  // `dataset`: what this run records, never less than the earlier manifest knew of the data.
  // Ctrl-C while a huge output or input is read stops between rows, before anything is sent or changed.
  const between = () => {
    if (opts.stop?.aborted) throw fail({ kind: 'stopped-before-first-request', stage: stage.name });
  };
  // A row holds an answer once its request succeeded (an empty generation too): failed requests are sent again.
  const answered = async () =>
    (await scanOutput(opts.output, { schema: stage.schema, keep: (row) => stage.outcome(row) !== 'incomplete', between })).doneKeys.size >
    0;
  const { previous, overridden, dataset } = await checkResumable(opts.output, stage.name, opts.settings, read, opts.force, answered);
  const tallies = new Tallies();
  for (const [d, n] of plan.perDomain) tallies.of(d).total = n;
  // Only a resume needs the keys of the rows planned: a new output holds no row to match.
  const lineKeys = (await isNonEmptyFile(opts.output)) ? await plannedKeys(plan, stage.schema, stage.prediction, between) : undefined;
  const planned = lineKeys && new Map([...lineKeys.values()].map((p) => [p.key, p.prediction]));
  const outside = { rows: 0, first: '' };
  const otherPredictions = { rows: 0, first: '' };
  const resumed = await scanOutput(opts.output, {
    schema: stage.schema,
    between,
    keep: (row, key) => {
      const o = stage.outcome(row);
      if (o !== 'done' && !(o === 'failed' && !opts.retryFailed)) return false;
      // A row judged without a prediction was graded by no judge: it is judged once its input has one (infer --retry-failed).
      const input = planned?.get(key);
      return !(stage.prediction?.((field) => row[field]) === '' && input !== undefined && input !== NO_PREDICTION);
    },
    onKept: (row, key, lineNo) => {
      const input = planned?.get(key);
      const where = () => `${opts.output}:${lineNo} (${displayKey(key)})`;
      if (planned && input === undefined) {
        if (!outside.rows++) outside.first = where();
        return;
      }
      if (input !== undefined && stage.prediction && predictionDigest(stage.prediction((field) => row[field]) ?? '') !== input) {
        if (!otherPredictions.rows++) otherPredictions.first = where();
      }
      const domain = domainOfTask(String(row.task));
      const outcome = stage.outcome(row);
      stage.tally(row, tallies.count(domain, outcome));
      if (outcome === 'failed') {
        // A judged row keeps its predictions' fields (infer's `error` among them): the judge's own reason comes first.
        const error = typeof row.error_message === 'string' ? row.error_message : reasonOf(row);
        opts.onEvent?.({ type: 'kept-failure', domain, ...(error !== undefined ? { error } : {}) });
      }
    },
  });
  if (outside.rows) {
    // With rows of the data that fail their checks, those may be them as they were: the bad rows are reported as the run meets them.
    if (!opts.force && !(await someBad(plan, stage.schema))) {
      throw fail({ kind: 'output-from-other-data', output: opts.output, ...outside });
    }
    opts.onEvent?.({ type: 'outside', output: opts.output, ...outside, forced: opts.force });
  }
  // Kept, they would be scored as this input's: --force mixes settings, never a prediction with another's judgement.
  if (otherPredictions.rows) {
    throw fail({ kind: 'output-of-other-predictions', output: opts.output, inputs: plan.files, ...otherPredictions });
  }
  const todo = lineKeys ? await somePlannedLeft(plan, stage.schema, lineKeys, resumed.doneKeys, between) : true;
  return { dataset, previous, overridden, resumed, tallies, kept: resumed.doneKeys.size - outside.rows, todo };
}

/** Whether some planned row fails its checks (each row read whole: only asked when the output holds rows the data lacks). */
async function someBad(plan: LinePlan, schema: z.ZodType<DatasetRow>): Promise<boolean> {
  for await (const { read } of plannedRows(plan, schema)) if (!read.ok) return true;
  return false;
}

/**
 * Picks up where an earlier run on the output stopped: drops the lines to
 * redo, runs `beforeDispatch`, and writes the manifest the run starts from.
 */
async function resume<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, opts: RunOptions, found: Found): Promise<RunManifest> {
  const { plan } = opts;
  const { dataset, previous, overridden, resumed, tallies, kept } = found;
  await dropRedone(opts.output, resumed);
  const mixed = mixedRuns(previous, overridden, resumed.doneKeys.size);
  if (overridden.length && resumed.doneKeys.size) {
    opts.onEvent?.({ type: 'mixed', rows: resumed.doneKeys.size, differences: overridden });
  }
  await opts.beforeDispatch?.(resumed.doneKeys);
  const total = plan.lines.length;
  const alreadyDone = Math.min(kept, total);
  opts.onEvent?.({ type: 'planned', total, alreadyDone, todo: total - alreadyDone, dropped: resumed.dropped });

  const start = {
    stage: stage.name,
    label: opts.label ?? previous?.label,
    batches: [...(previous?.batches ?? []), ...(opts.batchIds?.() ?? [])],
    startedAt: previous?.started_at ?? new Date().toISOString(),
  };
  const own = newManifest({ ...start, dataset, settings: opts.settings, upstream: opts.upstream, mixed });
  // This run adds to the file's record of mixed runs: until it adds a row, the earlier manifest stands (RunManifest).
  const earlier =
    previous && mixed.length > (previous.mixed?.length ?? 0)
      ? newManifest({
          ...start,
          dataset: previous.dataset,
          settings: previous.settings,
          upstream: previous.upstream,
          mixed: previous.mixed,
        })
      : undefined;
  const manifest = new RunManifest(opts.output, own, earlier, tallies, opts.endpointStats);
  await manifest.save();
  return manifest;
}

/**
 * The file's record of mixed runs: the earlier manifest's, and this run's when --force overrode other or
 * unknown settings of rows it keeps. A file left with no rows from before mixes nothing.
 */
function mixedRuns(previous: Manifest | undefined, overridden: string[], kept: number): MixedRun[] {
  if (!kept) return [];
  const earlier = previous?.mixed ?? [];
  if (!overridden.length) return earlier;
  const now: MixedRun = { at: new Date().toISOString(), reason: overridden.join('; '), rows: kept };
  return [...earlier, previous ? { ...now, settings: previous.settings } : now];
}

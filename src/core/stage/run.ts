import type { z } from 'zod';
import { medianP90 } from '../endpoints/index.js';
import { fail } from '../errors.js';
import { isStream } from '../files.js';
import type { LinePlan } from '../rows/index.js';
import { BatchPhase, CostCap, dryRun, keptRows, runStage, type RunOptions, type Stage, type StageResult } from '../runner/index.js';
import type { DatasetRow, Manifest, ManifestSettings } from '../schemas/index.js';
import type { Notice } from '../errors.js';
import { NO_OUTPUT_MIN_ROWS, NO_OUTPUT_SHARE } from '../rubrics/index.js';
import type { RunConfig } from './config.js';
import type { Ending, Spread, StageDisplay, StageSignals } from './display.js';
import { poolChat, type BatchCommon, type BatchProgress, type StageBatch, type StagePool } from './pools.js';

/* What infer and judge share: the endpoint check, the dry run, and the run with its batches, streams and ending. */

/** What a stage entry hands to the run: the runner's inputs less those every stage fills the same way. */
export interface StageRun<S extends z.ZodType<DatasetRow>> {
  stage: Stage<S>;
  /** Sends the rows' requests; with --batch, also where the batches go (its first base URL). A panel's: its members' (PanelPools). */
  pool: StagePool;
  plan: LinePlan;
  output: string;
  settings: ManifestSettings;
  dataset: RunOptions['dataset'];
  upstream?: unknown;
  label?: string;
  config: RunConfig;
  /** The secrets of the command line (keys, URL query values): kept out of what is shown. */
  secrets: string[];
  /** The endpoint check (endpointCheck), when the stage made it (infer, to check before a download). */
  check?: () => Promise<void>;
  /** --batch's batches when they are not one BatchPhase to the pool's batch target: a panel's, one per member (PanelBatches). */
  batches?: (common: BatchCommon, progress: BatchProgress) => StageBatch;
}

/**
 * The endpoint check (preflight) of a run, undefined with --no-preflight: made once however often
 * it is called (infer without --data calls it before downloading, the runner before the output is
 * touched), its set-aside endpoints told once. Ctrl-C during it ends the command (the signals' step).
 */
export function endpointCheck(
  stage: string,
  pool: Pick<StagePool, 'preflight' | 'stopSending'>,
  config: Pick<RunConfig, 'preflight'>,
  display: StageDisplay,
  signals: StageSignals,
): (() => Promise<void>) | undefined {
  if (!config.preflight) return undefined;
  let checked: Promise<void> | undefined;
  return () =>
    (checked ??= signals.step('check', stage, async (signal) => {
      signal.addEventListener('abort', () => pool.stopSending(), { once: true });
      const warnings = await pool.preflight();
      signal.throwIfAborted();
      if (warnings.length) display.event({ type: 'set-aside', warnings });
    }));
}

/** Rows whose final result is a failure; rows with no reference to compare with are left out (never sent, listed before the run). */
function endedFailed(result: Pick<StageResult, 'perDomain'>): number {
  return [...result.perDomain.values()].reduce((n, t) => n + t.finalFailed - t.unpaired, 0);
}

/** How the run ended: stopped, rows left, rows ended failed, stopped by its cost cap. */
export function endingOf(result: Pick<StageResult, 'perDomain' | 'stopped' | 'remaining' | 'cost'>): Ending {
  const ending = { stopped: result.stopped, remaining: result.remaining, failed: endedFailed(result) };
  const cost = result.cost;
  if (!cost?.reached || result.remaining === 0) return ending;
  const done = [...result.perDomain.values()].reduce((n, t) => n + t.done, 0);
  // Rows left at the mean cost of a row so far (at the refused request's most, when none is done yet).
  const perRow = done > 0 ? cost.spent / done : cost.refused;
  const next = Math.ceil((cost.spent + result.remaining * perRow + cost.refused) * 100) / 100;
  return { ...ending, capped: { cap: cost.cap, spent: cost.spent, next } };
}

/** --max-cost's cap on the run (checked by the config: prices and a token limit given); none without it. */
function costCapOf(o: RunConfig, stage: string, pool: Pick<StagePool, 'stopSending'>, display: StageDisplay): CostCap | undefined {
  if (o.maxCost === undefined) return undefined;
  return new CostCap({
    cap: o.maxCost,
    prices: { input: o.priceInput!, output: o.priceOutput! },
    maxTokens: o.maxTokens!,
    onReached: (spending) => {
      // No retry either: a request refused now would cost as much as a new one.
      pool.stopSending();
      display.event({ type: 'cost-cap', stage, spending });
    },
  });
}

/** Whether the run left every row with a result that is not a failure: only then is the next step shown. */
export function allDone(e: Ending): boolean {
  return !e.stopped && e.remaining === 0 && e.failed === 0;
}

/** The run of a stage: interrupts, batches or online sending, the answered-row policy, and its end told to the display. */
export async function runStageWith<S extends z.ZodType<DatasetRow>>(
  c: StageRun<S>,
  display: StageDisplay,
  signals: StageSignals,
): Promise<StageResult> {
  const name = c.stage.name;
  const o = c.config;
  display.event({ type: 'running', stage: name, output: c.output, limitedBy: () => c.pool.pacing()?.limitedBy });
  const interrupts = signals.run(name, o.grace);
  // Ctrl-C stops sending: the grace is for replies under way, not for requests waiting to be tried again.
  interrupts.stop.addEventListener('abort', () => c.pool.stopSending(), { once: true });
  const common: BatchCommon = {
    output: c.output,
    plan: c.plan,
    settings: c.settings,
    limits: { maxLines: o.batchMaxLines, maxBytes: o.batchMaxMb * 1e6 },
    pollMs: o.batchPoll,
    secrets: c.secrets,
    signal: interrupts.stop,
  };
  const progress = (who?: string) => (status: Parameters<ReturnType<BatchProgress>>[0]) =>
    display.event({ type: 'batch', stage: name, ...(who !== undefined && { who }), status });
  const batch: StageBatch | undefined = !o.batch
    ? undefined
    : c.batches
      ? c.batches(common, progress)
      : new BatchPhase(c.stage, { ...c.pool.batchTarget(), ...common, onStatus: progress() });
  const online = poolChat(c.pool);
  const timings = o.stream ? streamTimings(c.stage) : undefined;
  const watched = watchNoOutput(timings?.stage ?? c.stage, (notice) => display.event({ type: 'warning', notice }));
  const costCap = costCapOf(o, name, c.pool, display);
  try {
    const result = await runStage(watched, {
      output: c.output,
      plan: c.plan,
      settings: c.settings,
      dataset: c.dataset,
      upstream: c.upstream,
      label: c.label,
      force: o.force,
      retryFailed: o.retryFailed,
      concurrency: o.concurrency,
      maxInflightBytes: o.maxInflightMb === 0 ? Infinity : o.maxInflightMb * 1e6,
      onBadRow: o.onBadRow,
      stop: interrupts.stop,
      abort: interrupts.abort,
      graceMs: o.grace * 1000,
      onEvent: (e) => display.event(e),
      chat: batch ? (key) => batch.chat(key, online) : () => online,
      // Batches recorded by an earlier run with other settings are refused before anything is changed.
      check: async () => {
        await batch?.check();
        await c.check?.();
      },
      beforeDispatch: async (doneKeys: ReadonlySet<string>) => {
        // Rows answered with these settings (the manifest guards them): a refusal that comes for every row is then not theirs.
        if (doneKeys.size) c.pool.noteAnswered();
        await batch?.run(doneKeys);
      },
      ...(batch && { batchIds: () => batch.ids }),
      endpointStats: () => c.pool.stats(),
      ...(costCap && { costCap }),
    });
    // Every batch reply is in the output now; a later run batches what is left anew.
    if (batch && !result.stopped) await batch.clear();
    display.event({
      type: 'finished',
      stage: name,
      output: c.output,
      result,
      ending: endingOf(result),
      ...(timings && { timings: timings.spreads() }),
      notInBatch: batch?.notInBatch ?? 0,
      usageLost: c.pool.usageLost,
      notices: [...c.pool.endNotices(), ...noOutputNotices(name, result)],
      secrets: c.secrets,
      resumable: !(await isStream(c.output)),
    });
    return result;
  } finally {
    display.event({ type: 'closed', stage: name });
    interrupts.dispose();
    await batch?.close();
  }
}

/**
 * The stage, its tally also watching the share of predictions without output (rows resumed
 * included): past NO_OUTPUT_SHARE of at least NO_OUTPUT_MIN_ROWS rows, `warn` is told once.
 */
function watchNoOutput<S extends z.ZodType<DatasetRow>>(stage: Stage<S>, warn: (n: Notice) => void): Stage<S> {
  let rows = 0;
  let none = 0;
  let unclosed = 0;
  let warned = false;
  const tally: Stage<S>['tally'] = (row, t) => {
    const [before, beforeUnclosed] = [t.noOutput, t.noOutputUnclosed];
    stage.tally(row, t);
    rows++;
    none += t.noOutput - before;
    unclosed += t.noOutputUnclosed - beforeUnclosed;
    if (warned || rows < NO_OUTPUT_MIN_ROWS || none < rows * NO_OUTPUT_SHARE) return;
    warned = true;
    warn(withoutOutput(stage.name, none, rows, unclosed, true));
  };
  return { ...stage, tally };
}

function withoutOutput(stage: Manifest['stage'], rows: number, of: number, unclosed: number, soFar: boolean): Notice {
  return { kind: 'predictions-without-output', stage, rows, of, ...(stage === 'infer' && { unclosed }), ...(soFar && { soFar }) };
}

/** The run's predictions without output, over every row of its output (those resumed too), when there are any. */
function noOutputNotices(stage: Manifest['stage'], result: StageResult): Notice[] {
  const tallies = [...result.perDomain.values()];
  const rows = tallies.reduce((n, t) => n + t.noOutput, 0);
  if (!rows) return [];
  const of = tallies.reduce((n, t) => n + t.done, 0);
  return [
    withoutOutput(
      stage,
      rows,
      of,
      tallies.reduce((n, t) => n + t.noOutputUnclosed, 0),
      false,
    ),
  ];
}

/**
 * With --stream: the stage, its tally also collecting each row's time to first token and decode
 * speed (resumed rows included), and their median and 90th percentile.
 */
function streamTimings<S extends z.ZodType<DatasetRow>>(stage: Stage<S>) {
  const prefix = stage.name === 'judge' ? 'judge_' : '';
  const ttft: number[] = [];
  const decode: number[] = [];
  const tally: Stage<S>['tally'] = (row, t) => {
    stage.tally(row, t);
    const a = row[`${prefix}ttft_ms`];
    const b = row[`${prefix}decode_tokens_per_s`];
    if (typeof a === 'number') ttft.push(a);
    if (typeof b === 'number') decode.push(b);
  };
  const spread = (xs: number[]): Spread | undefined => {
    const m = medianP90(xs);
    return m && { ...m, rows: xs.length };
  };
  return {
    stage: { ...stage, tally },
    spreads: () => ({ ttft: spread(ttft), decode: spread(decode) }),
  };
}

/**
 * --dry-run: the rows read and counted, nothing sent or written; the count told to the display.
 * Bad rows as the run would meet them: each told with --on-bad-row skip; with stop, the first one
 * ends the dry run (a fault), since the run would stop there.
 */
export async function dryRunStage<S extends z.ZodType<DatasetRow>>(
  run: StageRun<S>,
  display: StageDisplay,
  /** A free-running infer's teacher-forced stage: the run its requests and tokens are a multiple of. */
  teacherForced?: Stage<S>,
): Promise<void> {
  const { stage, plan, output, config } = run;
  const c = config;
  const cap =
    c.maxCost === undefined
      ? undefined
      : { usd: c.maxCost, prices: { input: c.priceInput!, output: c.priceOutput! }, maxTokens: c.maxTokens! };
  // The rows a run would keep are not counted; an output the run would refuse is refused here, as the run would.
  const kept = await keptRows(stage, {
    output,
    plan,
    settings: run.settings,
    dataset: run.dataset,
    force: config.force,
    retryFailed: config.retryFailed,
    onEvent: (e) => display.event(e),
  });
  const { rounds, ...count } = await dryRun(
    stage,
    plan,
    (bad) => {
      if (config.onBadRow === 'skip') display.event({ type: 'would-skip', stage: stage.name, bad });
    },
    output,
    cap,
    kept,
  );
  const base = teacherForced && (await dryRun(teacherForced, plan));
  display.event({
    type: 'dry-run',
    stage: stage.name,
    // With --batch, a free-running run's steps go in rounds, one after another.
    count: { ...count, ...(config.batch && rounds !== undefined && { rounds }) },
    output,
    ...(base && { teacherForced: { requests: base.requests, promptTokens: base.promptTokens } }),
  });
  if (count.firstBad && config.onBadRow === 'stop') throw fail({ kind: 'dry-run-bad-row', message: count.firstBad.message });
}

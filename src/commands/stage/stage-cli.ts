import { terminal } from '../shared/terminal.js';
import type { Sampling } from '../../core/infer/index.js';
import type { SharedOptions } from './stage-options.js';
import type { z } from 'zod';
import { medianP90, type BatchStatus, type BatchTarget } from '../../core/endpoints/index.js';
import { setAsideWarning } from '../words/stage/endpoints.js';
import type { LinePlan } from '../../core/rows/index.js';
import {
  BatchPhase,
  dryRun,
  runStage,
  type BatchPhaseOptions,
  type RowChat,
  type RunOptions,
  type Stage,
  type StageResult,
} from '../../core/runner/index.js';
import { UserError } from '../../core/errors.js';
import { counted, visible } from '../../core/shown.js';
import type { DatasetRow, ManifestSettings } from '../../core/schemas/index.js';
import {
  FailureReasons,
  createProgress,
  installInterrupts,
  printSummary,
  reportEvent,
  resumeCommand,
  type SummaryColumn,
} from './run-ui.js';
import type { StagePool } from './panel-pools.js';
import { interruptibly } from '../shared/interrupt.js';
import { printWarnings } from '../shared/notes.js';

/* What infer and judge share on the command line: request, selection and interrupt options, and how a run ends. */

export function printEndpoints(endpoints: Record<string, { requests: number; failures: number }> | undefined): void {
  if (!endpoints || Object.keys(endpoints).length < 2) return;
  for (const [url, s] of Object.entries(endpoints))
    terminal().stderr.write(`endpoint ${url}: ${s.requests} requests, ${s.failures} failed\n`);
}

/**
 * What a command gives to run its stage: the runner's options less those
 * every stage fills the same way (interrupts, progress, bad rows, resume).
 */
export interface StageCommand<S extends z.ZodType<DatasetRow>> {
  stage: Stage<S>;
  /** Sends the rows' requests; with --batch, also where the batches go (its first base URL). A panel's: its members' (PanelPools). */
  pool: StagePool;
  plan: LinePlan;
  output: string;
  settings: ManifestSettings;
  dataset: RunOptions['dataset'];
  upstream?: unknown;
  label?: string;
  options: SharedOptions;
  /** Stage-specific columns of the summary table. */
  columns: SummaryColumn[];
  secrets: string[];
  /** The endpoint check (endpointCheck), when the command made it (infer, to check before a download). */
  check?: () => Promise<void>;
  /** --batch's batches when they are not one BatchPhase to the pool's batch target: a panel's, one per member (PanelBatches). */
  batches?: (common: BatchCommon, progress: BatchProgress) => StageBatch;
}

/** What every batch of a run shares: where the run writes, its rows and settings, the limits and the stop. */
export type BatchCommon = Omit<BatchPhaseOptions, keyof BatchTarget | 'stem' | 'onStatus'>;

/** The progress lines of the batches of `who` (a panel's member). */
export type BatchProgress = (who: string) => (s: BatchStatus) => void;

/** What a run asks of its batches: one BatchPhase's surface. */
export type StageBatch = Pick<BatchPhase<z.ZodType<DatasetRow>>, 'run' | 'chat' | 'ids' | 'notInBatch' | 'clear' | 'close'>;

/** A pool's chat for a row's requests, without a batch. */
export function poolChat(pool: Pick<StagePool, 'encode' | 'chat'>): RowChat {
  return { encode: (request) => pool.encode(request), send: (_n, body, signal) => pool.chat(body, signal) };
}

/**
 * The endpoint check (preflight) of a run, undefined with --no-preflight: made once however often
 * it is called (infer without --data calls it before downloading, the runner before the output is
 * touched), its warnings printed once.
 */
export function endpointCheck(
  stage: string,
  pool: Pick<StagePool, 'preflight' | 'stopSending'>,
  o: SharedOptions,
): (() => Promise<void>) | undefined {
  if (!o.preflight) return undefined;
  let checked: Promise<void> | undefined;
  // Ctrl-C during it (before a download too, where no run is under way yet) ends the command: one line, exit 130, nothing written.
  return () =>
    (checked ??= interruptibly(async (signal) => {
      signal.addEventListener('abort', () => pool.stopSending(), { once: true });
      const warnings = await pool.preflight();
      signal.throwIfAborted();
      printWarnings(warnings.map(setAsideWarning));
    }, `${stage} interrupted during the endpoint check: nothing was sent or written`));
}

/** One line each: a server's text in a warning cannot start a log line of its own. */
/** What a run ends by warning of: requests no earlier batch held (--batch), and streams whose usage never came (--stream). */
function endWarnings(unbatched: number, usageLost: number): string[] {
  const warnings: string[] = [];
  if (unbatched > 0) {
    const one = unbatched === 1;
    warnings.push(
      `${one ? '1 request was' : `${unbatched} requests were`} not in the batches' results (${one ? 'its row' : 'their rows'} changed or new since the batch was submitted, or the batch left ${one ? 'it' : 'them'} out or returned ${one ? 'it' : 'them'} unreadable): asked online, at the online price`,
    );
  }
  if (usageLost > 0) {
    const one = usageLost === 1;
    warnings.push(
      `${one ? '1 stream' : `${usageLost} streams`} stalled or broke after the finish reason, before the usage chunk: ` +
        `${one ? 'its answer was' : 'their answers were'} kept, without token usage (not in the token counts)`,
    );
  }
  return warnings;
}

/** The wiring infer and judge share: interrupts, progress, the run, its summary and its exit code. */
export async function runStageCommand<S extends z.ZodType<DatasetRow>>(c: StageCommand<S>): Promise<StageResult> {
  const name = c.stage.name;
  const o = c.options;
  const progress = await createProgress(name, o.progress, () => c.pool.pacing()?.limitedBy);
  const interrupts = installInterrupts(name, o.grace, () => progress.interrupted());
  // Ctrl-C stops sending: the grace is for replies under way, not for requests waiting to be tried again.
  interrupts.stop.addEventListener('abort', () => c.pool.stopSending(), { once: true });
  const reasons = new FailureReasons();
  const common: BatchCommon = {
    output: c.output,
    plan: c.plan,
    settings: c.settings,
    limits: { maxLines: o.batchMaxLines, maxBytes: o.batchMaxMb * 1e6 },
    pollMs: o.batchPoll,
    secrets: c.secrets,
    signal: interrupts.stop,
  };
  const batch: StageBatch | undefined = !o.batch
    ? undefined
    : c.batches
      ? c.batches(common, (who) => batchProgress(`${name} ${who}`))
      : new BatchPhase(c.stage, { ...c.pool.batchTarget(), ...common, onStatus: batchProgress(name) });
  const online = poolChat(c.pool);
  const timings = o.stream ? streamTimings(c.stage) : undefined;
  try {
    const result = await runStage(timings?.stage ?? c.stage, {
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
      onEvent: (e) => {
        reportEvent(name, e, c.output);
        progress.event(e);
        reasons.event(e);
      },
      chat: batch ? (key) => batch.chat(key, online) : () => online,
      check: c.check ?? endpointCheck(name, c.pool, o),
      beforeDispatch: async (doneKeys: ReadonlySet<string>) => {
        // Rows answered with these settings (the manifest guards them): a refusal that comes for every row is then not theirs.
        if (doneKeys.size) c.pool.noteAnswered();
        await batch?.run(doneKeys);
      },
      ...(batch && { batchIds: () => batch.ids }),
      endpointStats: () => c.pool.stats(),
    });
    progress.stop();
    // Every batch reply is in the output now; a later run batches what is left anew.
    if (batch && !result.stopped) await batch.clear();
    printSummary(name, result, c.columns, reasons);
    timings?.print();
    printWarnings(endWarnings(batch?.notInBatch ?? 0, c.pool.usageLost));
    printEndpoints(result.manifest.endpoints);
    finish(name, result, c.output, c.secrets);
    return result;
  } finally {
    progress.stop();
    interrupts.dispose();
    await batch?.close();
  }
}

/**
 * With --batch: a line on stderr whenever a batch's status or counts change, and a warning when a
 * batch ended (expired, cancelled at the endpoint) with requests it never ran: those go online, at the full price.
 */
function batchProgress(stage: string): (s: BatchStatus) => void {
  const term = terminal();
  let last = '';
  return (s) => {
    const line = `${stage}: batch ${s.batch}/${s.of} ${visible(s.id)}: ${visible(s.status)}, ${s.completed}/${s.total} done${s.failed ? `, ${s.failed} failed` : ''}`;
    if (line !== last) term.stderr.write(`${line}\n`);
    last = line;
    const unrun = s.total - s.completed - s.failed;
    if ((s.status === 'expired' || s.status === 'cancelled') && unrun > 0)
      term.stderr.write(
        term.errColor.yellow(
          `warning: batch ${visible(s.id)} ${s.status} with ${unrun} of its ${s.total} requests not run: they are asked online, at the online price\n`,
        ),
      );
  };
}

/**
 * Rows whose final result is a failure (an empty generation, a judge reply that never parsed). Rows
 * with no reference to compare with are left out: they were never sent, and are listed before the run.
 */
function endedFailed(result: Pick<StageResult, 'perDomain'>): number {
  return [...result.perDomain.values()].reduce((n, t) => n + t.finalFailed - t.unpaired, 0);
}

/** Whether the run left every row with a result that is not a failure: only then is the next step printed. */
export function allDone(result: Pick<StageResult, 'perDomain' | 'stopped' | 'remaining'>): boolean {
  return !result.stopped && result.remaining === 0 && endedFailed(result) === 0;
}

/**
 * Final words and exit code: 0 when every row has a result that is not a failure; 1 when some are
 * left to redo, or ended failed (a CI job that runs only this stage must not pass on them); 130 when interrupted.
 */
export function finish(
  stage: string,
  result: Pick<StageResult, 'perDomain' | 'stopped' | 'remaining'>,
  output: string,
  secrets: string[],
): void {
  const term = terminal();
  const { stopped, remaining } = result;
  const again = resumeCommand(secrets);
  const failed = endedFailed(result);
  if (stopped) {
    term.stderr.write(
      term.errColor.yellow(
        `${stage}: interrupted with ${remaining} rows left; everything finished is saved in ${output}.\nResume with:\n  ${again}\n`,
      ),
    );
    term.exitCode = 130;
  } else if (remaining > 0) {
    term.stderr.write(
      term.errColor.yellow(
        `${stage}: ${counted(remaining, 'row')} failed (their errors are in ${output}); run the same command again to retry only those:\n  ${again}\n`,
      ),
    );
    term.exitCode = 1;
  } else if (failed > 0) {
    const retry = term.argv.includes('--retry-failed') ? again : `${again} --retry-failed`;
    term.stderr.write(
      term.errColor.yellow(
        `${stage}: ${counted(failed, 'row')} ended failed (kept in ${output}, left out of scores); once the cause is fixed, ask them again with:\n  ${retry}\n`,
      ),
    );
    term.exitCode = 1;
  } else {
    term.stderr.write(term.errColor.green(`${stage}: done: ${output}\n`));
  }
}

/** Sampling as the options give it. */
export function samplingOf(o: SharedOptions): Sampling {
  return { temperature: o.temperature, max_tokens: o.maxTokens, extra_body: o.extraBody };
}

/** The endpoint pool's settings from the options. */
export function poolSettings(o: SharedOptions) {
  return {
    timeoutMs: o.timeout,
    maxRetries: o.maxRetries,
    maxReplyBytes: o.maxReplyMb * 2 ** 20,
    ...(o.pace ? { pacing: { concurrency: o.concurrency } } : {}),
    ...(o.stream ? { stream: true, idleMs: o.streamIdle } : {}),
    sent: { ...(o.maxTokens !== undefined && { maxTokens: o.maxTokens }), ...(o.extraBody && { extraBody: o.extraBody }) },
  };
}

/** Settings go into the manifest, where an absent option and an undefined one must compare equal. */
export function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * With --stream: the stage, its tally also collecting each row's time to
 * first token and decode speed (resumed rows included), and the summary line
 * of their median and 90th percentile.
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
  return {
    stage: { ...stage, tally },
    print() {
      const t = medianP90(ttft);
      const d = medianP90(decode);
      if (t) terminal().stderr.write(`time to first token: median ${t.median} ms, p90 ${t.p90} ms (${ttft.length} rows)\n`);
      if (d) terminal().stderr.write(`decode speed: median ${d.median} tokens/s, p90 ${d.p90} tokens/s (${decode.length} rows)\n`);
    },
  };
}

/**
 * --dry-run: the rows read and counted, nothing sent or written; the count on stderr, or as JSON on stdout.
 * Bad rows are reported as the run would meet them: each named with --on-bad-row skip; with stop, the
 * first one ends the dry run with exit 2, since the run would stop there.
 */
export async function printDryRun<S extends z.ZodType<DatasetRow>>(
  stage: Stage<S>,
  plan: LinePlan,
  o: SharedOptions,
  output: string,
  /** A free-running infer's teacher-forced stage: its requests and tokens, which the horizon's are a multiple of. */
  teacherForced?: Stage<S>,
): Promise<void> {
  const count = await dryRun(
    stage,
    plan,
    (bad) => {
      if (o.onBadRow === 'skip') terminal().stderr.write(`${stage.name}: would skip bad row: ${visible(bad.message)}\n`);
    },
    output,
  );
  const base = teacherForced && (await dryRun(teacherForced, plan));
  const times = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : undefined);
  const multiple = base && { requests: times(count.requests, base.requests), promptTokens: times(count.promptTokens, base.promptTokens) };
  const promptCost = o.priceInput === undefined ? undefined : (count.promptTokens * o.priceInput) / 1e6;
  const outputCost = o.priceOutput === undefined ? undefined : (count.completionBudget * o.priceOutput) / 1e6;
  const cost = promptCost === undefined && outputCost === undefined ? undefined : (promptCost ?? 0) + (outputCost ?? 0);
  const expected = count.expected;
  const expectedOutputCost = o.priceOutput === undefined || !expected ? undefined : (expected.completionTokens * o.priceOutput) / 1e6;
  const expectedCost = cost === undefined || !expected ? undefined : (promptCost ?? 0) + (expectedOutputCost ?? 0);
  const usd = (n: number) => Math.round(n * 100) / 100;
  if (o.format === 'json') {
    const doc = {
      stage: stage.name,
      rows: count.rows,
      requests: count.requests,
      prompt_tokens: count.promptTokens,
      completion_budget_tokens: count.completionBudget,
      ...(expected ? { expected_completion_tokens: expected.completionTokens, expected_from: expected.from } : {}),
      bad_rows: count.badRows,
      ...(base
        ? {
            teacher_forced: { requests: base.requests, prompt_tokens: base.promptTokens },
            multiple_of_teacher_forced: { requests: multiple!.requests ?? null, prompt_tokens: multiple!.promptTokens ?? null },
          }
        : {}),
      // Not rounded to cents, as score's costs: a small run's prompts would read as free.
      ...(cost !== undefined ? { cost_usd: cost } : {}),
      ...(promptCost !== undefined ? { prompt_cost_usd: promptCost } : {}),
      ...(outputCost !== undefined ? { completion_budget_cost_usd: outputCost } : {}),
      ...(expectedCost !== undefined ? { expected_cost_usd: expectedCost } : {}),
    };
    terminal().stdout.write((await import('../../render/written.js')).jsonText(doc));
  } else {
    const n = (x: number) => x.toLocaleString('en-US');
    const lines = [
      `${stage.name} dry run: ${n(count.requests)} requests for ${n(count.rows)} rows (nothing sent, nothing written)`,
      `prompt tokens (estimate, o200k): ${n(count.promptTokens)}`,
      `completion budget (max tokens x requests): ${n(count.completionBudget)}`,
    ];
    if (base) {
      lines.push(
        `the teacher-forced run of these rows: ${n(base.requests)} requests, ${n(base.promptTokens)} prompt tokens; this run: ${multiple!.requests ?? 'n/a'} x its requests, ${multiple!.promptTokens ?? 'n/a'} x its prompt tokens (a prefix cache serves most of each step's prompt from the step before)`,
      );
    }
    if (expected) {
      const from =
        expected.from === 'observed'
          ? `the mean per row of the ${n(expected.rows)} rows already in ${visible(output)}, by domain`
          : "each row's ground truth, o200k; a reasoning model adds its thinking";
      lines.push(`completion tokens expected: ${n(expected.completionTokens)} (${from})`);
    }
    if (count.badRows)
      lines.push(
        `${count.badRows === 1 ? '1 row fails its checks' : `${count.badRows} rows fail their checks`} (--on-bad-row ${o.onBadRow}: the run ${o.onBadRow === 'stop' ? 'stops at the first' : `skips ${count.badRows === 1 ? 'it' : 'them'}`})`,
      );
    if (cost !== undefined) {
      lines.push(
        `cost: $${usd(cost).toFixed(2)} at most (prompt $${usd(promptCost ?? 0).toFixed(2)}, completion budget $${usd(outputCost ?? 0).toFixed(2)})`,
      );
      if (expectedCost !== undefined)
        lines.push(
          `cost expected: $${usd(expectedCost).toFixed(2)} (prompt $${usd(promptCost ?? 0).toFixed(2)}, completion $${usd(expectedOutputCost ?? 0).toFixed(2)})`,
        );
    }
    terminal().stderr.write(`${lines.join('\n')}\n`);
  }
  if (count.firstBad && o.onBadRow === 'stop') {
    throw new UserError(`${count.firstBad.message} (a run would stop at this row; fix it, or skip such rows with --on-bad-row skip)`);
  }
}

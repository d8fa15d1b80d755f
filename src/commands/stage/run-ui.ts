import { terminal } from '../shared/terminal.js';
import type { SingleBar } from 'cli-progress';
import {
  failedRows,
  type DisplayEvent,
  type Ending,
  type StageDisplay,
  type StageEvent,
  type StageResult,
  type StageSignals,
} from '../../core/stage/index.js';
import { interruptibly } from '../shared/interrupt.js';
import { DOWNLOAD_LINES } from '../words/data/lines.js';
import { EXIT } from '../words/index.js';
import { batchLines, printAfter, printDryRun, printEndLines, printNotice, printTimings } from './stage-cli.js';
import type { StageViewOptions } from './stage-options.js';
import { domainLabel, compareDomains } from '../../core/domains.js';
import { brief, redact, visible } from '../../core/shown.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';
import { onInterrupt } from '../shared/interrupt.js';
import { RUN_WORDS } from '../words/stage/run.js';
import { printWarnings } from '../shared/notes.js';
import { noticed } from '../words/index.js';

/*
 * What infer and judge show while they run: the display their core entries
 * tell (a progress bar on a terminal, plain periodic lines otherwise, for CI
 * logs; notices; the summary and the last words), and Ctrl-C handling.
 * Everything goes to stderr so stdout stays clean for pipes (a JSON dry run's count aside).
 */

/** What a stage shows: its display, and how Ctrl-C reaches it. */
export interface StageView {
  display: StageDisplay;
  signals: StageSignals;
  /** The finished run as markdown for --summary (stepSummary), with the exit code it ended with; undefined before it finished. */
  stepSummary(exitCode: number): Promise<string | undefined>;
}

/**
 * The display of stage `stage` (infer, judge): every event of its run worded on stderr, and the
 * signals it runs under. The progress bar's library is loaded here, only for a terminal.
 */
export async function createStageView(stage: string, o: StageViewOptions): Promise<StageView> {
  let limitedBy: () => string | undefined = () => undefined;
  let output = '';
  const progress = await createProgress(stage, o.progress, () => limitedBy());
  const jsonText = o.dryRun && o.format === 'json' ? (await import('../../render/written.js')).jsonText : undefined;
  const reasons = new FailureReasons();
  let finished: Extract<DisplayEvent, { type: 'finished' }> | undefined;
  const batch = batchLines();
  const display: StageDisplay = {
    event(e) {
      switch (e.type) {
        case 'running':
          limitedBy = e.limitedBy;
          output = e.output;
          return;
        case 'batch':
          return batch(e);
        case 'dry-run':
          return printDryRun(e, o, jsonText);
        case 'cost-cap':
          return printNotice(e, o);
        case 'finished':
          finished = e;
          progress.stop();
          printSummary(e.stage, e.result, COLUMNS[e.stage] ?? [], reasons);
          printTimings(e.timings);
          printEndLines(e);
          return finish(e.stage, e.ending, e.output, e.secrets, e.resumable);
        case 'closed':
          return progress.stop();
        case 'unpredicted':
        case 'next-step':
          return printAfter(e);
        case 'warning':
          return printWarnings([noticed(e.notice)]);
        case 'fetching':
        case 'data-edited':
        case 'set-aside':
        case 'upstream-unfinished':
        case 'unpaired':
        case 'would-skip':
          return printNotice(e, o);
        default:
          reportEvent(stage, e, output);
          progress.event(e);
          reasons.event(e);
      }
    },
  };
  const signals: StageSignals = {
    step: (step, name, work) => interruptibly(work, step === 'check' ? RUN_WORDS.interruptedDuringCheck(name) : DOWNLOAD_LINES.interrupted),
    run: (name, grace) => installInterrupts(name, grace, () => progress.interrupted()),
  };
  const stepSummary = async (exitCode: number) =>
    finished &&
    (await import('./step-summary.js')).stepSummary(finished, COLUMNS[finished.stage] ?? [], reasons.top(TOP_REASONS), exitCode);
  return { display, signals, stepSummary };
}

/** A line on stderr: of the command running now, or of `t` for a timer or signal handler that outlives its context. */
const err = (line: string, t = terminal()) => t.stderr.write(`${line}\n`);

export interface Progress {
  event(e: StageEvent): void;
  /** A signal arrived: the bar is closed (its line ended) so the message that follows gets a line of its own. */
  interrupted(): void;
  stop(): void;
}

/** A duration with its units, for an ETA: `45s`, `3m12s`, `2h05m`; `?` before there is a rate. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Where a run stands: the whole run's rows, of which `resumed` were done before this session started. */
export interface ProgressState {
  total: number;
  resumed: number;
  /** Rows finished in this session. */
  done: number;
  failed: number;
  elapsedSeconds: number;
  /** What holds requests back when an endpoint states rate limits (the pool's pacing): concurrency, tokens/min, requests/min. */
  limitedBy?: string;
}

/**
 * The figures shown: the count covers the whole run (a resume shows
 * `22/224`, not `0/202`), the rate and ETA this session's pace.
 */
export function progressFigures(p: ProgressState): { value: number; total: number; percent: string; rate: string; eta: string } {
  const value = p.resumed + p.done;
  const rate = p.elapsedSeconds > 0 ? p.done / p.elapsedSeconds : 0;
  return {
    value,
    total: p.total,
    percent: p.total ? ((100 * value) / p.total).toFixed(1) : '100.0',
    rate: rate.toFixed(2),
    eta: formatDuration(rate > 0 ? (p.total - value) / rate : NaN),
  };
}

/** The plain progress line of a log (no terminal). */
export function progressLine(stage: string, p: ProgressState): string {
  return RUN_WORDS.progress(stage, progressFigures(p), p.failed, p.limitedBy);
}

/**
 * The bar's format. Its own tokens are cli-progress's (`{value}`, `{total}`);
 * ours have names of their own, since `{eta}` is cli-progress's unitless seconds.
 */
export const BAR_FORMAT = (stage: string) => RUN_WORDS.barFormat(stage);

/** `limitedBy`: what holds requests back now, when the endpoints state rate limits. The bar's library is loaded only for a terminal. */
export async function createProgress(
  stage: string,
  enabled: boolean,
  limitedBy: () => string | undefined = () => undefined,
): Promise<Progress> {
  const state: ProgressState = { total: 0, resumed: 0, done: 0, failed: 0, elapsedSeconds: 0 };
  let started = 0;
  let bar: SingleBar | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Taken now: the timer's lines and the bar belong to the command that made them.
  const t = terminal();
  const tty = t.stderr.isTTY === true;
  const cliProgress = enabled && tty ? (await import('cli-progress')).default : undefined;
  const now = () => {
    state.elapsedSeconds = (performance.now() - started) / 1000;
    state.limitedBy = limitedBy();
    return state;
  };
  const payload = () => {
    const f = progressFigures(now());
    return { speed: f.rate, left: f.eta, failed: state.failed, limit: state.limitedBy ? RUN_WORDS.barLimit(state.limitedBy) : '' };
  };
  const clearBar = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    event(e) {
      if (e.type === 'planned') {
        state.total = e.total;
        state.resumed = e.alreadyDone;
        started = performance.now();
        if (!enabled || e.todo === 0) return;
        if (cliProgress) {
          bar = new cliProgress.SingleBar(
            { format: BAR_FORMAT(stage), hideCursor: true, stream: t.stderr, fps: 5 },
            cliProgress.Presets.shades_classic,
          );
          bar.start(state.total, state.resumed, payload());
        } else {
          const every = Number(t.env.AWB_PROGRESS_INTERVAL ?? 15) * 1000;
          timer = setInterval(() => err(progressLine(stage, now()), t), every);
          timer.unref();
        }
      } else if (e.type === 'kept-failure') {
        // Failed is counted over the whole output, as the summary and score count it.
        state.failed++;
      } else if (e.type === 'row') {
        state.done++;
        if (!e.ok) state.failed++;
        bar?.update(state.resumed + state.done, payload());
      } else if (e.type === 'stopping') {
        clearBar();
        err(t.errColor.yellow(RUN_WORDS.stopping(stage)), t);
      }
    },
    interrupted: clearBar,
    stop() {
      bar?.update(state.resumed + state.done, payload());
      clearBar();
      if (timer) {
        clearInterval(timer);
        if (enabled && state.total > state.resumed) err(progressLine(stage, now()), t);
      }
      timer = undefined;
    },
  };
}

export interface Interrupts {
  /** First Ctrl-C or SIGTERM: stop sending new rows; the run lets the requests in flight finish within --grace. */
  stop: AbortSignal;
  /** Second Ctrl-C: cancel requests in flight. */
  abort: AbortSignal;
  dispose(): void;
}

/** `beforeMessage` runs before a signal's message is written: the progress bar ends its line there. */
export function installInterrupts(stage: string, graceSeconds: number, beforeMessage: () => void = () => {}): Interrupts {
  const stop = new AbortController();
  const abort = new AbortController();
  // Taken now: a signal's handler runs outside the command.
  const t = terminal();
  const onSignal = (signal: NodeJS.Signals) => {
    beforeMessage();
    if (stop.signal.aborted) {
      err(t.errColor.red(RUN_WORDS.signalAgain(stage, signal)), t);
      abort.abort();
      return;
    }
    err(t.errColor.yellow(RUN_WORDS.signalFirst(stage, signal, graceSeconds)), t);
    stop.abort();
  };
  return { stop: stop.signal, abort: abort.signal, dispose: onInterrupt(onSignal) };
}

/** The variable awb reads a key from when its option is left out. */
const KEY_VARIABLES: Record<string, string> = { '--model-api-key': 'AWB_MODEL_API_KEY', '--judge-api-key': 'AWB_JUDGE_API_KEY' };

/**
 * The command line to run again, without the secrets given on it. A key
 * option's value becomes a reference to the variable awb reads the key from,
 * double-quoted so a shell expands it and the command works as printed once
 * that variable is set, which a line after it says.
 * Only whole values are swapped (dummy keys like "x" occur inside other
 * words); a longer secret (a URL's query value too) is masked wherever else it appears.
 */
export function resumeCommand(secrets: readonly (string | undefined)[], set?: { option: string; value: string }): string {
  const hidden = new Set(secrets.filter((s): s is string => !!s));
  const argv = terminal().argv.slice(2);
  const variables = new Set<string>();
  const words = argv.map((a, i) => {
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const [option, value] = eq === -1 ? [argv[i - 1] ?? '', a] : [a.slice(0, eq), a.slice(eq + 1)];
    // An option's value given anew (a higher --max-cost).
    if (set && option === set.option) return eq === -1 ? shellWord(set.value) : shellWord(`${option}=${set.value}`);
    if (hidden.has(value)) {
      const name = KEY_VARIABLES[option] ?? 'KEY';
      variables.add(name);
      return eq === -1 ? `"$${name}"` : `${shellWord(`${option}=`)}"$${name}"`;
    }
    return shellWord(redact(a, [...hidden]));
  });
  // On a line of its own, so the command above stays one to copy whole.
  const note = [...variables].map((name) => `\n  ${RUN_WORDS.keyNotRepeated(name)}`).join('');
  return [thisInvocation(), ...words].join(' ') + note;
}

/** The plan (and, with --on-bad-row skip, each row skipped) as lines on stderr. */
export function reportEvent(stage: string, e: StageEvent, output: string): void {
  if (e.type === 'bad') err(terminal().errColor.yellow(RUN_WORDS.skippedBadRow(stage, e.bad.message)));
  if (e.type === 'outside') err(terminal().errColor.yellow(RUN_WORDS.outside(stage, e)));
  if (e.type === 'waiting-for-reader') err(RUN_WORDS.waitingForReader(stage, e.output));
  if (e.type === 'mixed') {
    err(terminal().errColor.yellow(RUN_WORDS.forcedOverMixed(stage, e.rows, output, e.differences)));
  }
  if (e.type !== 'planned') return;
  const redo = e.dropped.failed + e.dropped.cut + e.dropped.invalid;
  if (e.alreadyDone || redo) err(RUN_WORDS.resuming(stage, output, e.alreadyDone, e.dropped));
  err(RUN_WORDS.toDo(stage, e.todo, e.total));
}

export interface SummaryColumn {
  title: string;
  value: (t: StageResult['perDomain'] extends Map<string, infer V> ? V : never) => number;
  /** Rows counted here get a warning, worded as what happened to them ("3 rows {warn}"). */
  warn?: string;
}

/** Counts each failed row's error, as the runner's events report them. */
export class FailureReasons {
  private readonly counts = new Map<string, number>();

  event(e: StageEvent): void {
    if (e.type !== 'kept-failure' && (e.type !== 'row' || e.ok)) return;
    // A row failed without an error is a final empty generation (infer): the judge names every failure.
    const reason = e.error ?? RUN_WORDS.emptyReply;
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
  }

  /** The most frequent reasons, most frequent first (ties in order of first appearance). */
  top(n: number): Array<{ reason: string; count: number }> {
    return [...this.counts]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count)
      .slice(0, n);
  }

  get kinds(): number {
    return this.counts.size;
  }
}

/** How many failure reasons the summary names. */
const TOP_REASONS = 5;

/** The summary's table: a row per domain (its label), then `all`; the first column is the domain's. */
export function summaryTable(result: StageResult, columns: SummaryColumn[]): { header: string[]; rows: string[][] } {
  const domains = [...result.perDomain.keys()].sort(compareDomains);
  // "failed" as score counts it: every row written whose result is a failure; "to retry" those the same command asks again.
  const c = RUN_WORDS.summaryColumns;
  const header = [c.domain, c.total, c.done, c.failed, c.toRetry, ...columns.map((col) => col.title)];
  const rows = domains.map((d) => {
    const t = result.perDomain.get(d)!;
    const failed = failedRows(t);
    const ok = t.done + t.failed - failed;
    return [domainLabel(d), String(t.total), String(ok), String(failed), String(t.failed), ...columns.map((c) => String(c.value(t)))];
  });
  const sum = (i: number) => rows.reduce((a, r) => a + Number(r[i]), 0);
  rows.push([RUN_WORDS.summaryAll, ...header.slice(1).map((_h, i) => String(sum(i + 1)))]);
  return { header, rows };
}

/**
 * A small per-domain table of counts on stderr, so nobody scores a run that
 * was silently half empty, then the top reasons rows failed in this session.
 */
export function printSummary(stage: string, result: StageResult, columns: SummaryColumn[], reasons?: FailureReasons): void {
  const domains = [...result.perDomain.keys()].sort(compareDomains);
  const { header, rows } = summaryTable(result, columns);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visible(r[i]!).length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === 0 ? visible(c).padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  err('');
  err(terminal().errColor.bold(RUN_WORDS.summaryTitle(stage)));
  err(fmt(header));
  for (const r of rows) err(fmt(r));
  const { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: cached } = result.manifest.usage;
  if (prompt > 0) {
    // vLLM reports cached tokens only with --enable-prompt-tokens-details, SGLang only with --enable-cache-report.
    err(RUN_WORDS.tokens(prompt, cached, completion));
  }
  if (result.heldForRoom > 0) {
    err(RUN_WORDS.heldForRoom(result.heldForRoom));
  }
  for (const c of columns) {
    const n = domains.reduce((a, d) => a + c.value(result.perDomain.get(d)!), 0);
    if (c.warn && n > 0) err(terminal().errColor.yellow(RUN_WORDS.checkRows(n, c.warn)));
  }
  const top = reasons?.top(TOP_REASONS) ?? [];
  if (!top.length) return;
  const more = reasons!.kinds - top.length;
  err(RUN_WORDS.topReasons(more));
  for (const { reason, count } of top) err(RUN_WORDS.topReason(count, brief(reason, [], 300)));
}

/** Each stage's columns of the summary table. */
const COLUMNS: Record<string, SummaryColumn[]> = {
  infer: [
    { title: RUN_WORDS.summaryColumns.empty, value: (t) => t.empty, warn: RUN_WORDS.summaryWarn.empty },
    { title: RUN_WORDS.summaryColumns.truncated, value: (t) => t.truncated, warn: RUN_WORDS.summaryWarn.truncated },
    { title: RUN_WORDS.summaryColumns.noOutput, value: (t) => t.noOutput },
  ],
  judge: [
    { title: RUN_WORDS.summaryColumns.noPrediction, value: (t) => t.empty },
    { title: RUN_WORDS.summaryColumns.noOutput, value: (t) => t.noOutput },
  ],
};

/**
 * Final words and exit code: 0 when every row has a result that is not a failure; 1 when some are
 * left to redo, or ended failed (a CI job that runs only this stage must not pass on them); 130 when interrupted.
 */
export function finish(stage: string, ending: Ending, output: string, secrets: string[], resumable = true): void {
  const term = terminal();
  const { stopped, remaining, failed, capped } = ending;
  const again = resumeCommand(secrets);
  if (capped && !stopped && resumable) {
    const higher = resumeCommand(secrets, { option: '--max-cost', value: capped.next.toFixed(2) });
    term.stderr.write(term.errColor.yellow(`${RUN_WORDS.costCapped(stage, capped, remaining, output, higher)}\n`));
    term.exitCode = EXIT.costCap;
    return;
  }
  if ((stopped || remaining > 0 || failed > 0) && !resumable) {
    // A stream (/dev/null, stdout, a FIFO) keeps nothing to resume from: a printed command would redo every row, or nothing.
    term.stderr.write(term.errColor.yellow(`${RUN_WORDS.streamNotResumable(stage, stopped, remaining + failed, output)}\n`));
    term.exitCode = stopped ? EXIT.interrupted : EXIT.rowsLeft;
  } else if (stopped) {
    term.stderr.write(term.errColor.yellow(`${RUN_WORDS.interrupted(stage, remaining, output, again)}\n`));
    term.exitCode = EXIT.interrupted;
  } else if (remaining > 0) {
    term.stderr.write(term.errColor.yellow(`${RUN_WORDS.leftToRetry(stage, remaining, output, again)}\n`));
    term.exitCode = EXIT.rowsLeft;
  } else if (failed > 0) {
    const retry = term.argv.includes('--retry-failed') ? again : `${again} --retry-failed`;
    term.stderr.write(term.errColor.yellow(`${RUN_WORDS.endedFailed(stage, failed, output, retry)}\n`));
    term.exitCode = EXIT.rowsLeft;
  } else {
    term.stderr.write(term.errColor.green(`${RUN_WORDS.done(stage, output)}\n`));
  }
}

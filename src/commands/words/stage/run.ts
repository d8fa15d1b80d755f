import { counted, visible } from '../../../core/shown.js';

/*
 * What infer and judge say about their own run besides faults and notices: signals, the plan, the summary's
 * warnings and the last words. The lines are built here; run-ui.ts decides when and in which colour.
 */
export const RUN_WORDS = {
  /** The plain progress line of a log (no terminal): `figures` as the bar shows them. */
  progress: (
    stage: string,
    f: { value: number; total: number; percent: string; rate: string; eta: string },
    failed: number,
    limitedBy?: string,
  ) =>
    `${stage}: ${f.value}/${f.total} (${f.percent}%), ${f.rate} rows/s, ETA ${f.eta}, ${failed} failed${limitedBy ? `, limited by ${limitedBy}` : ''}`,
  /** The progress bar's format: `{bar}`, `{value}`, `{total}` are cli-progress's tokens, the others run-ui.ts's. */
  barFormat: (stage: string) => `${stage} {bar} {value}/{total} | {speed} rows/s | ETA {left} | {failed} failed{limit}`,
  barLimit: (limitedBy: string) => ` | limited by ${limitedBy}`,
  summaryTitle: (stage: string) => `${stage} summary`,
  /** The summary table's columns (the terminal's and --summary's), and its last row's name. */
  summaryColumns: {
    domain: 'domain',
    total: 'total',
    done: 'done',
    failed: 'failed',
    toRetry: 'to retry',
    empty: 'empty',
    truncated: 'cut off by max tokens',
    noOutput: 'no output',
    noPrediction: 'no prediction (infer failed)',
  },
  summaryAll: 'all',
  /** What happened to the rows a column counts, as checkRows words it ("3 rows came back empty"). */
  summaryWarn: { empty: 'came back empty', truncated: 'stopped at --max-tokens' },
  /** The failure reason of a row that failed without an error: a final empty generation (infer). */
  emptyReply: 'empty reply (no content)',
  /** --summary's verdict: the `all` row's counts, the exit code and what it means. */
  stepVerdict: (stage: string, all: { rows: string; done: string; failed: string; retry: string }, exitCode: number, meaning?: string) =>
    `${stage}: ${all.done} of ${all.rows} rows done, ${all.failed} failed (${all.retry} to retry); exit ${exitCode}${meaning ? `: ${meaning}` : ''}`,
  /** What the exit code means for this run, when it is not the code's own meaning. */
  stepMeaning: {
    capped: 'stopped at the --max-cost cap',
    interrupted: 'interrupted',
    left: (rows: number) => `${counted(rows, 'row')} left: the same command run again does them`,
    failed: (rows: number) => `${counted(rows, 'row')} ended failed: --retry-failed asks them again`,
  },
  /** --summary's heading: CI summaries find the run by it. */
  stepHeading: (stage: string) => `## awb ${stage}`,
  stepOutput: (output: string) => `output: ${output}`,
  stepFailure: (count: number, reason: string) => `failed ${count} × ${reason}`,
  stepWarning: (warning: string) => `warning: ${warning}`,
  /** `cached` undefined: the server did not report cached tokens. */
  tokens: (prompt: number, cached: number | undefined, completion: number) =>
    `tokens: ${prompt} prompt (${cached === undefined ? 'cached tokens not reported' : `${cached} cached, ${((cached / prompt) * 100).toFixed(1)}% hit`}), ${completion} completion`,
  /** A resume into an output holding rows the run's data does not: kept in the file, not counted. */
  outside: (stage: string, e: { output: string; rows: number; first: string; forced: boolean }) =>
    `${stage}: ${visible(e.output)} holds ${counted(e.rows, 'row')} that the data of this run does not (the first at ${visible(e.first)}): ${e.forced ? '--force keeps them' : 'they stay'} in the file, not counted in this run`,
  interruptedDuringCheck: (stage: string) => `${stage} interrupted during the endpoint check: nothing was sent or written`,
  stopping: (stage: string) => `${stage}: stopping: no new requests; waiting for the ones in flight`,
  signalAgain: (stage: string, signal: string) => `${stage}: ${signal} again: cancelling the requests in flight`,
  signalFirst: (stage: string, signal: string, graceSeconds: number) =>
    `${stage}: ${signal}: finishing the requests in flight (up to ${graceSeconds}s; press Ctrl-C again to stop at once)`,
  /** On a line of its own below a printed command, so the command stays one to copy whole. */
  keyNotRepeated: (variable: string) => `(the key is not repeated here: set ${variable} to it first)`,
  skippedBadRow: (stage: string, problem: string) => `${stage}: skipped bad row: ${visible(problem)}`,
  forcedOverMixed: (stage: string, rows: number, output: string, differences: readonly string[]) =>
    `${stage}: --force: the ${rows} rows already in ${visible(output)} are not known to share this run's settings (${visible(differences.join('; '))}); its manifest will record the file as mixed once this run adds a row`,
  resuming: (stage: string, output: string, done: number, dropped: { failed: number; cut: number; invalid: number }) => {
    const parts = [`${done} rows already done in ${visible(output)}`];
    if (dropped.failed) parts.push(`${dropped.failed} failed rows to retry`);
    if (dropped.cut) parts.push('a line cut short by a crash dropped');
    if (dropped.invalid) parts.push(`${dropped.invalid} unreadable or repeated lines dropped`);
    return `${stage}: resuming: ${parts.join(', ')}`;
  },
  toDo: (stage: string, todo: number, total: number) => `${stage}: ${todo} of ${total} rows to do`,
  waitingForReader: (stage: string, output: string) =>
    `${stage}: waiting for something to read ${visible(output)} (a FIFO): no row is sent until it is read`,
  heldForRoom: (n: number) =>
    `${n} ${n === 1 ? 'row' : 'rows'} waited for room under --max-inflight-mb; a larger budget keeps more in flight, at the cost of memory`,
  /** `what`: what happened to the rows, as a summary column words it ("came back empty"). */
  checkRows: (n: number, what: string) =>
    `warning: ${n === 1 ? `1 row ${what}; check it` : `${n} rows ${what}; check them`} before scoring`,
  topReasons: (more: number) => `top failure reasons${more > 0 ? ` (${more} other kinds not shown)` : ''}:`,
  topReason: (count: number, reason: string) => `  ${String(count).padStart(5)} × ${reason}`,
  /** The last words of a run: `again` is the command that runs it again. */
  streamNotResumable: (stage: string, stopped: boolean, rows: number, output: string) =>
    `${stage}: ${stopped ? 'interrupted' : 'ended'} with ${counted(rows, 'row')} without a result; ${visible(output)} is a stream, which no run can resume: write to a file to resume or retry rows`,
  costCapped: (stage: string, capped: { spent: number; cap: number; next: number }, remaining: number, output: string, higher: string) => {
    const usd = (n: number) => `$${n.toFixed(2)}`;
    return `${stage}: stopped at the cost cap: spent ${usd(capped.spent)} of --max-cost ${usd(capped.cap)}, ${counted(remaining, 'row')} left; everything answered is saved in ${visible(output)}.\nGo on with a higher cap (${usd(capped.next)}: what the run would cost at its mean cost per row so far), or any other:\n  ${higher}`;
  },
  interrupted: (stage: string, remaining: number, output: string, again: string) =>
    `${stage}: interrupted with ${remaining} rows left; everything finished is saved in ${visible(output)}.\nResume with:\n  ${again}`,
  leftToRetry: (stage: string, remaining: number, output: string, again: string) =>
    `${stage}: ${counted(remaining, 'row')} failed (their errors are in ${visible(output)}); run the same command again to retry only those:\n  ${again}`,
  endedFailed: (stage: string, failed: number, output: string, retry: string) =>
    `${stage}: ${counted(failed, 'row')} ended failed (kept in ${visible(output)}, left out of scores); once the cause is fixed, ask them again with:\n  ${retry}`,
  done: (stage: string, output: string) => `${stage}: done: ${visible(output)}`,
} as const;

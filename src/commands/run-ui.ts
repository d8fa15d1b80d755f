import chalk from 'chalk';
import cliProgress from 'cli-progress';
import type { StageEvent, StageResult } from '../core/runner/index.js';
import { domainLabel, compareDomains } from '../core/domains.js';
import { redact, visible } from '../core/shown.js';

/*
 * What infer and judge show while they run: a progress bar on a terminal,
 * plain periodic lines otherwise (CI logs), Ctrl-C handling, and the summary.
 * Everything goes to stderr so stdout stays clean for pipes.
 */

const err = (line: string) => process.stderr.write(`${line}\n`);

export interface Progress {
  event(e: StageEvent): void;
  stop(): void;
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function createProgress(stage: string, enabled: boolean): Progress {
  let total = 0;
  let done = 0;
  let failed = 0;
  let started = 0;
  let bar: cliProgress.SingleBar | undefined;
  let timer: NodeJS.Timeout | undefined;
  const tty = process.stderr.isTTY === true;
  const rate = () => {
    const secs = (performance.now() - started) / 1000;
    return secs > 0 ? done / secs : 0;
  };
  const payload = () => {
    const r = rate();
    return { rate: r.toFixed(2), eta: formatDuration(r > 0 ? (total - done) / r : NaN), failed };
  };
  const line = () => {
    const p = payload();
    const pct = total ? ((100 * done) / total).toFixed(1) : '100.0';
    return `${stage}: ${done}/${total} (${pct}%), ${p.rate} rows/s, ETA ${p.eta}, ${failed} failed`;
  };
  return {
    event(e) {
      if (e.type === 'planned') {
        total = e.todo;
        started = performance.now();
        if (!enabled || total === 0) return;
        if (tty) {
          bar = new cliProgress.SingleBar(
            {
              format: `${stage} {bar} {value}/{total} | {rate} rows/s | ETA {eta} | {failed} failed`,
              hideCursor: true,
              stream: process.stderr,
              fps: 5,
            },
            cliProgress.Presets.shades_classic,
          );
          bar.start(total, 0, payload());
        } else {
          const every = Number(process.env.AWB_PROGRESS_INTERVAL ?? 15) * 1000;
          timer = setInterval(() => err(line()), every);
          timer.unref();
        }
      } else if (e.type === 'row') {
        done++;
        if (!e.ok) failed++;
        bar?.update(done, payload());
      } else if (e.type === 'stopping') {
        bar?.stop();
        bar = undefined;
        err(chalk.yellow(`${stage}: stopping: no new requests; waiting for the ones in flight`));
      }
    },
    stop() {
      bar?.update(done, payload());
      bar?.stop();
      bar = undefined;
      if (timer) {
        clearInterval(timer);
        if (enabled && total > 0) err(line());
      }
      timer = undefined;
    },
  };
}

export interface Interrupts {
  /** First Ctrl-C or SIGTERM: stop sending new rows. */
  stop: AbortSignal;
  /** Grace period over or second Ctrl-C: cancel requests in flight. */
  abort: AbortSignal;
  dispose(): void;
}

export function installInterrupts(stage: string, graceSeconds: number): Interrupts {
  const stop = new AbortController();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      err(chalk.red(`${stage}: ${signal} again: cancelling the requests in flight`));
      abort.abort();
      return;
    }
    err(chalk.yellow(`${stage}: ${signal}: finishing the requests in flight (up to ${graceSeconds}s; press Ctrl-C again to stop at once)`));
    stop.abort();
    timer = setTimeout(() => abort.abort(), graceSeconds * 1000);
    timer.unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    stop: stop.signal,
    abort: abort.signal,
    dispose() {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The variable awb reads a key from when its option is left out. */
const KEY_VARIABLES: Record<string, string> = { '--model-api-key': 'AWB_MODEL_API_KEY', '--judge-api-key': 'AWB_JUDGE_API_KEY' };

/**
 * The command line to run again, without the secrets given on it. A key
 * option's value becomes a reference to the variable awb reads the key from,
 * double-quoted so a shell expands it and the command works as printed.
 * Only whole values are swapped (dummy keys like "x" occur inside other
 * words); a longer secret (a URL's query value too) is masked wherever else it appears.
 */
export function resumeCommand(secrets: readonly (string | undefined)[]): string {
  const hidden = new Set(secrets.filter((s): s is string => !!s));
  const argv = process.argv.slice(2);
  const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  const words = argv.map((a, i) => {
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const [option, value] = eq === -1 ? [argv[i - 1] ?? '', a] : [a.slice(0, eq), a.slice(eq + 1)];
    if (hidden.has(value)) {
      const variable = `"$${KEY_VARIABLES[option] ?? 'KEY'}"`;
      return eq === -1 ? variable : `${quote(`${option}=`)}${variable}`;
    }
    return quote(redact(a, [...hidden]));
  });
  return ['awb', ...words].join(' ');
}

/** The plan (and, with --on-bad-row skip, each row skipped) as lines on stderr. */
export function reportEvent(stage: string, e: StageEvent, output: string): void {
  if (e.type === 'bad') err(chalk.yellow(`${stage}: skipped bad row: ${visible(e.bad.message)}`));
  if (e.type !== 'planned') return;
  const redo = e.dropped.failed + e.dropped.cut + e.dropped.invalid;
  if (e.alreadyDone || redo) {
    const parts = [`${e.alreadyDone} rows already done in ${output}`];
    if (e.dropped.failed) parts.push(`${e.dropped.failed} failed rows to retry`);
    if (e.dropped.cut) parts.push('a line cut short by a crash dropped');
    if (e.dropped.invalid) parts.push(`${e.dropped.invalid} unreadable or repeated lines dropped`);
    err(`${stage}: resuming: ${parts.join(', ')}`);
  }
  err(`${stage}: ${e.todo} of ${e.total} rows to do`);
}

export interface SummaryColumn {
  title: string;
  value: (t: StageResult['perDomain'] extends Map<string, infer V> ? V : never) => number;
  warn?: boolean;
}

/** A small per-domain table of counts on stderr, so nobody scores a run that was silently half empty. */
export function printSummary(stage: string, result: StageResult, columns: SummaryColumn[]): void {
  const domains = [...result.perDomain.keys()].sort(compareDomains);
  const header = ['domain', 'done', 'total', 'failed', ...columns.map((c) => c.title)];
  const rows = domains.map((d) => {
    const t = result.perDomain.get(d)!;
    return [visible(domainLabel(d)), String(t.done), String(t.total), String(t.failed), ...columns.map((c) => String(c.value(t)))];
  });
  const sum = (i: number) => rows.reduce((a, r) => a + Number(r[i]), 0);
  rows.push(['all', ...header.slice(1).map((_h, i) => String(sum(i + 1)))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  err('');
  err(chalk.bold(`${stage} summary`));
  err(fmt(header));
  for (const r of rows) err(fmt(r));
  const { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: cached = 0 } = result.manifest.usage;
  if (prompt > 0) {
    // Endpoints that do not report cached tokens (vLLM without --enable-prompt-tokens-details) show 0 here.
    err(`tokens: ${prompt} prompt (${cached} cached, ${((cached / prompt) * 100).toFixed(1)}% hit), ${completion} completion`);
  }
  for (const c of columns) {
    const n = domains.reduce((a, d) => a + c.value(result.perDomain.get(d)!), 0);
    if (c.warn && n > 0) err(chalk.yellow(`warning: ${n} rows ${c.title}; check them before scoring`));
  }
}

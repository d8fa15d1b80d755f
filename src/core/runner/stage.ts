import { setMaxListeners } from 'node:events';
import { open } from 'node:fs/promises';
import pLimit from 'p-limit';
import type { z } from 'zod';
import { UserError } from '../errors.js';
import { JsonlAppender, readLineBytes } from '../rows/index.js';
import { domainOfBytes, isBlank, lineId, planLines, type BadRow, type BadRowMode, type SelectOptions } from '../rows/index.js';
import { checkResumable, ensureOutputDir, scanExistingOutput, writeManifest } from './output-file.js';
import { appendFieldsParts, fieldsTail, objectEnd } from '../rows/index.js';
import { readRow, type RowText } from '../rows/index.js';
import type { DatasetRow } from '../schemas/index.js';
import { manifestPathFor, type Manifest, type ManifestSettings } from '../schemas/index.js';
import { refuseOverInputs } from '../files.js';
import type { EndpointStats } from '../endpoints/index.js';
import { VERSION } from '../../version.js';
import { domainOfTask } from '../domains.js';

export interface DomainTally {
  total: number;
  done: number;
  failed: number;
  /** infer: rows whose reply had no content. */
  empty: number;
  /** infer: rows cut off by the token limit. */
  truncated: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

export type StageEvent =
  | { type: 'planned'; total: number; alreadyDone: number; todo: number; dropped: { failed: number; cut: number; invalid: number } }
  | { type: 'bad'; bad: BadRow }
  | { type: 'row'; domain: string; ok: boolean; error?: string }
  | { type: 'stopping' };

/** The work for one row, built while the row is in hand; it holds only what the request needs, never the row. */
export type Job = (signal: AbortSignal) => Promise<object | undefined>;

export interface StageSpec<S extends z.ZodType<DatasetRow>> {
  stage: Manifest['stage'];
  inputFiles: string[];
  schema: S;
  /** The fields this stage appends; an input that already has one (re-judging a judged file) is rebuilt without it. */
  outputFields: readonly string[];
  output: string;
  select: SelectOptions;
  onBadRow: BadRowMode;
  /**
   * Computed once the rows are planned: some settings (the rubric set) depend
   * on the domains found. Given the domains before sharding, so that every
   * shard of a run records the same settings.
   */
  settings: (domains: string[]) => Promise<ManifestSettings>;
  dataset: Omit<Manifest['dataset'], 'rows' | 'domains'>;
  upstream?: unknown;
  force: boolean;
  concurrency: number;
  /** Whether an output row is finished; other rows are redone on resume. */
  isDone: (row: Record<string, unknown>) => boolean;
  /** Adds an output row's outcome to its domain's tally. */
  tally: (row: Record<string, unknown>, t: DomainTally) => void;
  /**
   * Builds a row's request from its small fields and its long texts
   * (synchronously: the texts point into a buffer reused for the next line).
   * The job resolves to the fields to append, or undefined when cancelled;
   * it throws only for errors that end the run.
   */
  prepare: (row: z.infer<S>, text: RowText) => Job;
  /** Stop taking new rows (first Ctrl-C). */
  stop: AbortSignal;
  /** Cancel requests in flight (grace period over, second Ctrl-C). */
  abort: AbortSignal;
  onEvent?: (e: StageEvent) => void;
  /** Runs after the plan and before anything is sent: the place for preflight checks. */
  beforeDispatch?: () => Promise<void>;
  endpointStats?: () => Record<string, EndpointStats>;
}

export interface StageResult {
  perDomain: Map<string, DomainTally>;
  /** Rows attempted in this run. */
  attempted: number;
  /** Rows still to do: failed or not reached. */
  remaining: number;
  stopped: boolean;
  badRows: BadRow[];
  manifest: Manifest;
}

function emptyTally(): DomainTally {
  return { total: 0, done: 0, failed: 0, empty: 0, truncated: 0, promptTokens: 0, completionTokens: 0, reasoningTokens: 0 };
}

/** Where a row sent out came from: enough to write its output line later without keeping the row. */
interface RowRef {
  domain: string;
  file: number;
  start: number;
  /** Where the row's content ends in the input (its closing brace and the space before it excluded). */
  bodyEnd: number;
  /** The row is `{}`: the fields added need no comma before them. */
  empty: boolean;
  /** Set only in the rare case the input already has a field being added: the line is then rebuilt from its text. */
  raw?: { text: string; parsed: Record<string, unknown> };
  /** The input's own `error` (a prediction whose inference failed), which decides whether a judgement is final. */
  inputError?: unknown;
}

/**
 * The shared life of infer and judge: plan the rows from a fast byte scan,
 * pick up where an earlier run stopped, then read, check and send rows with
 * bounded concurrency, appending each result as one whole line the moment it
 * is ready, and record what produced the file. A row in flight is held only
 * as the plan of its request (where its texts are in the input) and its place
 * in the input (the output line is copied from the input's bytes), so memory
 * grows with concurrency, not with the data or the size of its rows.
 */
export async function runStage<S extends z.ZodType<DatasetRow>>(spec: StageSpec<S>): Promise<StageResult> {
  await refuseOverInputs([spec.output, manifestPathFor(spec.output)], spec.inputFiles);
  await ensureOutputDir(spec.output);

  const plan = await planLines(spec.inputFiles, spec.select);
  if (plan.total === 0) throw new UserError(`no rows to process in ${spec.inputFiles.join(', ')}`);
  const perDomain = new Map<string, DomainTally>();
  const tallyOf = (domain: string) => {
    let t = perDomain.get(domain);
    if (!t) perDomain.set(domain, (t = emptyTally()));
    return t;
  };
  for (const [d, n] of plan.perDomain) tallyOf(d).total = n;

  const dataset: Manifest['dataset'] = {
    ...spec.dataset,
    domains: [...plan.perDomain.keys()].filter((d) => d !== '?'),
    rows: Object.fromEntries([...plan.perDomain].filter(([d]) => d !== '?')),
  };
  const settings = await spec.settings(plan.selectedDomains);
  const previous = await checkResumable(spec.output, spec.stage, settings, dataset, spec.force);

  const existing = await scanExistingOutput(spec.output, {
    schema: spec.schema,
    isDone: spec.isDone,
    onKept: (row) => {
      const t = tallyOf(domainOfTask(String(row.task)));
      t.done++;
      spec.tally(row, t);
    },
  });
  await spec.beforeDispatch?.();
  const alreadyDone = Math.min(existing.doneKeys.size, plan.total);
  spec.onEvent?.({ type: 'planned', total: plan.total, alreadyDone, todo: plan.total - alreadyDone, dropped: existing.dropped });

  const appender = await JsonlAppender.open(spec.output);
  const inputs = await Promise.all(spec.inputFiles.map(async (path) => ({ path, handle: await open(path, 'r') })));
  const startedAt = new Date().toISOString();
  const manifest: Manifest = {
    format: 'agentworldbench-manifest',
    version: 1,
    stage: spec.stage,
    tool: { name: 'agentworldbench', version: VERSION },
    dataset,
    settings,
    ...(spec.upstream !== undefined ? { upstream: spec.upstream } : {}),
    started_at: previous?.started_at ?? startedAt,
    updated_at: startedAt,
    complete: false,
    counts: { total: plan.total, done: 0, failed: 0, per_domain: {} },
    usage: { requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0 },
  };
  fillCounts(manifest, perDomain, spec.endpointStats?.());
  await writeManifest(spec.output, manifest);

  let attempted = 0;
  let fatal: unknown;
  const badRows: BadRow[] = [];
  const cancel = new AbortController();
  // Every request in flight listens on this signal; hundreds are expected, not a leak.
  setMaxListeners(0, cancel.signal);
  const onAbort = () => cancel.abort();
  spec.abort.addEventListener('abort', onAbort);
  // A bad row under --on-bad-row stop: read no more rows, but send and save every row before it.
  let badStop: UserError | undefined;
  let queued = 0;
  const halted = () => spec.stop.aborted || fatal !== undefined;
  const stopping = () => halted() || badStop !== undefined;
  const fail = (err: unknown) => {
    if (fatal === undefined) {
      fatal = err;
      cancel.abort();
    }
  };

  /** Writes the input line as it was, copied from the input file (cheaper than holding every row in flight), with the fields added. */
  const writeLine = (ref: RowRef, fields: Record<string, unknown>): Promise<void> =>
    ref.raw
      ? appender.append(appendFieldsParts(ref.raw.text, ref.raw.parsed, fields, spec.outputFields))
      : appender.appendCopy(inputs[ref.file]!, ref.start, ref.bodyEnd, fieldsTail(ref.empty, fields));

  const handle = async (ref: RowRef, job: Job) => {
    if (halted()) return;
    attempted++;
    // The openai client hooks an abort listener onto the signal it is given
    // and never unhooks it: a signal per row, unhooked when the row is done,
    // keeps the listeners to the rows in flight.
    const rowAbort = new AbortController();
    const onCancel = () => rowAbort.abort(cancel.signal.reason);
    if (cancel.signal.aborted) onCancel();
    else cancel.signal.addEventListener('abort', onCancel, { once: true });
    let result: object | undefined;
    try {
      result = await job(rowAbort.signal);
    } finally {
      cancel.signal.removeEventListener('abort', onCancel);
    }
    if (!result) return;
    const fields = result as Record<string, unknown>;
    await writeLine(ref, fields);
    const row = ref.inputError === undefined ? fields : { error: ref.inputError, ...fields };
    const t = tallyOf(ref.domain);
    const ok = spec.isDone(row);
    if (ok) t.done++;
    else t.failed++;
    spec.tally(row, t);
    spec.onEvent?.({
      type: 'row',
      domain: ref.domain,
      ok,
      error: typeof fields.error === 'string' ? fields.error : typeof fields.error_message === 'string' ? fields.error_message : undefined,
    });
  };

  const limit = pLimit(spec.concurrency);
  const readAhead = Math.min(spec.concurrency, 8);
  const inFlight = new Set<Promise<void>>();
  const seen = new Map<string, string>();
  const badRow = (bad: BadRow, domain: string | undefined) => {
    if (spec.onBadRow === 'stop') {
      badStop ??= new UserError(
        `${bad.message}${queued ? ' (rows before it are done and saved; fix it and run the same command to go on)' : ''}`,
      );
      return;
    }
    badRows.push(bad);
    const t = tallyOf(domain ?? '?');
    t.total = Math.max(0, t.total - 1);
    spec.onEvent?.({ type: 'bad', bad });
  };

  /** Reads, checks and queues the rows, until the input ends or the run stops. */
  const readAndSend = async (): Promise<void> => {
    for (let f = 0; f < spec.inputFiles.length && !stopping(); f++) {
      const file = spec.inputFiles[f]!;
      for await (const line of readLineBytes(file)) {
        if (stopping()) break;
        if (isBlank(line.bytes) || (plan.lines && !plan.lines.has(lineId(f, line.lineNo)))) continue;
        const read = readRow(line.bytes, spec.schema, {
          file,
          lineNo: line.lineNo,
          terminated: line.terminated,
          added: spec.outputFields,
          source: { file: inputs[f]!, offset: line.start },
        });
        if (!read.ok) {
          badRow(read.bad, domainOfBytes(line.bytes));
          continue;
        }
        const { row, text, key } = read;
        const domain = domainOfTask(row.task);
        const where = `${file}:${line.lineNo}`;
        const first = seen.get(key);
        if (first !== undefined) {
          badRow({ file, lineNo: line.lineNo, message: `${where}: the same row (same task, id, turn and content) as ${first}` }, domain);
          continue;
        }
        seen.set(key, where);
        if (existing.doneKeys.has(key)) continue;
        // Requests are planned a little ahead of free slots, so a slot is refilled the moment it frees
        // instead of after reading the next multi-MB row; beyond that, wait.
        while (limit.activeCount + limit.pendingCount >= spec.concurrency + readAhead) await Promise.race(inFlight);
        if (stopping()) break;
        // The input's own `error` (a failed inference, for judge); when `error` is a field this stage writes, it is replaced.
        const inputError = spec.outputFields.includes('error') ? undefined : (row as Record<string, unknown>).error;
        const closing = objectEnd(line.bytes);
        if (!closing) throw new Error(`${where}: a checked row has no closing brace`);
        const ref: RowRef = {
          domain,
          file: f,
          start: line.start,
          bodyEnd: line.start + closing.bodyEnd,
          empty: closing.empty,
          ...(inputError !== undefined ? { inputError } : {}),
          ...(read.line ? { raw: read.line } : {}),
        };
        let job: Job;
        try {
          job = spec.prepare(row, text);
        } catch (err) {
          fail(err);
          break;
        }
        queued++;
        const p: Promise<void> = limit(() => handle(ref, job))
          .catch(fail)
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
        // Reading a multi-MB row can hog the loop; yield so finished requests are written promptly.
        await new Promise<void>((r) => setImmediate(r));
      }
    }
  };

  try {
    try {
      await readAndSend();
    } catch (err) {
      // A read that fails (a disk error, a file cut short) must not leave requests running into closed files.
      fail(err);
    }
    if (spec.stop.aborted) spec.onEvent?.({ type: 'stopping' });
    await Promise.all(inFlight);
  } finally {
    spec.abort.removeEventListener('abort', onAbort);
    await appender.close();
    await Promise.all(inputs.map((i) => i.handle.close()));
    fillCounts(manifest, perDomain, spec.endpointStats?.());
    manifest.updated_at = new Date().toISOString();
    manifest.complete = manifest.counts.done === manifest.counts.total;
    if (manifest.complete) manifest.finished_at = manifest.updated_at;
    await writeManifest(spec.output, manifest);
  }
  if (fatal !== undefined) throw fatal;
  if (badStop) throw badStop;

  return {
    perDomain,
    attempted,
    remaining: manifest.counts.total - manifest.counts.done,
    stopped: spec.stop.aborted,
    badRows,
    manifest,
  };
}

function fillCounts(m: Manifest, perDomain: Map<string, DomainTally>, endpoints?: Record<string, EndpointStats>): void {
  let total = 0;
  let done = 0;
  let failed = 0;
  const usage = { requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0 };
  m.counts.per_domain = {};
  for (const [d, t] of perDomain) {
    total += t.total;
    done += t.done;
    failed += t.failed;
    usage.prompt_tokens += t.promptTokens;
    usage.completion_tokens += t.completionTokens;
    usage.reasoning_tokens += t.reasoningTokens;
    m.counts.per_domain[d] = { total: t.total, done: t.done, failed: t.failed, empty: t.empty, truncated: t.truncated };
  }
  if (endpoints) {
    for (const s of Object.values(endpoints)) usage.requests += s.requests;
    m.endpoints = endpoints;
  }
  m.counts.total = total;
  m.counts.done = done;
  m.counts.failed = failed;
  m.usage = usage;
}

import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import pLimit from 'p-limit';
import type { z } from 'zod';
import { UserError } from './errors.js';
import { JsonlAppender } from './jsonl.js';
import { planRows, readRows, type BadRow, type InputRow, type SelectOptions } from './input.js';
import { checkResumable, ensureOutputDir, scanExistingOutput, writeManifest } from './output-file.js';
import { appendFieldsParts } from './raw-json.js';
import { rowKey, type KeyedFields } from './row-key.js';
import type { DatasetRow } from './schemas/dataset-row.js';
import type { Manifest, ManifestSettings } from './schemas/manifest.js';
import type { EndpointStats } from './endpoints.js';
import { VERSION } from '../version.js';
import { domainOfTask } from './domains.js';

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
  | { type: 'planned'; total: number; alreadyDone: number; todo: number; badRows: BadRow[]; dropped: { failed: number; cut: number; invalid: number } }
  | { type: 'row'; domain: string; ok: boolean; error?: string }
  | { type: 'stopping' };

export interface StageSpec<S extends z.ZodType<DatasetRow>> {
  stage: Manifest['stage'];
  inputFiles: string[];
  schema: S;
  output: string;
  select: SelectOptions;
  /**
   * Computed once the rows are checked: some settings (the rubric set) depend
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
  /** The fields to append to the input row; undefined when cancelled. Throws only for errors that should end the run. */
  process: (input: InputRow<z.infer<S>>, signal: AbortSignal) => Promise<object | undefined>;
  /** Stop taking new rows (first Ctrl-C). */
  stop: AbortSignal;
  /** Cancel requests in flight (grace period over, second Ctrl-C). */
  abort: AbortSignal;
  onEvent?: (e: StageEvent) => void;
  /** Runs after every row is checked and before anything is sent: the place for preflight checks. */
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

/**
 * The shared life of infer and judge: check every input row, pick up where
 * an earlier run stopped, send the remaining rows with bounded concurrency,
 * append each result as one whole line the moment it is ready, and record
 * what produced the file. Rows are streamed twice (check, then send); only
 * keys are held in memory, so memory grows with concurrency, not data.
 */
export async function runStage<S extends z.ZodType<DatasetRow>>(spec: StageSpec<S>): Promise<StageResult> {
  const out = resolve(spec.output);
  for (const f of spec.inputFiles) {
    if (resolve(f) === out) throw new UserError(`--output ${spec.output} is also the input; choose another output file`);
  }
  await ensureOutputDir(spec.output);

  const plan = await planRows(spec.inputFiles, spec.schema, spec.select);
  if (plan.keys.size === 0) throw new UserError(`no rows to process in ${spec.inputFiles.join(', ')}`);
  const perDomain = new Map<string, DomainTally>();
  const tallyOf = (domain: string) => {
    let t = perDomain.get(domain);
    if (!t) perDomain.set(domain, (t = emptyTally()));
    return t;
  };
  for (const [d, n] of plan.perDomain) tallyOf(d).total = n;

  const dataset: Manifest['dataset'] = {
    ...spec.dataset,
    domains: [...plan.perDomain.keys()],
    rows: Object.fromEntries(plan.perDomain),
  };
  const settings = await spec.settings(plan.selectedDomains);
  const previous = await checkResumable(spec.output, spec.stage, settings, dataset, spec.force);

  const existing = await scanExistingOutput(spec.output, {
    isDone: spec.isDone,
    onKept: (row, key) => {
      if (!plan.keys.has(key)) return;
      const t = tallyOf(domainOfTask(String(row.task)));
      t.done++;
      spec.tally(row, t);
    },
  });
  await spec.beforeDispatch?.();
  const alreadyDone = [...plan.keys].filter((k) => existing.doneKeys.has(k)).length;
  const todo = plan.keys.size - alreadyDone;
  spec.onEvent?.({ type: 'planned', total: plan.keys.size, alreadyDone, todo, badRows: plan.badRows, dropped: existing.dropped });

  const appender = await JsonlAppender.open(spec.output);
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
    counts: { total: plan.keys.size, done: 0, failed: 0, per_domain: {} },
    usage: { requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0 },
  };
  fillCounts(manifest, perDomain, spec.endpointStats?.());
  await writeManifest(spec.output, manifest);

  let attempted = 0;
  let fatal: unknown;
  const cancel = new AbortController();
  // Every request in flight listens on this signal; hundreds are expected, not a leak.
  setMaxListeners(0, cancel.signal);
  const onAbort = () => cancel.abort();
  spec.abort.addEventListener('abort', onAbort);
  const stopping = () => spec.stop.aborted || fatal !== undefined;

  const limit = pLimit(spec.concurrency);
  const inFlight = new Set<Promise<void>>();
  const handle = async (input: InputRow<z.infer<S>>) => {
    if (stopping()) return;
    attempted++;
    // The openai client hooks an abort listener onto the signal it is given
    // and never unhooks it: on the shared signal that was one listener per
    // row for the whole run (memory that grows with the rows, and each new
    // listener scans all the old ones). A signal per row, unhooked when the
    // row is done, keeps it to the rows in flight.
    const rowAbort = new AbortController();
    const onCancel = () => rowAbort.abort(cancel.signal.reason);
    if (cancel.signal.aborted) onCancel();
    else cancel.signal.addEventListener('abort', onCancel, { once: true });
    let result: object | undefined;
    try {
      result = await spec.process(input, rowAbort.signal);
    } finally {
      cancel.signal.removeEventListener('abort', onCancel);
    }
    if (!result) return;
    const fields = result as Record<string, unknown>;
    await appender.append(appendFieldsParts(input.raw, input.parsed, fields));
    const row = { ...input.parsed, ...fields };
    const t = tallyOf(input.domain);
    const ok = spec.isDone(row);
    if (ok) t.done++;
    else t.failed++;
    spec.tally(row, t);
    spec.onEvent?.({ type: 'row', domain: input.domain, ok, error: typeof fields.error === 'string' ? fields.error : typeof fields.error_message === 'string' ? fields.error_message : undefined });
  };

  try {
    for await (const input of readRows(spec.inputFiles, spec.schema, () => undefined)) {
      if (stopping()) break;
      if (!plan.keys.has(input.key) || existing.doneKeys.has(input.key)) continue;
      // A row read here but not yet sent costs memory; wait for a free slot before reading the next.
      while (limit.activeCount + limit.pendingCount >= spec.concurrency) await Promise.race(inFlight);
      if (stopping()) break;
      const p: Promise<void> = limit(() => handle(input))
        .catch((err: unknown) => {
          if (fatal === undefined) {
            fatal = err;
            cancel.abort();
          }
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      // Reading a multi-MB row can hog the loop; yield so finished requests are written promptly.
      await new Promise<void>((r) => setImmediate(r));
    }
    if (spec.stop.aborted) spec.onEvent?.({ type: 'stopping' });
    await Promise.all(inFlight);
  } finally {
    spec.abort.removeEventListener('abort', onAbort);
    await appender.close();
    fillCounts(manifest, perDomain, spec.endpointStats?.());
    manifest.updated_at = new Date().toISOString();
    manifest.complete = manifest.counts.done === manifest.counts.total;
    if (manifest.complete) manifest.finished_at = manifest.updated_at;
    await writeManifest(spec.output, manifest);
  }
  if (fatal !== undefined) throw fatal;

  return {
    perDomain,
    attempted,
    remaining: manifest.counts.total - manifest.counts.done,
    stopped: spec.stop.aborted,
    badRows: plan.badRows,
    manifest,
  };
}

function fillCounts(m: Manifest, perDomain: Map<string, DomainTally>, endpoints?: Record<string, EndpointStats>): void {
  let done = 0;
  let failed = 0;
  const usage = { requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0 };
  m.counts.per_domain = {};
  for (const [d, t] of perDomain) {
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
  m.counts.done = done;
  m.counts.failed = failed;
  m.usage = usage;
}

/** The key of an output row (same as its input row's), for callers that only have the parsed object. */
export function keyOfOutputRow(raw: string, row: Record<string, unknown>): string {
  return rowKey(raw, row as unknown as KeyedFields);
}

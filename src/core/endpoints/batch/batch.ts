import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { open, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import { fail } from '../../errors.js';
import { readJsonFile, writeAtomically } from '../../files.js';
import { brief, shownUrl } from '../../shown.js';
import { withOwnSignal } from '../../signals.js';
import { Client } from '../http/client.js';
import { accessFault, attemptFailure } from '../classify.js';
import type { EndpointFault } from '../faults.js';
import type { Connection } from '../types.js';
import {
  BATCH_LIMITS,
  downloadResults,
  indexResults,
  replyOf,
  writeRequestFiles,
  type BatchLimits,
  type BatchReply,
  type BatchRequest,
} from './batch-files.js';
import { retryDelay } from '../retry.js';
import { decodeLine, readLineAt } from '../../rows/index.js';
import { batchStateSchema, type BatchState, type ManifestSettings } from '../../schemas/index.js';

/*
 * OpenAI's Batch API (also served by LiteLLM's proxy): the requests are
 * written to JSONL files, uploaded, run as batches within 24 hours at half the
 * price, and their results downloaded and matched to rows by `custom_id`.
 * Every id is recorded beside the output the moment it exists, so a killed
 * run given the same command goes back to the same batches.
 */

/** A request's `custom_id`: derived from the row key, short and the same on every run. */
export function customIdOf(rowKey: string): string {
  return `awb-${createHash('sha256').update(rowKey).digest('hex').slice(0, 32)}`;
}

const TERMINAL_STATUSES = ['completed', 'failed', 'expired', 'cancelled'] as const;

function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export interface BatchStatus {
  /** A free-running run's round (--horizon: each round asks the next step of every row). */
  round?: number;
  batch: number;
  of: number;
  id: string;
  status: string;
  completed: number;
  failed: number;
  total: number;
}

/**
 * A client for the Batch API: its own, since the chat pool's fetch caps a
 * reply's size and a results file is far larger than a reply. Batch calls
 * are short, so the client's own retries serve.
 */
export function batchClient(connection: Connection): OpenAI {
  // Quiet as the pool's clients (pool.ts): no server text or URL query printed by the client itself.
  return new Client({ ...connection, maxRetries: 5, timeout: 600_000, logLevel: 'off' });
}

export interface BatchRunOptions {
  /** A client for the endpoint (batchClient). */
  client: OpenAI;
  /** Removed from server text before it is shown. */
  secrets?: string[];
  /** The endpoint as shown (no credentials) and the model, recorded to refuse resuming against others. */
  endpoint: string;
  model: string;
  /**
   * The settings the requests are made with, recorded in the state; resuming
   * batches recorded with others is refused, naming `differences(recorded)`.
   */
  settings?: { now: ManifestSettings; differences: (recorded: ManifestSettings) => string[] };
  /** `OUTPUT.batches.json`. */
  statePath: string;
  /** Request and result files are written as `${filePrefix}-N.jsonl` and `${filePrefix}-N.results.jsonl`. */
  filePrefix: string;
  /** The requests; read only when no batch was recorded yet. */
  requests: () => AsyncIterable<BatchRequest>;
  limits?: BatchLimits;
  pollMs?: number;
  signal?: AbortSignal;
  onStatus?: (status: BatchStatus) => void;
  /** Called once each batch id is recorded (tests kill the run here). */
  onRecorded?: (state: BatchState) => void;
}

export interface BatchResults {
  /** The reply recorded for a request; undefined when the batch holds none (not run: expired, cancelled). */
  get(customId: string): Promise<BatchReply | undefined>;
  /** Requests with a reply of either kind. */
  readonly size: number;
  /** Batch ids, for the manifest. */
  readonly ids: string[];
  /** Closes the results files; lookups are over. Safe to call again. */
  close(): Promise<void>;
}

/**
 * Submits the requests as batches (or finds the ones an earlier run
 * submitted), waits for them, downloads their results and returns them
 * indexed by `custom_id`. Never submits a file twice: the state file records
 * each upload and batch before the next step, and a batch created just before
 * a kill is found again by its input file. An endpoint that refuses the
 * routes, a batch that failed as a whole and results that are not JSONL are
 * one line each, exit code 3.
 */
export async function runBatches(opts: BatchRunOptions): Promise<BatchResults> {
  try {
    return await submitAndCollect(opts);
  } catch (err) {
    throw refusal(err, opts);
  }
}

/** A Batch API error as its fault: the route refused, or the endpoint unreachable. */
function refusal(err: unknown, opts: BatchRunOptions): unknown {
  if (err instanceof APIUserAbortError || opts.signal?.aborted || !(err instanceof APIError)) return err;
  const endpoint = shownUrl(opts.endpoint);
  const said = brief(err.message, opts.secrets ?? []);
  const fault: EndpointFault =
    err instanceof APIConnectionError
      ? { kind: 'batch-unreachable', endpoint, said }
      : (accessFault(err, { role: 'batch', endpoint }, () => said) ??
        (err.status === 404 || err.status === 405
          ? { kind: 'batch-unsupported', endpoint, status: err.status, said }
          : { kind: 'batch-failed', endpoint, said }));
  return fail(fault);
}

/**
 * The batches an earlier run recorded at `statePath`, if any; refused when submitted to another
 * endpoint or model, or with other settings: their replies are not this run's to take.
 */
export async function recordedBatches(
  opts: Pick<BatchRunOptions, 'statePath' | 'endpoint' | 'model' | 'settings'>,
): Promise<BatchState | undefined> {
  const state = await readBatchState(opts.statePath);
  if (state && (state.endpoint !== opts.endpoint || state.model !== opts.model)) {
    const { model, endpoint } = state;
    throw fail({
      kind: 'batch-state-elsewhere',
      path: opts.statePath,
      recorded: { model, endpoint },
      given: { model: opts.model, endpoint: opts.endpoint },
    });
  }
  const differences = state?.settings && opts.settings ? opts.settings.differences(state.settings) : [];
  if (differences.length) throw fail({ kind: 'batch-settings-changed', path: opts.statePath, differences });
  return state;
}

async function submitAndCollect(opts: BatchRunOptions): Promise<BatchResults> {
  let state = await recordedBatches(opts);
  if (!state) {
    state = {
      format: 'agentworldbench-batches',
      version: 1,
      endpoint: opts.endpoint,
      model: opts.model,
      ...(opts.settings && { settings: opts.settings.now }),
      batches: [],
    };
    state.batches = await writeRequestFiles(opts.requests(), opts.filePrefix, opts.limits ?? BATCH_LIMITS);
    await saveBatchState(opts.statePath, state);
  }
  const save = () => saveBatchState(opts.statePath, state);
  const ids: string[] = [];
  const index = new Map<string, { file: string; start: number; end: number }>();
  // Every batch is submitted before any is waited for: they run side by side at the endpoint, each within its 24 h.
  for (const entry of state.batches) {
    if (entry.lines === 0) continue;
    if (!entry.input_file_id) {
      const file = new File([await openAsBlob(entry.file)], basename(entry.file), { type: 'application/jsonl' });
      entry.input_file_id = (
        await withOwnSignal(opts.signal, (signal) => opts.client.files.create({ file, purpose: 'batch' }, { signal }))
      ).id;
      await save();
    }
    if (!entry.id) {
      const inputFileId = entry.input_file_id;
      entry.id = (await withOwnSignal(opts.signal, (signal) => submitOnce(opts.client, inputFileId, signal))).id;
      await save();
      opts.onRecorded?.(state);
    }
  }
  for (const [n, entry] of state.batches.entries()) {
    if (entry.lines === 0) continue;
    const id = entry.id!;
    ids.push(id);
    // Results recorded but removed since (damaged, or to fetch them again) are downloaded again.
    if (entry.results && !(await stat(entry.results).catch(() => undefined))?.isFile()) delete entry.results;
    if (!entry.results && entry.output_file_id === undefined) {
      const done = await waitFor(opts, id, n, state.batches.length);
      entry.status = done.status;
      entry.output_file_id = done.output_file_id ?? null;
      entry.error_file_id = done.error_file_id ?? null;
      if (done.status === 'failed') {
        const why = (done.errors?.data ?? []).map(
          (e) => `${e.line !== undefined && e.line !== null ? `line ${e.line}: ` : ''}${e.message ?? e.code}`,
        );
        // Nothing of it ran (nor was billed): the next run submits the file again, as a new batch.
        state.batches[n] = { file: entry.file, lines: entry.lines };
        await save();
        throw fail({
          kind: 'batch-failed-whole',
          id,
          lines: entry.lines,
          why: brief(why.join('; ') || 'no reason given', opts.secrets ?? []),
          file: entry.file,
        });
      }
    }
    if (!entry.results) {
      const results = `${entry.file.replace(/\.jsonl$/, '')}.results.jsonl`;
      const fileIds = [entry.output_file_id, entry.error_file_id];
      await withOwnSignal(opts.signal, (signal) => downloadResults(opts.client, fileIds, results, signal));
      entry.results = results;
      await save();
    }
    await indexResults(entry.results, index);
  }
  // Each results file is opened at its first lookup and stays open until close: a row's lookup reads one line.
  const handles = new Map<string, Promise<FileHandle>>();
  let closed = false;
  return {
    ids,
    get size() {
      return index.size;
    },
    get: async (customId) => {
      const at = index.get(customId);
      if (!at) return undefined;
      if (closed) throw new Error('batch results read after they were closed');
      let handle = handles.get(at.file);
      if (!handle) handles.set(at.file, (handle = open(at.file, 'r')));
      const line = await readLineAt({ handle: await handle, path: at.file }, at.start, at.end - at.start);
      return replyOf(JSON.parse(decodeLine(line)));
    },
    close: async () => {
      closed = true;
      const opened = [...handles.values()];
      handles.clear();
      await Promise.all(opened.map(async (h) => (await h.catch(() => undefined))?.close()));
    },
  };
}

/** Removes the state and the batch files once every result is written into the output. */
export async function clearBatches(statePath: string): Promise<void> {
  const state = await readBatchState(statePath);
  if (!state) return;
  for (const e of state.batches) {
    await rm(e.file, { force: true });
    if (e.results) await rm(e.results, { force: true });
  }
  await rm(statePath, { force: true });
}

function readBatchState(path: string): Promise<BatchState | undefined> {
  return readJsonFile(path, batchStateSchema, 'batch-state');
}

async function saveBatchState(path: string, state: BatchState): Promise<void> {
  await writeAtomically(path, `${JSON.stringify(state, null, 2)}\n`);
}

/** Tries at submitting one batch, each after looking for it again. */
const SUBMIT_TRIES = 6;

/**
 * The batch of this input file: one an earlier try or run created (a kill between creating it and
 * recording its id, or a create whose answer was lost to a dropped connection or a 5xx, may have
 * made it all the same), else a new one. The client never retries a create by itself: each retry
 * first lists the batches again, so a file is never submitted, and billed, twice.
 */
async function submitOnce(client: OpenAI, inputFileId: string, signal?: AbortSignal): Promise<OpenAI.Batches.Batch> {
  for (let retry = 0; ; retry++) {
    const found = await findBatch(client, inputFileId, signal);
    if (found) return found;
    try {
      return await client.batches.create(
        { input_file_id: inputFileId, endpoint: '/v1/chat/completions', completion_window: '24h' },
        { signal, maxRetries: 0 },
      );
    } catch (err) {
      const failure = attemptFailure(err);
      const wait = failure && !signal?.aborted ? retryDelay(failure, retry, SUBMIT_TRIES - 1, Date.now(), Math.random()) : undefined;
      if (wait === undefined) throw err;
      await sleep(wait, undefined, { signal });
    }
  }
}

/** A batch an earlier try or run created for this input file, if any. */
async function findBatch(client: OpenAI, inputFileId: string, signal?: AbortSignal): Promise<OpenAI.Batches.Batch | undefined> {
  for await (const b of client.batches.list({ limit: 100 }, { signal })) {
    if (b.input_file_id === inputFileId && b.status !== 'cancelled' && b.status !== 'cancelling') return b;
  }
  return undefined;
}

async function waitFor(opts: BatchRunOptions, id: string, n: number, of: number): Promise<OpenAI.Batches.Batch> {
  for (;;) {
    const b = await withOwnSignal(opts.signal, (signal) => opts.client.batches.retrieve(id, { signal })).catch((err: unknown) => {
      // The route exists (the batch was made through it): this batch is unknown to the key's project, or gone.
      if (!(err instanceof APIError) || err.status !== 404) throw err;
      throw fail({ kind: 'batch-not-found', endpoint: shownUrl(opts.endpoint), id, path: opts.statePath });
    });
    const counts = b.request_counts ?? { completed: 0, failed: 0, total: 0 };
    opts.onStatus?.({ batch: n + 1, of, id, status: b.status, ...counts });
    if (isTerminal(b.status)) return b;
    await sleep(opts.pollMs ?? 30_000, undefined, { signal: opts.signal });
  }
}

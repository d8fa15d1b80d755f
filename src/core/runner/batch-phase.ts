import type OpenAI from 'openai';
import type { z } from 'zod';
import {
  clearBatches,
  customIdOf,
  isChatCompletion,
  runBatches,
  type BatchLimits,
  type BatchRequest,
  type BatchResults,
  type BatchStatus,
  type ChatResult,
} from '../endpoints/index.js';
import type { LinePlan } from '../rows/index.js';
import { plannedRows } from './plan.js';
import type { DatasetRow } from '../schemas/index.js';
import type { Stage } from './stage.js';

export interface BatchPhaseOptions {
  client: OpenAI;
  /** The endpoint as shown (no credentials): recorded in the state and in rows as their endpoint. */
  endpoint: string;
  model: string;
  output: string;
  plan: LinePlan;
  limits?: BatchLimits;
  pollMs: number;
  secrets: string[];
  /** Stops waiting (Ctrl-C): the batches go on at the endpoint, and the same command collects them later. */
  signal: AbortSignal;
  onStatus?: (status: BatchStatus) => void;
}

/** The state file beside the output: the batches' ids, the moment each exists. */
export const batchStatePath = (output: string): string => `${output}.batches.json`;

/**
 * `--batch`: before the rows are dispatched, the requests the stage would
 * send first for every row not done yet are submitted through the Batch API
 * (or an earlier run's batches are found again through the state file) and
 * waited for. The stage then runs as usual, its jobs taking each batch reply
 * as the first answer to their request (`Answered`), so rows are written by
 * the online code: a line that failed or expired in the batch, or whose reply
 * is no chat completion or cannot be parsed, is asked online as without
 * --batch (re-asked up to --parse-attempts).
 */
export class BatchPhase<S extends z.ZodType<DatasetRow>> {
  readonly stage: Stage<S>;
  private results: BatchResults | undefined;

  constructor(
    inner: Stage<S>,
    private readonly opts: BatchPhaseOptions,
  ) {
    this.stage = { ...inner, job: (row, key) => inner.job(row, key, (n) => this.answer(key, n)) };
  }

  /** The batches whose replies this run uses, for the manifest. */
  get ids(): string[] {
    return this.results?.ids ?? [];
  }

  /** Submits (or finds again) the batches for the rows not done yet and waits for their results; returns early when stopped. */
  async run(doneKeys: ReadonlySet<string>): Promise<void> {
    const { output } = this.opts;
    try {
      this.results = await runBatches({
        client: this.opts.client,
        endpoint: this.opts.endpoint,
        model: this.opts.model,
        secrets: this.opts.secrets,
        statePath: batchStatePath(output),
        filePrefix: `${output}.batch`,
        requests: () => this.requests(doneKeys),
        ...(this.opts.limits && { limits: this.opts.limits }),
        pollMs: this.opts.pollMs,
        signal: this.opts.signal,
        ...(this.opts.onStatus && { onStatus: this.opts.onStatus }),
      });
    } catch (err) {
      if (!this.opts.signal.aborted) throw err;
    }
  }

  /** Removes the state and the batch files: every reply has been written into the output. */
  clear(): Promise<void> {
    return clearBatches(batchStatePath(this.opts.output));
  }

  private async answer(key: string, n: number): Promise<ChatResult | undefined> {
    const reply = await this.results?.get(requestId(key, n));
    if (!reply?.ok || !isChatCompletion(reply.body)) return undefined;
    return { completion: reply.body, endpoint: this.opts.endpoint, latencyMs: 0, batch: true };
  }

  /** The first requests of every planned row not done yet (rows that fail their checks are left to the run to report). */
  private async *requests(doneKeys: ReadonlySet<string>): AsyncGenerator<BatchRequest> {
    const { plan, model } = this.opts;
    const seen = new Set<string>();
    for await (const read of plannedRows(plan, this.stage.schema)) {
      if (!read.ok || doneKeys.has(read.key) || seen.has(read.key)) continue;
      seen.add(read.key);
      const bodies = await this.stage.requests(read.row, read.key);
      for (const [n, body] of bodies.entries()) yield { customId: requestId(read.key, n), body: { ...body, model } };
    }
  }
}

/** A request's custom_id: the row and the request's place among the row's. */
function requestId(key: string, n: number): string {
  return customIdOf(`${key}\n${n}`);
}

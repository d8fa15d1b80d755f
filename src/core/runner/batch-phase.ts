import { createHash } from 'node:crypto';
import type { z } from 'zod';
import {
  batchClient,
  clearBatches,
  recordedBatches,
  customIdOf,
  isChatCompletion,
  jsonBytes,
  runBatches,
  type BatchLimits,
  type BatchRequest,
  type BatchResults,
  type BatchStatus,
  type BatchTarget,
  type ChatBody,
  type ChatRequest,
  type ChatResult,
} from '../endpoints/index.js';
import { displayKey, type LinePlan, type PlannedLine } from '../rows/index.js';
import { hostless, removeStaleTemps, settingsDifferences } from '../output/index.js';
import { plannedRows } from './plan.js';
import type { DatasetRow, ManifestSettings } from '../schemas/index.js';
import type { RowChat, RowSend, Stage, StageRounds } from './stage.js';

export interface BatchPhaseOptions extends BatchTarget {
  output: string;
  /** The state is `STEM.batches.json` and the batch files `STEM.batch-N…`; the output's path unless given (a panel's member has its own). */
  stem?: string;
  plan: LinePlan;
  /** The run's settings (its manifest's): batches an earlier run submitted with others are not collected. */
  settings: ManifestSettings;
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
 * waited for. The stage then runs as usual, its rows asking through `chat`,
 * which takes each batch reply as the first answer to its request, so rows
 * are written by the online code: a line that failed or expired in the batch,
 * or whose reply is no chat completion or cannot be parsed, is asked online
 * as without --batch (re-asked up to --parse-attempts). A stage with
 * `rounds` (infer --horizon) goes in rounds instead (runRounds): its rows then
 * find every step a round answered where their jobs keep steps.
 */
export class BatchPhase<S extends z.ZodType<DatasetRow>> {
  private results: BatchResults | undefined;
  /** A free-running run's: the batches of every round, collected one round after another. */
  private roundIds: string[] | undefined;
  /** Requests the batches hold no line for: their rows changed (or came) since the batches were submitted. */
  private unbatched = 0;

  constructor(
    private readonly stage: Stage<S>,
    private readonly opts: BatchPhaseOptions,
  ) {}

  /** Requests asked online because no batch holds them (see `unbatched`). */
  get notInBatch(): number {
    return this.unbatched;
  }

  /** The batches whose replies this run uses, for the manifest. */
  get ids(): string[] {
    return this.roundIds ?? this.results?.ids ?? [];
  }

  /** Submits (or finds again) the batches for the rows not done yet and waits for their results; returns early when stopped. */
  async run(doneKeys: ReadonlySet<string>): Promise<void> {
    // The run clears what an earlier crash left of the output's own state (runLocked); a state of its own stem is this phase's to clear.
    if (this.opts.stem !== undefined) await removeStaleTemps([batchStatePath(this.stem)]);
    try {
      if (this.stage.rounds) await this.runRounds(this.stage.rounds, doneKeys);
      else this.results = await this.submit(() => this.requests(doneKeys));
    } catch (err) {
      if (!this.opts.signal.aborted) throw err;
    }
  }

  /**
   * Refuses batches an earlier run recorded for another endpoint, model or settings: checked before
   * the run changes anything (a free-running run's steps file is opened before its rounds).
   */
  async check(): Promise<void> {
    await recordedBatches(this.recorded);
  }

  /** Where the batches are recorded, and for what. */
  private get recorded() {
    const { settings } = this.opts;
    return {
      endpoint: this.opts.endpoint,
      model: this.opts.model,
      statePath: batchStatePath(this.stem),
      // The hosts aside: the state names the endpoint it was submitted to.
      settings: { now: settings, differences: (recorded: ManifestSettings) => settingsDifferences(hostless(recorded), hostless(settings)) },
    };
  }

  /** The batches of these requests, submitted (or found again through the state) and waited for. */
  private submit(requests: () => AsyncIterable<BatchRequest>, round?: number): Promise<BatchResults> {
    const { onStatus } = this.opts;
    return runBatches({
      ...this.recorded,
      client: batchClient(this.opts.connection),
      secrets: this.opts.secrets,
      filePrefix: `${this.stem}.batch`,
      requests,
      ...(this.opts.limits && { limits: this.opts.limits }),
      pollMs: this.opts.pollMs,
      signal: this.opts.signal,
      ...(onStatus && { onStatus: round === undefined ? onStatus : (status) => onStatus({ ...status, round }) }),
    });
  }

  /**
   * A free-running run's rounds (--horizon): each round's batches ask every row's first step not
   * kept yet (a step rows share, once), its answers are kept as the rows' jobs keep theirs, and the
   * next round is built from them. A round an earlier run submitted is found again through the
   * state and collected first. A step that failed or expired in its batch is left to the online
   * run, with the rest of its row's steps: the other rows go on in rounds.
   */
  private async runRounds(rounds: StageRounds<z.infer<S>>, doneKeys: ReadonlySet<string>): Promise<void> {
    const online = new Set<string>();
    // Lines no later round asks anything of (done, finished, left to the online run, bad): not read again.
    const settled = new Set<PlannedLine>();
    const ids: string[] = [];
    for (let round = 1; ; round++) {
      this.opts.signal.throwIfAborted();
      const steps = new Map<string, { customId: string; turn: number; by: string; at: number }>();
      let listed = false;
      const requests = async function* (this: BatchPhase<S>): AsyncGenerator<BatchRequest> {
        listed = true;
        yield* this.roundRequests(rounds, doneKeys, online, settled, steps);
      }.bind(this);
      const results = await this.submit(requests, round);
      // Found again through the state: the round's steps are listed anew (their requests are already at the endpoint).
      const found = !listed;
      if (found) for await (const _ of requests());
      try {
        for (const [key, step] of steps) {
          const reply = await results.get(step.customId);
          // A step kept before a crash moved its row on: that row's next step is not in this round, but in the next.
          if (!reply && found) continue;
          if (reply?.ok && isChatCompletion(reply.body)) {
            await rounds.keep({ key, turn: step.turn, by: step.by }, this.batchAnswer(reply.body));
          } else online.add(key);
        }
      } finally {
        await results.close();
      }
      ids.push(...results.ids);
      this.roundIds = ids;
      // Every answer of the round is kept: its state and files go, and the next round starts from the steps.
      await clearBatches(batchStatePath(this.stem));
      if (!steps.size) return;
    }
  }

  /**
   * The row's chat: each request's first answer from the batch when it holds a chat completion for
   * that very request (the same messages: not one made for predictions or data since changed), else
   * from `online`.
   */
  chat(key: string, online: RowChat): RowChat {
    // What each body asks, kept as a digest: a row in flight holds its bodies, not their texts.
    const asks = new WeakMap<ChatBody, string>();
    return {
      encode: (request) => {
        const body = online.encode(request);
        asks.set(body, messagesDigest(request));
        return body;
      },
      send: batchFirst((n, body) => this.answer(requestId(key, n, asks.get(body) ?? '')), online.send),
    };
  }

  /** Closes the results files; the replies are no longer needed once the rows are written (or the run ends). */
  async close(): Promise<void> {
    await this.results?.close();
  }

  /** Closes the results and removes the state and the batch files: every reply has been written into the output. */
  async clear(): Promise<void> {
    await this.close();
    await clearBatches(batchStatePath(this.stem));
  }

  private get stem(): string {
    return this.opts.stem ?? this.opts.output;
  }

  private async answer(customId: string): Promise<ChatResult | undefined> {
    if (!this.results) return undefined;
    const reply = await this.results.get(customId);
    if (!reply) this.unbatched++;
    if (!reply?.ok || !isChatCompletion(reply.body)) return undefined;
    return this.batchAnswer(reply.body);
  }

  private batchAnswer(completion: ChatResult['completion']): ChatResult {
    return { completion, endpoint: this.opts.endpoint, latencyMs: 0, batch: true };
  }

  /**
   * A round's requests: the next step of every planned row not done yet whose step did not fail in
   * an earlier round (`online`), a step rows share once; each noted in `steps` by its key. A line
   * that asks nothing now never will: it goes in `settled`, which later rounds do not read.
   */
  private async *roundRequests(
    rounds: StageRounds<z.infer<S>>,
    doneKeys: ReadonlySet<string>,
    online: ReadonlySet<string>,
    settled: Set<PlannedLine>,
    steps: Map<string, { customId: string; turn: number; by: string; at: number }>,
  ): AsyncGenerator<BatchRequest> {
    const { plan, model } = this.opts;
    const seen = new Set<string>();
    for await (const { read, line } of plannedRows(plan, this.stage.schema, settled)) {
      if (!read.ok || doneKeys.has(read.key) || seen.has(read.key)) {
        settled.add(line);
        continue;
      }
      seen.add(read.key);
      const step = await rounds.next(read.row, read.key);
      if (!step || online.has(step.key)) {
        settled.add(line);
        continue;
      }
      const at = read.row.turn_idx;
      const shared = steps.get(step.key);
      if (shared) {
        if (at < shared.at) Object.assign(shared, { by: read.key, at });
        continue;
      }
      const customId = requestId(step.key, 0, messagesDigest(step.request));
      steps.set(step.key, { customId, turn: step.turn, by: read.key, at });
      yield { customId, what: displayKey(read.key), body: { ...step.request, model } };
    }
  }

  /** The first requests of every planned row not done yet (rows that fail their checks are left to the run to report). */
  private async *requests(doneKeys: ReadonlySet<string>): AsyncGenerator<BatchRequest> {
    const { plan, model } = this.opts;
    const seen = new Set<string>();
    for await (const { read } of plannedRows(plan, this.stage.schema)) {
      if (!read.ok || doneKeys.has(read.key) || seen.has(read.key)) continue;
      seen.add(read.key);
      const bodies = await this.stage.requests(read.row, read.key);
      for (const [n, body] of bodies.entries())
        yield { customId: requestId(read.key, n, messagesDigest(body)), what: displayKey(read.key), body: { ...body, model } };
    }
  }
}

/** A request's custom_id: the row, the request's place among the row's, and what it asks (messagesDigest). */
function requestId(key: string, n: number, asks: string): string {
  return customIdOf(`${key}\n${n}\n${asks}`);
}

/** A digest of a request's messages as sent. */
function messagesDigest(request: ChatRequest): string {
  return createHash('sha256').update(jsonBytes(request.messages)).digest('base64');
}

/**
 * A row's chat that takes `answer(n, body)` (a reply got beforehand) as the first
 * answer to its request `n`, when there is one; every other ask, and asking
 * the same request again, goes to `online`.
 */
export function batchFirst(answer: (n: number, body: ChatBody) => Promise<ChatResult | undefined>, online: RowSend): RowSend {
  const asked = new Set<number>();
  return async (n, body, signal) => {
    if (!asked.has(n)) {
      asked.add(n);
      const reply = await answer(n, body);
      if (reply) return reply;
    }
    return online(n, body, signal);
  };
}

import type { z } from 'zod';
import type { ChatBody, ChatRequest, ChatResult } from '../endpoints/index.js';
import type { DatasetRow, Manifest, ManifestSettings, Outcome } from '../schemas/index.js';
import type { DomainTally } from './accounting.js';

/**
 * The work for one row, built while the row is in hand: it holds only what
 * the request needs. Resolves to the fields to append, or undefined when
 * cancelled; throws only for errors that end the run. `advanced`: a row of
 * several requests calls it once its first is answered (Schedule.advance).
 */
export type Job = (signal: AbortSignal, advanced?: () => void) => Promise<Record<string, unknown> | undefined>;

/**
 * How a job sends its row's requests, given by the runner. A job encodes its
 * requests once while its row is in hand, and holds only their bodies while
 * in flight. `send(n, ...)` asks the row's request number `n` (its place in
 * `requests`), asked again with the same `n` (a malformed or unparseable
 * reply): the endpoint pool's chat, or with --batch one that answers from the
 * batch first (BatchPhase).
 */
export interface RowChat {
  encode(request: ChatRequest): ChatBody;
  send: RowSend;
}

export type RowSend = (n: number, body: ChatBody, signal: AbortSignal) => Promise<ChatResult>;

/** What a stage (infer, judge) gives the runner; everything else (plan, slots, output, manifest) is the runner's. */
export interface Stage<S extends z.ZodType<DatasetRow> = z.ZodType<DatasetRow>> {
  name: Manifest['stage'];
  /** The input rows' schema; output rows are input rows with `outputFields` added. */
  schema: S;
  /** The fields this stage appends; an input that has some already (re-judging a judged file) gets them replaced. */
  outputFields: readonly string[];
  /**
   * The input's fields that `outcome` and `tally` read beside the stage's own (a judge: the inference's `error`, the
   * prediction's `gen`): a row just answered is counted with them, as a row read back from the output holds them.
   */
  inputFields?: readonly string[];
  outcome(row: Record<string, unknown>): Outcome;
  /**
   * A judge's: the prediction a row's result grades, from the top-level values of an input row or
   * an output row (the input's fields are kept there; a planned line's are read alone, unparsed).
   * A resume keeps only results of the input's own predictions. undefined: the row holds none a judge accepts.
   */
  prediction?(value: (field: string) => unknown): string | undefined;
  /** Adds an output row's stage-specific figures (empty, truncated, usage) to its domain's tally. */
  tally(row: Record<string, unknown>, t: DomainTally): void;
  /** `key`: the row's key (rowKey), for stages that pair rows with another file; `chat`: how the row's requests are sent. */
  job(row: z.infer<S>, key: string, chat: RowChat): Job;
  /**
   * The requests the job sends first for this row, in order, built by the
   * same code as the job's (none for a row it writes without asking): what a
   * dry run counts and a batch file holds.
   */
  requests(row: z.infer<S>, key: string): Promise<ChatRequest[]>;
  /**
   * A text about as long as a good reply to the row's request, for a dry run's expected cost before any
   * row has been answered (infer: the ground truth). None for a stage whose replies it cannot tell.
   */
  typicalReply?(row: z.infer<S>): string;
  /**
   * A free-running infer's (--horizon): the first turn whose observation a row at `turn` generates. Rows of a
   * trajectory with the same anchor share their rollout's steps and run in turn order; the others run on their own.
   */
  anchor?(turn: number): number;
  /**
   * Runs once the output is locked, before any job is made: what the stage keeps beside the output (a
   * free-running infer's finished steps), kept from an earlier run when `resuming`. Returns its closing.
   */
  begin?(output: string, settings: ManifestSettings, resuming: boolean): Promise<() => Promise<void>>;
  /**
   * A free-running infer's (--horizon) steps as Batch API rounds (--batch): what a round asks of a row, and
   * where its answers are kept (the store `begin` opened), so the rows' jobs then take them from there.
   */
  rounds?: StageRounds<z.infer<S>>;
}

/** A step a round asks: the step's key (rows of a trajectory may share it), the turn it predicts, and the row that sends it. */
export interface RoundStep {
  key: string;
  turn: number;
  /** The row key of the row it is sent for; of the rows sharing it, the one at the earliest turn (as online: Schedule runs turns in order). */
  by: string;
  request: ChatRequest;
}

export interface StageRounds<R> {
  /** The row's first step not kept yet (every earlier step is): what the next round asks for it; undefined when none is left. */
  next(row: R, key: string): Promise<RoundStep | undefined>;
  /** Keeps a step's batch answer, as the job keeps an answer it got online. */
  keep(step: Omit<RoundStep, 'request'>, reply: ChatResult): Promise<void>;
  /** The steps a row's rollout sends one after another at most: the rounds it needs. */
  steps(row: R): number;
}

import type { ChatBody, ChatRequest, EndpointPool } from '../endpoints/index.js';
import { addUsage, requestParams, tallyNoOutput, type Routing, type Sampling } from '../infer/index.js';
import { currentAction, groundTruth } from '../rows/index.js';
import type { DomainTally, RowChat, Stage } from '../runner/index.js';
import {
  NO_GENERATION,
  NO_REFERENCE,
  judgeFailureOf,
  predictionRowSchema,
  type PairwiseResult,
  type PredictionRow,
  type TuringResult,
  type JudgeFailure,
  type Usage,
} from '../schemas/index.js';
import { askUntilParsed } from './ask.js';
import { RUBRIC_STAGE } from './judge.js';
import { ParseStreak } from './parse-streak.js';
import { pairwiseMessages, pairwiseOrders, turingMessages, turingOrders, type Side, type Turn } from './choice-messages.js';
import { parseChoiceReply, type Choice } from './choice-parse.js';
import { pairwiseOrderResult, pairwiseResult, turingOrderResult, turingResult, type OrderOutcome } from './choice-results.js';
import { cleanObservation, predictionOf, type Prediction } from '../rubrics/index.js';
import type { ModePrompt } from '../rubrics/index.js';
import type { ReferenceFile } from './reference.js';

/**
 * As the rubric judge: rows without a prediction because their inference failed, in `empty`, and predictions without
 * output (shown as "No output"), in `noOutput`; the judge's usage
 * of both orders (a panel's row: its members' sum, `judge_usage`).
 */
function tallyChoice(row: Record<string, unknown>, t: DomainTally): void {
  const failure = judgeFailureOf(row);
  if (failure === 'no-generation' && row.error !== undefined) t.empty++;
  if (failure === 'no-reference') t.unpaired++;
  tallyNoOutput(t, row.gen);
  if (row.panel !== undefined) return addUsage(t, row.judge_usage as Usage | undefined);
  const result = (row.turing ?? row.pairwise) as { orders?: Array<{ judge_usage?: Usage }> } | undefined;
  for (const o of result?.orders ?? []) addUsage(t, o.judge_usage);
}

function history(row: PredictionRow): Turn[] {
  const n = Math.min(row.turn_idx - 1, row.prompt.length, row.response.length);
  return Array.from({ length: n }, (_, i) => ({ action: row.prompt[i]!, observation: row.response[i]! }));
}

function parseChoice(raw: string) {
  const parsed = parseChoiceReply(raw);
  return parsed.ok ? { ok: true as const, value: parsed.choice } : parsed;
}

/** Why a row of a choice mode is written without asking: its code and the official words. */
export type Unasked = 'no-generation' | 'no-reference';
const UNASKED_WORDS: Record<Unasked, string> = { 'no-generation': NO_GENERATION, 'no-reference': NO_REFERENCE };

/** An order that was never asked. */
export function notAsked(why: Unasked): OrderOutcome {
  return { choice: null, attempts: 0, error: UNASKED_WORDS[why], failure: why };
}

/** The row-level fields of a row written without asking. */
export function unaskedStatus(why: Unasked): { failed: 1; error_message: string; judge_failure: JudgeFailure } {
  return { failed: 1, error_message: UNASKED_WORDS[why], judge_failure: why };
}

/** The two requests of a row, one per order: what the job asks, a dry run counts and a batch holds. */
function bothOrders(
  params: Record<string, unknown>,
  messages: (order: 0 | 1) => ReturnType<typeof turingMessages>,
): [ChatRequest, ChatRequest] {
  return [
    { ...params, messages: messages(0) },
    { ...params, messages: messages(1) },
  ];
}

export function encodeBoth(chat: RowChat, [first, second]: readonly [ChatRequest, ChatRequest]): [ChatBody, ChatBody] {
  return [chat.encode(first), chat.encode(second)];
}

/**
 * Asks both orders of one row, one after the other (the row holds one slot
 * of --concurrency). An order without a choice after --parse-attempts keeps
 * its last reply and why.
 */
export async function askBoth(
  pool: Pick<EndpointPool, 'describe'>,
  parseAttempts: number,
  bodies: readonly [ChatBody, ChatBody],
  chat: RowChat,
  signal: AbortSignal,
  streak: ParseStreak,
): Promise<[OrderOutcome, OrderOutcome] | undefined> {
  const out: OrderOutcome[] = [];
  for (const i of [0, 1] as const) {
    const asked = await askUntilParsed(pool, chat, i, bodies[i], parseChoice, parseAttempts, signal, streak);
    if (!asked) return undefined;
    out.push({
      choice: asked.ok ? (asked.value as Choice) : null,
      ...(asked.raw ? { raw: asked.raw } : {}),
      attempts: asked.attempts,
      ...(asked.ok ? {} : { error: `Judge scoring failed: ${asked.problem}`, failure: asked.failure }),
      judge_usage: asked.usage,
      judge_latency_ms: asked.latencyMs,
      ...(asked.endpoint ? { judge_endpoint: asked.endpoint } : {}),
    });
  }
  return [out[0]!, out[1]!];
}

/**
 * The row-level `failed` and `error_message` the runner and merge read
 * (judgedOutcome): an order whose request failed makes the row incomplete
 * (asked again, both orders), otherwise an unparsed order makes it final.
 */
export function rowStatus(orders: readonly OrderOutcome[]): { failed: 0 | 1; error_message?: string; judge_failure?: JudgeFailure } {
  const failed = orders.filter((o) => o.choice === null && o.failure !== undefined);
  const first = failed.find((o) => o.failure === 'request-failed') ?? failed[0];
  if (!first) return { failed: 0 };
  return { failed: 1, ...(first.error === undefined ? {} : { error_message: first.error }), judge_failure: first.failure! };
}

/**
 * What both choice modes' stages share, one judge or a panel: they read predictions and write judged rows as the
 * rubric stages do, tallied by choice.
 */
export const CHOICE_STAGE = { ...RUBRIC_STAGE, tally: tallyChoice } as const;

/** What a row of a choice mode asks, built by the same code for the job, a dry run and a batch. */
export interface ChoiceAsk {
  /** The prediction shown (its text: `extracted_output`). */
  prediction: Prediction;
  /** Where the subject (the real observation, the candidate) was in each order. */
  at: readonly [Side, Side];
  bodies: readonly [ChatRequest, ChatRequest];
  /** Pairwise: the reference prediction shown. */
  reference?: string;
}

/** One choice mode: what it asks of a row and the object it writes, whoever judges (one judge, a panel's member). */
export interface ChoiceMode {
  field: 'turing' | 'pairwise';
  /** Why a row is written without asking, from its own fields (settled before the row is queued); undefined: it is asked. */
  unasked(row: PredictionRow, key: string): Unasked | undefined;
  /** What the row asks, or why it is written without asking after all (a reference without a generation). */
  ask(row: PredictionRow, key: string): Promise<ChoiceAsk | Unasked>;
  /** The mode's object of a row from both orders' outcomes; `reference`: the reference prediction to keep in it. */
  result(key: string, at: readonly [Side, Side], outcomes: [OrderOutcome, OrderOutcome], reference?: string): TuringResult | PairwiseResult;
}

/** How a choice mode asks its judge (a panel's members: the same, each through its own pool). */
export interface ChoiceAsking {
  prompt: ModePrompt;
  sampling: Sampling;
  routing?: Routing;
}

/**
 * `--mode turing`: the judge sees the history, the action, the real observation and the cleaned
 * prediction, in both orders, and names the real one.
 */
export function turingMode({ prompt, sampling, routing = {} }: ChoiceAsking): ChoiceMode {
  return {
    field: 'turing',
    unasked: (row) => (row.gen ? undefined : 'no-generation'),
    ask: async (row) => {
      if (!row.gen) return 'no-generation';
      const prediction = predictionOf(row.gen);
      const orders = turingOrders(cleanObservation(groundTruth(row)), cleanObservation(prediction.text));
      const turns = history(row);
      const action = currentAction(row);
      return {
        prediction,
        at: [orders[0].real_at, orders[1].real_at],
        bodies: bothOrders(requestParams(sampling, routing, row), (i) => turingMessages(prompt.text, turns, action, orders[i])),
      };
    },
    result: (_key, at, outcomes) => turingResult([turingOrderResult(at[0], outcomes[0]), turingOrderResult(at[1], outcomes[1])]),
  };
}

/**
 * `--mode pairwise --reference FILE`: for a row present in both files (same row key), the judge
 * sees the history, the action, both cleaned predictions in both orders and the real observation,
 * and names the closer prediction. A row missing from the reference is written as final with
 * NO_REFERENCE and never sent.
 */
export function pairwiseMode({ prompt, sampling, routing = {} }: ChoiceAsking, reference: ReferenceFile): ChoiceMode {
  /** Why a row is written without asking, when its own fields tell. */
  const unasked = (row: PredictionRow, key: string): Unasked | undefined =>
    !reference.has(key) ? 'no-reference' : !row.gen ? 'no-generation' : undefined;
  return {
    field: 'pairwise',
    unasked,
    ask: async (row, key) => {
      const why = unasked(row, key);
      if (why !== undefined) return why;
      const other = await reference.prediction(key);
      // A reference without a generation has nothing to compare with: final, as a missing row.
      if (other === undefined) return 'no-reference';
      const candidate = predictionOf(row.gen);
      const truth = cleanObservation(groundTruth(row));
      const turns = history(row);
      const action = currentAction(row);
      const orders = pairwiseOrders(cleanObservation(candidate.text), cleanObservation(other));
      return {
        prediction: candidate,
        reference: other,
        at: [orders[0].candidate_at, orders[1].candidate_at],
        bodies: bothOrders(requestParams(sampling, routing, row), (i) => pairwiseMessages(prompt.text, turns, action, orders[i], truth)),
      };
    },
    result: (key, at, outcomes, shown) =>
      pairwiseResult(key, [pairwiseOrderResult(at[0], outcomes[0]), pairwiseOrderResult(at[1], outcomes[1])], shown),
  };
}

/** How both choice modes ask their judge. */
export interface ChoiceJudging extends ChoiceAsking {
  /** Words failed requests; the requests go through the job's chat. */
  pool: Pick<EndpointPool, 'describe'>;
  parseAttempts: number;
}

/** `awb judge --mode turing` with one judge. */
export function turingStage(judging: ChoiceJudging): Stage<typeof predictionRowSchema> {
  return choiceStage(turingMode(judging), judging);
}

/** `awb judge --mode pairwise` with one judge; rows without a reference are written without asking. */
export function pairwiseStage(judging: ChoiceJudging, reference: ReferenceFile): Stage<typeof predictionRowSchema> {
  return choiceStage(pairwiseMode(judging, reference), judging);
}

/** A row of a choice mode as one judge writes it: the mode's object and the row's status. */
function choiceStage(mode: ChoiceMode, { pool, parseAttempts }: ChoiceJudging): Stage<typeof predictionRowSchema> {
  const streak = new ParseStreak();
  const written = (key: string, at: readonly [Side, Side], outcomes: [OrderOutcome, OrderOutcome], ask?: ChoiceAsk) => ({
    [mode.field]: mode.result(key, at, outcomes, ask?.reference),
    ...rowStatus(outcomes),
    ...(ask === undefined ? {} : { extracted_output: ask.prediction.text }),
  });
  const unasked = (key: string, why: Unasked) => {
    const none = notAsked(why);
    return { ...written(key, ['A', 'B'], [none, none]), ...unaskedStatus(why) };
  };
  return {
    ...CHOICE_STAGE,
    requests: async (row, key) => {
      const ask = await mode.ask(row, key);
      return typeof ask === 'string' ? [] : [...ask.bodies];
    },
    job: (row, key, chat) => {
      // Settled before the row is queued, so such rows take no request slot.
      const why = mode.unasked(row, key);
      if (why !== undefined) return async () => unasked(key, why);
      return async (signal) => {
        const ask = await mode.ask(row, key);
        if (typeof ask === 'string') return unasked(key, ask);
        const outcomes = await askBoth(pool, parseAttempts, encodeBoth(chat, ask.bodies), chat, signal, streak);
        return outcomes && written(key, ask.at, outcomes, ask);
      };
    },
  };
}

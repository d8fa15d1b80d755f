import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { ChatRequest, EndpointPool } from '../endpoints/index.js';
import type { Routing, Sampling } from '../infer/index.js';
import type { RubricSet } from '../rubrics/index.js';
import { isNonEmptyFile } from '../output/index.js';
import { isBlank, readLineBytes, readRow } from '../rows/index.js';
import type { RowChat, Stage } from '../runner/index.js';
import { DIMENSIONS, NO_GENERATION, predictionRowSchema, type JudgeFailure } from '../schemas/index.js';
import type { JudgeFields, JudgeRepeat, PanelEntry, PredictionRow, Usage } from '../schemas/index.js';
import { sumUsage } from './ask.js';
import { NO_GRADES, RUBRIC_STAGE, gradeOnce, judgeRequest, repeated } from './judge.js';
import { ParseStreak } from './parse-streak.js';

/** How a panel's grade of a dimension comes from its members' valid grades. */
export type PanelRule = 'mean' | 'median';

export interface PanelMember {
  /** The model, as given to --judge-model. */
  name: string;
  pool: Pick<EndpointPool, 'describe'>;
}

/** What an earlier run wrote for a row this run redoes: its members' judgements (of the mode's kind), and which prediction they judged. */
export interface EarlierPanel<E = PanelEntry> {
  extracted: string;
  entries: E[];
}

/** What resume reads of a member's judgement, in any mode. */
export interface MemberStatus {
  judge: string;
  failed: number;
  error_message?: string;
  judge_failure?: JudgeFailure;
}

/** A panel's stage, and what member `n`'s own batch holds of a row (--batch: a batch per member). */
export interface PanelStage extends Stage<typeof predictionRowSchema> {
  /** Member `n`'s request for the row, or none when the row asks nothing of it (no prediction, or a final judgement kept). */
  memberRequests(n: number, row: PredictionRow, key: string): Promise<ChatRequest[]>;
}

/**
 * `awb judge --judge-model a,b,c`: every row judged by each member through its own chat
 * (`chatOf(n, key)`: member n's pool, or its batch first), at the same time: the row holds
 * one slot of --concurrency. With `repeat` K, each member judges the row K times, one after
 * the other, combined as one judge's --repeat row is (its entry keeps them in judge_repeats).
 * The official fields hold the panel's grades (combinePanel), `panel` each member's. A row
 * redone after an interrupted or failed run asks only the members without a final judgement
 * of the same prediction (`earlier`); a member asked again is asked its K again.
 */
export function panelStage(
  members: readonly PanelMember[],
  judging: { rubrics: RubricSet; sampling: Sampling; parseAttempts: number; routing?: Routing; repeat?: number },
  rule: PanelRule,
  earlier: (key: string) => EarlierPanel | undefined,
  chatOf: (n: number, key: string) => RowChat,
): PanelStage {
  const { rubrics, sampling, parseAttempts, routing = {}, repeat } = judging;
  // Each member on its own: one model that is not a judge stops the panel, named.
  const streaks = members.map((m) => new ParseStreak(m.name));
  /** The row's request and, per member, the final judgement an earlier run made of the same prediction. */
  const pending = (row: PredictionRow, key: string) => {
    const built = judgeRequest(row, rubrics, sampling, routing);
    if (!built) return undefined;
    const before = earlier(key);
    const kept = before?.extracted === digest(built.prediction.text) ? before.entries : [];
    return { ...built, kept: members.map((m) => kept.find((e) => e.judge === m.name && isFinal(e))) };
  };
  /** What a member asks of a row: its request, K times with --repeat (each its own place in the member's requests). */
  const asked = (body: ChatRequest) => Array.from({ length: repeat ?? 1 }, () => body);
  return {
    ...RUBRIC_STAGE,
    requests: async (row, key) => {
      const p = pending(row, key);
      return p ? p.kept.flatMap((k) => (k ? [] : asked(p.body))) : [];
    },
    memberRequests: async (n, row, key) => {
      const p = pending(row, key);
      return p && !p.kept[n] ? asked(p.body) : [];
    },
    job: (row, key) => {
      if (!row.gen) {
        const none = { total_score: 0, failed: 1, error_message: NO_GENERATION, judge_failure: 'no-generation' } as const;
        return async () => ({ ...none, panel: members.map((m) => ({ judge: m.name, scores: { ...NO_GRADES }, ...none })) });
      }
      const { body: request, prediction, kept } = pending(row, key)!;
      const extracted = prediction.text;
      // Each member's body is encoded now (its pool's model), while the row is in hand; a kept judgement is reused as it is.
      const work = members.map((m, n) => {
        if (kept[n]) return kept[n];
        const chat = chatOf(n, key);
        return { member: m, chat, body: chat.encode(request) };
      });
      return async (signal) => {
        const entries = await Promise.all(
          work.map(async (w, n) => {
            if (!('member' in w)) return w;
            const once = (s: AbortSignal, i: number) =>
              gradeOnce(w.member.pool, w.chat, i, w.body, extracted, parseAttempts, s, streaks[n]!);
            const one = repeat === undefined ? await once(signal, 0) : await repeated(repeat, once, signal, extracted);
            return one && entryOf(w.member.name, one);
          }),
        );
        if (entries.some((e) => e === undefined)) return undefined;
        const all = entries as PanelEntry[];
        return { ...combinePanel(all, rule), extracted_output: extracted, ...panelUsage(all) };
      };
    },
  };
}

/** A member's judgement is final when it judged the row or its replies could not be parsed; a failed request is asked again. */
export function isFinal(e: MemberStatus): boolean {
  return e.failed === 0 || e.judge_failure === 'unparsed';
}

function entryOf(judge: string, f: JudgeFields & { judge_repeats?: JudgeRepeat[] }): PanelEntry {
  return {
    judge,
    scores: Object.fromEntries(DIMENSIONS.map((d) => [d, f[d] ?? 0])) as PanelEntry['scores'],
    total_score: f.total_score,
    failed: f.failed,
    ...(f.error_message === undefined ? {} : { error_message: f.error_message }),
    ...(f.judge_failure === undefined ? {} : { judge_failure: f.judge_failure }),
    ...(f.judge_raw_output === undefined ? {} : { judge_raw_output: f.judge_raw_output }),
    ...(f.judge_attempts === undefined ? {} : { judge_attempts: f.judge_attempts }),
    ...(f.judge_usage === undefined ? {} : { judge_usage: f.judge_usage }),
    ...(f.judge_batch_usage === undefined ? {} : { judge_batch_usage: f.judge_batch_usage }),
    ...(f.judge_endpoint === undefined ? {} : { judge_endpoint: f.judge_endpoint }),
    ...(f.judge_repeats === undefined ? {} : { judge_repeats: f.judge_repeats }),
  };
}

/** The members' sums: what score counts and prices (the part the Batch API answered at its discount). */
export function panelUsage(entries: readonly Pick<PanelEntry, 'judge_usage' | 'judge_batch_usage' | 'judge_attempts'>[]) {
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  let batch: Usage | undefined;
  for (const e of entries) {
    sumUsage(usage, e.judge_usage);
    if (e.judge_batch_usage) sumUsage((batch ??= { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }), e.judge_batch_usage);
  }
  return {
    judge_usage: usage,
    ...(batch && { judge_batch_usage: batch }),
    judge_attempts: entries.reduce((n, e) => n + (e.judge_attempts ?? 0), 0),
  };
}

/**
 * The panel's fields from its members' judgements (pure). Each dimension: the mean (or median)
 * of the grades of the members that graded the row, zeros (no grade) left out; the total, as
 * the official rule has it, the mean of the dimensions that have a grade. A member whose
 * request failed leaves the row to redo (its error, not final); when no member graded it, the
 * first member's unparsed reply is the row's error (final, as for one judge).
 */
export function combinePanel(entries: readonly PanelEntry[], rule: PanelRule): JudgeFields {
  const panel = [...entries];
  const unsent = entries.find((e) => !isFinal(e));
  if (unsent) return { ...NO_GRADES, total_score: 0, failed: 1, ...memberError(unsent), panel };
  const valid = entries.filter((e) => e.failed === 0);
  if (!valid.length) return { ...NO_GRADES, total_score: 0, failed: 1, ...memberError(entries[0]!), panel };
  const scores = Object.fromEntries(
    DIMENSIONS.map((d) => {
      const grades = valid.map((e) => e.scores[d]).filter((g) => g > 0);
      return [d, grades.length ? byRule(rule, grades) : 0];
    }),
  ) as PanelEntry['scores'];
  const graded = Object.values(scores).filter((g) => g > 0);
  return { total_score: graded.length ? mean(graded) : 0, ...scores, failed: 0, panel };
}

/** A member's failure as the row's: its code, and its words naming the member (a member without a code is asked again). */
export function memberError(e: MemberStatus): { error_message: string; judge_failure: JudgeFailure } {
  const failure = e.judge_failure ?? 'request-failed';
  return { error_message: `${e.error_message ?? 'Judge scoring failed'} (panel member ${e.judge})`, judge_failure: failure };
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The members' values combined by the panel's rule. */
export function byRule(rule: PanelRule, xs: readonly number[]): number {
  return rule === 'mean' ? mean(xs) : median(xs);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** What a kept judgement is known by: the prediction it judged, hashed. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64');
}

/**
 * The members' judgements of the rows of an earlier output that a resume will redo (rows not
 * judged, with a `panel` of `entry`'s kind: the mode's), by row key: read before the run, so a
 * redone row asks only the members that have no final judgement yet. Rows judged are kept by
 * the run itself.
 */
export async function earlierPanels<E extends MemberStatus>(
  output: string,
  retryFailed: boolean,
  entry: z.ZodType<E>,
): Promise<Map<string, EarlierPanel<E>>> {
  const found = new Map<string, EarlierPanel<E>>();
  if (!(await isNonEmptyFile(output))) return found;
  for await (const line of readLineBytes(output)) {
    if (isBlank(line.bytes) || !line.terminated) continue;
    const read = readRow(line.bytes, predictionRowSchema, { file: output, lineNo: line.lineNo, terminated: true });
    if (!read.ok || Number(read.parsed.failed) === 0 || typeof read.parsed.extracted_output !== 'string') continue;
    const entries = entry.array().safeParse(read.parsed.panel);
    if (!entries.success) continue;
    // --retry-failed asks again the members whose replies could not be parsed, as it does a single judge.
    const final = entries.data.filter((e) => e.failed === 0 || (!retryFailed && isFinal(e)));
    if (final.length) found.set(read.key, { extracted: digest(read.parsed.extracted_output), entries: final });
  }
  return found;
}

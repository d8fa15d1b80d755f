import { choiceHits, orderFigures, type PairwiseResult, type TuringResult, type Usage } from '../schemas/index.js';
import type { ChoicePanelEntry, JudgeFailure, PredictionRow } from '../schemas/index.js';
import type { RowChat } from '../runner/index.js';
import { sumUsage } from './ask.js';
import { CHOICE_STAGE, askBoth, encodeBoth, notAsked, rowStatus, unaskedStatus, type ChoiceMode, type Unasked } from './choice-stage.js';
import type { OrderOutcome } from './choice-results.js';
import { ParseStreak } from './parse-streak.js';
import { byRule, digest, isFinal, memberError, panelUsage } from './panel.js';
import type { EarlierPanel, PanelMember, PanelRule, PanelStage } from './panel.js';

/** The figures of a panel's choice row, 0..1 (null: no member counted). */
export interface ChoicePanelFigures {
  rate: number | null;
  position_consistency: number | null;
  failed: 0 | 1;
  error_message?: string;
  judge_failure?: JudgeFailure;
}

/**
 * `awb judge --judge-model a,b,c --mode turing|pairwise`: every member judges every row in both
 * orders, through its own chat (`chatOf(n, key)`: its pool, or its batch first), the members at
 * the same time: the row holds one slot of --concurrency. Each member's judgement is kept whole
 * in `panel`; the row's mode object holds the panel's figures (combineChoicePanel). A row redone
 * after an interrupted or failed run asks only the members without a final judgement of the same
 * prediction (`earlier`), both orders each.
 */
export function choicePanelStage(
  mode: ChoiceMode,
  members: readonly PanelMember[],
  parseAttempts: number,
  rule: PanelRule,
  earlier: (key: string) => EarlierPanel<ChoicePanelEntry> | undefined,
  chatOf: (n: number, key: string) => RowChat,
): PanelStage {
  // Each member on its own: one model that is not a judge stops the panel, named.
  const streaks = members.map((m) => new ParseStreak(m.name));
  /** The row's requests and, per member, the final judgement an earlier run made of the same prediction; or why it is not asked. */
  const pending = async (row: PredictionRow, key: string) => {
    const ask = await mode.ask(row, key);
    if (typeof ask === 'string') return ask;
    const before = earlier(key);
    const kept = before?.extracted === digest(ask.prediction.text) ? before.entries : [];
    return { ...ask, kept: members.map((m) => kept.find((e) => e.judge === m.name && isFinal(e))) };
  };
  /** A row written without asking: the panel's object and every member's, each with why. */
  const unasked = (key: string, why: Unasked) => {
    const none = notAsked(why);
    const own = mode.result(key, ['A', 'B'], [none, none]);
    const entries = members.map((m) => ({ judge: m.name, [mode.field]: own, ...unaskedStatus(why) }));
    const figures = { rate: null, position_consistency: null, failed: 1 as const };
    return { [mode.field]: panelObject(mode, key, figures), ...unaskedStatus(why), panel: entries };
  };
  return {
    ...CHOICE_STAGE,
    requests: async (row, key) => {
      const p = await pending(row, key);
      return typeof p === 'string' ? [] : p.kept.flatMap((k) => (k ? [] : [...p.bodies]));
    },
    memberRequests: async (n, row, key) => {
      const p = await pending(row, key);
      return typeof p === 'string' || p.kept[n] ? [] : [...p.bodies];
    },
    job: (row, key) => {
      // Settled before the row is queued, so such rows take no request slot.
      const why = mode.unasked(row, key);
      if (why !== undefined) return async () => unasked(key, why);
      return async (signal) => {
        const p = await pending(row, key);
        if (typeof p === 'string') return unasked(key, p);
        const entries = await Promise.all(
          members.map(async (m, n) => {
            if (p.kept[n]) return p.kept[n];
            const chat = chatOf(n, key);
            const outcomes = await askBoth(m.pool, parseAttempts, encodeBoth(chat, p.bodies), chat, signal, streaks[n]!);
            // A member's own object leaves the reference text to the row's.
            return outcomes && memberEntry(m.name, mode.field, mode.result(key, p.at, outcomes), outcomes);
          }),
        );
        if (entries.some((e) => e === undefined)) return undefined;
        const all = entries as ChoicePanelEntry[];
        const { error_message, judge_failure, ...figures } = combineChoicePanel(mode.field, all, rule);
        const fields = {
          [mode.field]: panelObject(mode, key, figures, p.reference),
          failed: figures.failed,
          ...(error_message === undefined ? {} : { error_message }),
          ...(judge_failure === undefined ? {} : { judge_failure }),
          extracted_output: p.prediction.text,
          panel: all,
          ...panelUsage(all),
        };
        return fields;
      };
    },
  };
}

/** The row's mode object: the panel's figures under the mode's names (`fooling`, `win`). */
function panelObject(mode: ChoiceMode, key: string, f: Omit<ChoicePanelFigures, 'error_message' | 'judge_failure'>, reference?: string) {
  const common = { position_consistency: f.position_consistency, failed: f.failed };
  if (mode.field === 'turing') return { fooling: f.rate, ...common };
  return { reference_key: key, ...(reference === undefined ? {} : { reference_output: reference }), win: f.rate, ...common };
}

function memberEntry(
  judge: string,
  field: ChoiceMode['field'],
  result: TuringResult | PairwiseResult,
  outcomes: readonly [OrderOutcome, OrderOutcome],
): ChoicePanelEntry {
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (const o of outcomes) sumUsage(usage, o.judge_usage);
  const endpoint = outcomes[1].judge_endpoint ?? outcomes[0].judge_endpoint;
  return {
    judge,
    [field]: result,
    ...rowStatus(outcomes),
    judge_attempts: outcomes[0].attempts + outcomes[1].attempts,
    judge_usage: usage,
    ...(endpoint === undefined ? {} : { judge_endpoint: endpoint }),
  };
}

/**
 * The panel's figures of a row from its members' judgements (pure): the mean (or median) of the
 * figures of the members with both orders answered. A member whose request failed leaves the row
 * to redo (its error, not final); when no member answered both orders, the first member's error
 * is the row's (final, as for one judge).
 */
export function combineChoicePanel(field: ChoiceMode['field'], entries: readonly ChoicePanelEntry[], rule: PanelRule): ChoicePanelFigures {
  const none = { rate: null, position_consistency: null, failed: 1 as const };
  const unsent = entries.find((e) => !isFinal(e));
  if (unsent) return { ...none, ...memberError(unsent) };
  const counted = entries.flatMap((e) => orderFigures(choiceHits(field === 'turing' ? e.turing : e.pairwise)) ?? []);
  if (!counted.length) return { ...none, ...memberError(entries[0]!) };
  return {
    rate: byRule(
      rule,
      counted.map((c) => c.rate),
    ),
    position_consistency: byRule(
      rule,
      counted.map((c) => c.consistent),
    ),
    failed: 0,
  };
}

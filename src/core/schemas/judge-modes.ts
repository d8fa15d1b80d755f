import { z } from 'zod';
import { usageSchema } from './prediction-row.js';
import { judgeFieldsSchema } from './judged-row.js';
import { judgeFailureSchema, judgeRepeatsSchema } from './judge-repeat.js';

/*
 * The fields the judge modes of issue 14 append to a prediction row. Each
 * mode writes its own object (`turing`, `pairwise`, `judge_repeats`), which is
 * how score tells the modes apart, plus the top-level `failed` that resume
 * already reads (0 done, 1 to be asked again).
 */

const side = z.enum(['A', 'B']);
const flag = z.union([z.literal(0), z.literal(1)]);

/** What every order of a choice mode records: the judge's answer and how it was obtained. */
const orderFields = {
  /** The parsed answer; null when no reply could be parsed within --parse-attempts (or the row could not be asked). */
  choice: side.nullable(),
  /** The last reply, as the judge wrote it. */
  raw: z.string().optional(),
  /** Requests sent for this order (0: not asked, e.g. no generation). */
  attempts: z.number().int().min(0),
  /** Why the order has no choice: in words, and as a code. */
  error: z.string().optional(),
  failure: judgeFailureSchema.optional(),
  judge_usage: usageSchema.optional(),
  judge_latency_ms: z.number().optional(),
  judge_endpoint: z.string().optional(),
};

/**
 * A row is failed when either order has no choice: score counts only rows
 * with both answers, so that every counted row puts the subject once at A and
 * once at B and a position preference cancels exactly.
 */
function checkOrders<O extends { choice: 'A' | 'B' | null }>(
  at: (o: O) => 'A' | 'B',
  derived: (o: O) => unknown,
  expected: (o: O) => unknown,
  derivedName: string,
) {
  return (v: { orders: [O, O]; failed: 0 | 1 }, ctx: z.RefinementCtx) => {
    if (at(v.orders[0]) === at(v.orders[1]))
      ctx.addIssue({ code: 'custom', path: ['orders'], message: 'the two orders must put the subject once at A and once at B' });
    v.orders.forEach((o, i) => {
      if (derived(o) !== expected(o))
        ctx.addIssue({
          code: 'custom',
          path: ['orders', i, derivedName],
          message: `does not match choice and position (expected ${JSON.stringify(expected(o))})`,
        });
    });
    const failed = v.orders.some((o) => o.choice === null) ? 1 : 0;
    if (v.failed !== failed)
      ctx.addIssue({ code: 'custom', path: ['failed'], message: `must be ${failed}: 1 exactly when an order has no choice` });
  };
}

const turingOrderSchema = z.object({
  /** Where the real observation was shown. */
  real_at: side,
  ...orderFields,
  /** Whether the judge named the real observation; null without a choice. Derived, kept for people reading the file. */
  picked_real: z.boolean().nullable(),
});
export type TuringOrderResult = z.infer<typeof turingOrderSchema>;

export const turingResultSchema = z.object({ orders: z.tuple([turingOrderSchema, turingOrderSchema]), failed: flag }).superRefine(
  checkOrders<TuringOrderResult>(
    (o) => o.real_at,
    (o) => o.picked_real,
    (o) => (o.choice === null ? null : o.choice === o.real_at),
    'picked_real',
  ),
);
export type TuringResult = z.infer<typeof turingResultSchema>;

const pairwiseOrderSchema = z.object({
  /** Where this file's prediction (the candidate) was shown. */
  candidate_at: side,
  ...orderFields,
  /** Which prediction the judge found closer to the real observation; null without a choice. Derived. */
  preferred: z.enum(['candidate', 'reference']).nullable(),
});
export type PairwiseOrderResult = z.infer<typeof pairwiseOrderSchema>;

export const pairwiseResultSchema = z
  .object({
    /** The row key of the reference row it was paired with (the same dataset row, so the same key as this row's). */
    reference_key: z.string().min(1),
    /** The reference prediction as shown to the judge (cleaned as for the rubric judge). */
    reference_output: z.string().optional(),
    orders: z.tuple([pairwiseOrderSchema, pairwiseOrderSchema]),
    failed: flag,
  })
  .superRefine(
    checkOrders<PairwiseOrderResult>(
      (o) => o.candidate_at,
      (o) => o.preferred,
      (o) => (o.choice === null ? null : o.choice === o.candidate_at ? 'candidate' : 'reference'),
      'preferred',
    ),
  );
export type PairwiseResult = z.infer<typeof pairwiseResultSchema>;

/**
 * Per order, whether one judge's answer is the event its mode counts: turing, it took the
 * prediction for the real observation (fooled); pairwise, it preferred the candidate. null: no
 * choice, or no such object (a panel member's without one).
 */
export function choiceHits(result: TuringResult | PairwiseResult | undefined): [boolean | null, boolean | null] {
  if (!result) return [null, null];
  const hit = (o: TuringOrderResult | PairwiseOrderResult) =>
    'picked_real' in o ? (o.picked_real === null ? null : !o.picked_real) : o.preferred === null ? null : o.preferred === 'candidate';
  return [hit(result.orders[0]), hit(result.orders[1])];
}

/** A row's figures from its two orders: the share of them that count, and 1 when they agree; undefined without both answers. */
export function orderFigures([a, b]: readonly [boolean | null, boolean | null]): { rate: number; consistent: number } | undefined {
  if (a === null || b === null) return undefined;
  return { rate: (Number(a) + Number(b)) / 2, consistent: a === b ? 1 : 0 };
}

/** A share of a row's two orders, 0..1: one judge's is 0, 1/2 or 1; a panel's combines its members'. */
const share = z.number().min(0).max(1);

/** A panel's row is failed exactly when no member counted, so that it has no figure. */
function checkPanel(rate: 'fooling' | 'win') {
  return (v: Partial<Record<'fooling' | 'win', number | null>> & { failed: 0 | 1 }, ctx: z.RefinementCtx) => {
    if ((v[rate] === null) !== (v.failed === 1))
      ctx.addIssue({ code: 'custom', path: ['failed'], message: `must be 1 exactly when ${rate} is null` });
  };
}

/**
 * A panel's figures of a row (`--judge-model a,b,c`), 0..1, each the mean (or `--panel median`)
 * of its members' with both orders answered: `fooling` (turing) or `win` (pairwise), the share
 * of the two orders that counts; `position_consistency`, 1 when a member's orders agree. null,
 * with failed 1, when no member counted.
 */
export const turingPanelResultSchema = z
  .object({ fooling: share.nullable(), position_consistency: share.nullable(), failed: flag })
  .superRefine(checkPanel('fooling'));
export type TuringPanelResult = z.infer<typeof turingPanelResultSchema>;

export const pairwisePanelResultSchema = z
  .object({
    reference_key: z.string().min(1),
    reference_output: z.string().optional(),
    win: share.nullable(),
    position_consistency: share.nullable(),
    failed: flag,
  })
  .superRefine(checkPanel('win'));
export type PairwisePanelResult = z.infer<typeof pairwisePanelResultSchema>;

/**
 * One member's judgement of a choice row judged by a panel, kept in the row's `panel` in the
 * members' order: its own mode object (both orders, each with its reply, attempts, usage and
 * endpoint; a pairwise one without the reference text, which the row's object holds) and its
 * status, as one judge's row has them.
 */
export const choicePanelEntrySchema = z.object({
  judge: z.string(),
  turing: turingResultSchema.optional(),
  pairwise: pairwiseResultSchema.optional(),
  failed: flag,
  error_message: z.string().optional(),
  judge_failure: judgeFailureSchema.optional(),
  /** Requests sent over both orders. */
  judge_attempts: z.number().int().min(0).optional(),
  judge_usage: usageSchema.optional(),
  judge_endpoint: z.string().optional(),
});
export type ChoicePanelEntry = z.infer<typeof choicePanelEntrySchema>;

/**
 * What a choice mode appends to a row besides its mode object: the prediction text it showed
 * (`extracted_output`), and with a panel every member's entry and their sums.
 */
const choiceRowFields = {
  failed: flag,
  extracted_output: z.string().optional(),
  error_message: z.string().optional(),
  judge_failure: judgeFailureSchema.optional(),
  panel: z.array(choicePanelEntrySchema).optional(),
  judge_usage: usageSchema.optional(),
  judge_attempts: z.number().int().min(0).optional(),
};

/** What `--mode turing` appends to a row. */
export const turingFieldsSchema = z.object({ turing: z.union([turingResultSchema, turingPanelResultSchema]), ...choiceRowFields });

/** What `--mode pairwise` appends to a candidate row. */
export const pairwiseFieldsSchema = z.object({ pairwise: z.union([pairwiseResultSchema, pairwisePanelResultSchema]), ...choiceRowFields });

/**
 * What `--repeat K` adds to the rubric judge's fields: the K judgements; the
 * official fields (five dimensions, total_score, failed) then hold their
 * combination (combineRepeats in core/judge).
 */
export const repeatFieldsSchema = z.object({ judge_repeats: judgeRepeatsSchema });

/**
 * The fields any judge mode writes, which every mode replaces: a judged file given as another
 * mode's predictions keeps no earlier judgement, which would tell score the wrong mode or leave
 * stale grades beside the new choices.
 */
export const judgeOutputFields: readonly string[] = [
  ...new Set([judgeFieldsSchema, repeatFieldsSchema, turingFieldsSchema, pairwiseFieldsSchema].flatMap((s) => Object.keys(s.shape))),
];

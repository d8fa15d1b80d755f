import type { PairwiseOrderResult, PairwiseResult, TuringOrderResult, TuringResult } from '../schemas/index.js';
import { pairwisePick, turingPick, type Side } from './choice-messages.js';
import type { Choice } from './choice-parse.js';

/** How one order went, as the runner knows it: everything but the derived fields. */
export type OrderOutcome = Omit<TuringOrderResult, 'real_at' | 'picked_real' | 'choice'> & { choice: Choice | null };

/** One Turing order as stored, with `picked_real` derived from the choice and where the real observation was. */
export function turingOrderResult(realAt: Side, outcome: OrderOutcome): TuringOrderResult {
  return { real_at: realAt, ...outcome, picked_real: outcome.choice === null ? null : turingPick(realAt, outcome.choice) === 'real' };
}

export function pairwiseOrderResult(candidateAt: Side, outcome: OrderOutcome): PairwiseOrderResult {
  return { candidate_at: candidateAt, ...outcome, preferred: outcome.choice === null ? null : pairwisePick(candidateAt, outcome.choice) };
}

/** A row is failed (and asked again on resume) when either order has no choice. */
function failedOf(orders: readonly [{ choice: Choice | null }, { choice: Choice | null }]): 0 | 1 {
  return orders.some((o) => o.choice === null) ? 1 : 0;
}

export function turingResult(orders: [TuringOrderResult, TuringOrderResult]): TuringResult {
  return { orders, failed: failedOf(orders) };
}

export function pairwiseResult(
  referenceKey: string,
  orders: [PairwiseOrderResult, PairwiseOrderResult],
  referenceOutput?: string,
): PairwiseResult {
  return {
    reference_key: referenceKey,
    ...(referenceOutput === undefined ? {} : { reference_output: referenceOutput }),
    orders,
    failed: failedOf(orders),
  };
}

import type { ChatMessage } from '../endpoints/index.js';
import type { Job } from '../runner/index.js';
import type { DatasetRow, PredictionFields, Usage } from '../schemas/index.js';
import { rolloutPlan, stepMessages, type Horizon, type RolloutPlan, type RolloutStep } from './rollout.js';
import type { FinishedStep, StepAnswer, StepStore } from './step-store.js';

/** One generated observation as a row records it (rolloutStepSchema). */
interface RolloutEntry {
  turn: number;
  gen: string;
  finish_reason?: string | null;
  usage?: Usage | null;
  shared?: true;
}

export interface RolloutContext {
  horizon: Horizon;
  steps: StepStore;
  /** Sends the row's request number `n` with these messages: its fields, a failure's (`error`), or undefined when cancelled. */
  ask(n: number, messages: ChatMessage[], signal: AbortSignal): Promise<PredictionFields | undefined>;
}

/** What a walk took at a step: its answer (kept, or sent), a failure that outlasted the retries, or undefined: the walk stops there. */
export type TakenStep = { ok: true; step: FinishedStep } | { ok: false; error: string } | undefined;

/**
 * A row's rollout walked in order, the one walk of the job (online) and of --batch's rounds: `take` gives each
 * step's answer, given the messages that ask it (built from the observations the steps before it generated), and
 * `each` sees each step answered before the final one. Ends at the final step, a failed one, or the step `take`
 * left (undefined: cancelled; a round's step not kept yet): that step and what was taken of it.
 */
export async function walkRollout(
  row: DatasetRow,
  plan: RolloutPlan,
  take: (step: RolloutStep, n: number, messages: () => ChatMessage[]) => Promise<TakenStep>,
  each: (step: RolloutStep, n: number, finished: FinishedStep) => void = () => {},
): Promise<{ step: RolloutStep; got: TakenStep }> {
  const generated: string[] = [];
  for (const [n, step] of plan.steps.entries()) {
    const got = await take(step, n, () => stepMessages(row, plan, generated, n));
    if (!got?.ok || step.final) return { step, got };
    each(step, n, got.step);
    generated.push(got.step.fields.gen ?? '');
  }
  throw new Error('rollout: a plan always ends with its final step');
}

/**
 * A free-running row's job: its rollout's steps one after another, each
 * extending the previous one's conversation, each taken from the store when
 * finished already (an earlier run, another row of the trajectory) and kept
 * there the moment it is answered. The row's fields are its last step's, with
 * the horizon and the generated observations. A step that fails for good
 * fails the row (`error`), which a resume redoes from the steps kept.
 */
export function rolloutJob(row: DatasetRow, key: string, ctx: RolloutContext): Job {
  const plan = rolloutPlan(row, ctx.horizon);
  return async (signal, advanced) => {
    const rollout: RolloutEntry[] = [];
    let paid: Usage | undefined;
    const recorded = () => ({
      horizon: ctx.horizon,
      ...(rollout.length ? { rollout } : {}),
      ...(paid ? { rollout_usage: paid } : {}),
    });
    const take = (step: RolloutStep, n: number, messages: () => ChatMessage[]) => {
      const send = async (): Promise<StepAnswer> => {
        const fields = await ctx.ask(n, messages(), signal);
        if (!fields) return undefined;
        return fields.error !== undefined ? { ok: false, error: fields.error } : { ok: true, fields };
      };
      // The row's own empty prediction is a failure: asking again (--retry-failed) must send it again.
      return ctx.steps.step(step.key, step.turn, key, send, step.final ? (s) => s.fields.gen === '' : undefined);
    };
    const { step, got } = await walkRollout(row, plan, take, (earlier, n, { fields, by }) => {
      // The trajectory's next row starts its rollout from a prompt that extends this first one: a cache now holds it.
      if (n === 0) advanced?.();
      const shared = by !== key;
      rollout.push({
        turn: earlier.turn,
        gen: fields.gen ?? '',
        finish_reason: fields.finish_reason ?? null,
        ...(fields.usage ? { usage: fields.usage } : {}),
        ...(shared ? { shared: true as const } : {}),
      });
      if (!shared && fields.usage) paid = sumUsage(paid, fields.usage);
    });
    if (!got) return undefined;
    if (got.ok) return { ...got.step.fields, ...recorded() };
    const error = step.final ? got.error : `the rollout's step for turn ${step.turn}: ${got.error}`;
    return { gen: '', error, ...recorded() };
  };
}

const COUNTS = ['prompt_tokens', 'completion_tokens', 'total_tokens', 'reasoning_tokens', 'cached_tokens'] as const;

/** Two usages' token counts added, each count kept only where some step reported it. */
function sumUsage(a: Usage | undefined, b: Usage): Usage {
  const out: Usage = {};
  for (const k of COUNTS) {
    const x = a?.[k];
    const y = b[k];
    if (x !== undefined || y !== undefined) out[k] = (x ?? 0) + (y ?? 0);
  }
  return out;
}

import { createHash } from 'node:crypto';
import type { ChatMessage } from '../endpoints/index.js';
import { domainOfTask } from '../domains.js';
import { currentAction } from '../rows/index.js';
import type { DatasetRow, Horizon } from '../schemas/index.js';

export type { Horizon };
import { updateText } from '../text-parts.js';
import { conversation, earlierTurns } from './messages.js';

/*
 * Free-running inference (issue 53, `infer --horizon H`): the observations of
 * a row's last H earlier turns are the model's own predictions, generated in
 * turn order from the row's real actions; the turns before them keep the real
 * observations (the anchor). Each step's conversation extends the previous
 * step's by the generated observation and the next action, so a prefix cache
 * serves every step but the first from the one before it.
 *
 * Pure functions of a row: no I/O.
 */

/** The first turn whose observation a row at `turn` generates (`turn` itself when none: teacher-forced). */
export function anchorTurn(turn: number, horizon: Horizon): number {
  if (horizon === 'all') return 1;
  return Math.max(1, turn - horizon);
}

/** One request of a row's rollout. */
export interface RolloutStep {
  /** The turn whose observation it predicts (1-based); the last step predicts the row's own turn. */
  turn: number;
  /**
   * The step's identity: a hash of the trajectory (domain, id), the system
   * prompt, the real turns before the anchor and the actions up to this
   * step's. Two rows whose steps have equal keys send equal requests (given
   * the same generated observations before it), so they share the step.
   */
  key: string;
  /** The last step: the row's prediction, graded by the judge. */
  final: boolean;
}

/**
 * A row's rollout: the turns `from`…`to` whose observations are generated,
 * then the row's own turn. Rows without an earlier turn, and H = 0, have the
 * final step only.
 */
export interface RolloutPlan {
  from: number;
  /** The last generated turn (from − 1 when none). */
  to: number;
  steps: RolloutStep[];
}

/** The steps of a row's rollout at `horizon`, in the order they are sent. */
export function rolloutPlan(row: DatasetRow, horizon: Horizon): RolloutPlan {
  const earlier = earlierTurns(row);
  const from = Math.min(anchorTurn(row.turn_idx, horizon), earlier + 1);
  const base = createHash('sha256');
  base.update(JSON.stringify([domainOfTask(row.task), row.id, from]));
  updateText(base.update('\0'), row.system_str ?? '');
  for (let i = 0; i < from - 1; i++) updateText(updateText(base.update('\0'), row.prompt[i]!).update('\0'), row.response[i]!);
  let key = base.digest('base64url');
  const steps: RolloutStep[] = [];
  for (let turn = from; turn <= earlier + 1; turn++) {
    const final = turn === earlier + 1;
    key = updateText(createHash('sha256').update(key).update('\0'), actionOf(row, turn, final)).digest('base64url');
    steps.push({ turn: final ? row.turn_idx : turn, key, final });
  }
  return { from, to: earlier, steps };
}

/** The action a step ends on: the real action of a generated turn, the row's current action for its own. */
function actionOf(row: DatasetRow, turn: number, final: boolean): string {
  return final ? currentAction(row) : row.prompt[turn - 1]!;
}

/**
 * The messages of step `n` of the plan (0-based), given the observations the
 * earlier steps generated (`generated[k]` for the plan's step k). The final
 * step at H = 0 is exactly the teacher-forced request (worldModelMessages).
 */
export function stepMessages(row: DatasetRow, plan: RolloutPlan, generated: readonly string[], n: number): ChatMessage[] {
  const step = plan.steps[n]!;
  if (generated.length < n) throw new Error(`rollout: step ${n} needs ${n} generated observations, has ${generated.length}`);
  const observation = (i: number) => (i + 1 >= plan.from ? generated[i + 1 - plan.from]! : row.response[i]!);
  return conversation(row, step.final ? plan.to : step.turn - 1, observation, actionOf(row, step.turn, step.final));
}

/** Requests a row's rollout sends at most (its steps). */
export function stepCount(row: DatasetRow, horizon: Horizon): number {
  return earlierTurns(row) + 2 - Math.min(anchorTurn(row.turn_idx, horizon), earlierTurns(row) + 1);
}

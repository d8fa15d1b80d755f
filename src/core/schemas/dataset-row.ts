import { z } from 'zod';
import { domainOfTask } from '../domains.js';

/** `task`: the domain, or a path ending in it (`agentworld/terminal`); one whose last segment is empty names no domain. */
export const taskSchema = z
  .string()
  .min(1)
  .refine((task) => domainOfTask(task) !== '', 'names no domain (its part after the last "/" is empty)');

/**
 * One AgentWorldBench row: one evaluated turn of a trajectory. Extra fields
 * are allowed (and kept verbatim in outputs, which are built from the raw
 * line). `prompt`/`response` may be a bare string in hand-made files, as the
 * official script accepts.
 */
const turnList = z.union([z.array(z.string()), z.string().transform((s) => [s])]);

export const datasetRowSchema = z
  .object({
    task: taskSchema,
    id: z.union([z.number(), z.string().min(1)]),
    prompt: turnList,
    response: turnList,
    current_prompt: z.string().optional(),
    system_str: z.string().optional(),
    turn_idx: z.number().int().min(1),
    total_turns: z.number().int().min(1).optional(),
  })
  .loose();

export type DatasetRow = z.infer<typeof datasetRowSchema>;

/** Turn-index sanity beyond types: the ground truth must exist. Returns a problem or undefined. */
export function turnProblem(row: DatasetRow): { field: string; problem: string } | undefined {
  if (row.turn_idx > row.response.length) {
    return { field: 'turn_idx', problem: `is ${row.turn_idx} but response has ${row.response.length} turn(s): no ground truth` };
  }
  if (row.turn_idx > row.prompt.length && !row.current_prompt) {
    return { field: 'turn_idx', problem: `is ${row.turn_idx} but prompt has ${row.prompt.length} turn(s) and current_prompt is empty` };
  }
  return undefined;
}

import { fail } from '../errors.js';
import type { Shard } from './shard.js';

/** The engines `--shard auto` knows, each naming the shard in its own environment variables. */
export const SHARD_ENGINES = [
  { id: 'kubernetes', name: 'Kubernetes Indexed Job', index: 'JOB_COMPLETION_INDEX', count: undefined, base: 0 },
  { id: 'gitlab', name: 'GitLab CI parallel', index: 'CI_NODE_INDEX', count: 'CI_NODE_TOTAL', base: 1 },
  { id: 'circleci', name: 'CircleCI parallelism', index: 'CIRCLE_NODE_INDEX', count: 'CIRCLE_NODE_TOTAL', base: 0 },
  { id: 'buildkite', name: 'Buildkite parallelism', index: 'BUILDKITE_PARALLEL_JOB', count: 'BUILDKITE_PARALLEL_JOB_COUNT', base: 0 },
  { id: 'aws-batch', name: 'AWS Batch array job', index: 'AWS_BATCH_JOB_ARRAY_INDEX', count: 'AWS_BATCH_JOB_ARRAY_SIZE', base: 0 },
  { id: 'semaphore', name: 'Semaphore parallelism', index: 'SEMAPHORE_JOB_INDEX', count: 'SEMAPHORE_JOB_COUNT', base: 1 },
  // GitHub Actions names a matrix job only in expressions (strategy.job-index/job-total): the workflow passes them in these.
  // Any other scheduler (Slurm arrays, a shell loop) can set them too.
  { id: 'awb-variables', name: 'AWB_SHARD_INDEX', index: 'AWB_SHARD_INDEX', count: 'AWB_SHARD_COUNT', base: 0 },
] as const;

/** `github-actions`: AWB_SHARD_INDEX read in a GitHub Actions job (GITHUB_ACTIONS=true), from its matrix. */
export type ShardEngineId = (typeof SHARD_ENGINES)[number]['id'] | 'github-actions';

/** Where the count of an engine without its own (Kubernetes: the Job's spec.completions) is read, after --shard-count. */
export const SHARD_COUNT_VARIABLE = 'AWB_SHARD_COUNT';

/** A shard found in the environment: which engine said so, and the variables it was read from. */
export interface EngineShard extends Shard {
  engine: ShardEngineId;
  /** `NAME=value` of each variable read (and `--shard-count N` when the count came from it), for the run's note. */
  from: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value, or undefined when unset or blank (a CI template expanding to nothing). */
const value = (env: Env, name: string): string | undefined => (env[name]?.trim() ? env[name]!.trim() : undefined);

function wholeNumber(variable: string, raw: string, min: number, expected: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) throw fail({ kind: 'shard-engine-value', variable, value: raw, expected });
  return n;
}

/**
 * The shard of this process, from the environment of the engine running it:
 * exactly one engine's index variable must be set. `countGiven` (--shard-count)
 * gives the count where the engine has none, and must agree where it has one.
 * Pure: the environment is passed in.
 */
export function shardFromEngine(env: Env, countGiven?: number): EngineShard {
  const found = SHARD_ENGINES.filter((e) => value(env, e.index) !== undefined);
  // Two engines at once (a GitLab runner inside a Kubernetes Job) is ambiguous: the user says which with --shard K/N.
  if (found.length > 1) throw fail({ kind: 'shard-engines-several', engines: found.map((e) => ({ name: e.name, variable: e.index })) });
  const engine = found[0];
  if (!engine) throw fail({ kind: 'shard-engine-none', variables: SHARD_ENGINES.map((e) => e.index) });
  const rawIndex = value(env, engine.index)!;
  const from = [`${engine.index}=${rawIndex}`];
  const countVariable = engine.count ?? SHARD_COUNT_VARIABLE;
  const rawCount = value(env, countVariable);
  let count: number;
  if (rawCount !== undefined) {
    count = wholeNumber(countVariable, rawCount, 1, 'a whole number >= 1');
    from.push(`${countVariable}=${rawCount}`);
    if (countGiven !== undefined && countGiven !== count) {
      throw fail({ kind: 'shard-count-conflict', engine: engine.name, variable: countVariable, count, given: countGiven });
    }
  } else if (countGiven !== undefined) {
    count = countGiven;
    from.push(`--shard-count ${countGiven}`);
  } else {
    throw fail({ kind: 'shard-count-missing', engine: engine.name, variable: countVariable });
  }
  const base = engine.base;
  const expected = `a whole number from ${base} to ${count - 1 + base} (${base}-based, of ${count})`;
  const index = wholeNumber(engine.index, rawIndex, base, expected) - base + 1;
  if (index > count) throw fail({ kind: 'shard-engine-value', variable: engine.index, value: rawIndex, expected });
  const id = engine.id === 'awb-variables' && env.GITHUB_ACTIONS === 'true' ? 'github-actions' : engine.id;
  return { index, count, engine: id, from };
}

/** The engine's name as the run's note says it. */
export const shardEngineName = (id: ShardEngineId): string =>
  id === 'github-actions' ? 'GitHub Actions matrix' : SHARD_ENGINES.find((e) => e.id === id)!.name;

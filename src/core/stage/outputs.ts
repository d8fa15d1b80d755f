import { dirname, join } from 'node:path';
import type { Shard } from '../rows/index.js';
import type { InferConfig, JudgeConfig } from './config.js';

/* Where a stage writes when -o is not given: a name per run (--label, the model) and per shard. */

/** A run's name as one path segment: "Qwen/Qwen3-8B" gives "Qwen--Qwen3-8B"; nothing in it can climb out of its folder. */
export function pathSegment(name: string): string {
  const s = name
    .replace(/\//g, '--')
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '_');
  return s || 'run';
}

/** What a default output name carries of a shard (`-shard-2-of-8`), so the shards of one run never share a file. */
export function shardSuffix(shard: Shard | undefined): string {
  return shard ? `-shard-${shard.index}-of-${shard.count}` : '';
}

/**
 * infer's: a folder per run, so a second model never lands in the first one's file; a file per shard of it.
 * A free-running run (--horizon) has a folder of its own inside the model's, so its judged file lands beside it.
 */
export function inferOutput(c: Pick<InferConfig, 'output' | 'label' | 'modelName' | 'shard' | 'horizon'>): string {
  const horizon = c.horizon === undefined ? [] : [`horizon-${c.horizon}`];
  return c.output ?? join('results', pathSegment(c.label ?? c.modelName), ...horizon, `predictions${shardSuffix(c.shard)}.jsonl`);
}

/**
 * judge's: beside the predictions, a file per judge (--label) and per shard: the predictions' own
 * shard (`predictionsShard`, one infer shard's judged alone) and this run's.
 */
export function judgeOutput(
  c: Pick<JudgeConfig, 'output' | 'label' | 'predictions' | 'shard'>,
  predictionsShard: Shard | undefined,
): string {
  const named = c.label ? `-${pathSegment(c.label)}` : '';
  return c.output ?? join(dirname(c.predictions), `judged${named}${shardSuffix(predictionsShard)}${shardSuffix(c.shard)}.jsonl`);
}

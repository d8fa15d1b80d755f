import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FaultError } from '../../../src/core/errors.js';
import { SHARD_ENGINES, shardFromEngine } from '../../../src/core/rows/shard-engine.js';

/** The fault's kind thrown by `f`, or 'none'. */
function kindOf(f: () => unknown): string {
  try {
    f();
    return 'none';
  } catch (err) {
    if (err instanceof FaultError) return err.fault.kind;
    throw err;
  }
}

describe('--shard auto: the shard from the engine running awb', () => {
  it('reads each engine in its own base: the first shard is 1/N, the last N/N', () => {
    const cases: [Record<string, string>, number, number, string][] = [
      [{ JOB_COMPLETION_INDEX: '0', AWB_SHARD_COUNT: '4' }, 1, 4, 'kubernetes'],
      [{ JOB_COMPLETION_INDEX: '3', AWB_SHARD_COUNT: '4' }, 4, 4, 'kubernetes'],
      [{ CI_NODE_INDEX: '1', CI_NODE_TOTAL: '5' }, 1, 5, 'gitlab'],
      [{ CI_NODE_INDEX: '5', CI_NODE_TOTAL: '5' }, 5, 5, 'gitlab'],
      [{ CIRCLE_NODE_INDEX: '0', CIRCLE_NODE_TOTAL: '3' }, 1, 3, 'circleci'],
      [{ CIRCLE_NODE_INDEX: '2', CIRCLE_NODE_TOTAL: '3' }, 3, 3, 'circleci'],
      [{ BUILDKITE_PARALLEL_JOB: '0', BUILDKITE_PARALLEL_JOB_COUNT: '2' }, 1, 2, 'buildkite'],
      [{ AWS_BATCH_JOB_ARRAY_INDEX: '9', AWS_BATCH_JOB_ARRAY_SIZE: '10' }, 10, 10, 'aws-batch'],
      [{ SEMAPHORE_JOB_INDEX: '1', SEMAPHORE_JOB_COUNT: '2' }, 1, 2, 'semaphore'],
      [{ SEMAPHORE_JOB_INDEX: '2', SEMAPHORE_JOB_COUNT: '2' }, 2, 2, 'semaphore'],
      [{ AWB_SHARD_INDEX: '0', AWB_SHARD_COUNT: '8' }, 1, 8, 'awb-variables'],
      [{ AWB_SHARD_INDEX: '7', AWB_SHARD_COUNT: '8', GITHUB_ACTIONS: 'true' }, 8, 8, 'github-actions'],
    ];
    for (const [env, index, count, engine] of cases) {
      const s = shardFromEngine(env);
      assert.deepEqual([s.index, s.count, s.engine], [index, count, engine], JSON.stringify(env));
    }
  });

  it('every shard of an engine once: indexes 0..N-1 (or 1..N) give 1/N..N/N, each once', () => {
    for (const e of SHARD_ENGINES) {
      const seen = new Set<number>();
      for (let i = 0; i < 6; i++) {
        const env = { [e.index]: String(i + e.base), [e.count ?? 'AWB_SHARD_COUNT']: '6' };
        seen.add(shardFromEngine(env).index);
      }
      assert.deepEqual([...seen].sort(), [1, 2, 3, 4, 5, 6], e.id);
    }
  });

  it('takes the count of an engine without one from --shard-count, else AWB_SHARD_COUNT, else refuses', () => {
    const s = shardFromEngine({ JOB_COMPLETION_INDEX: '2' }, 5);
    assert.deepEqual([s.index, s.count], [3, 5]);
    assert.deepEqual(s.from, ['JOB_COMPLETION_INDEX=2', '--shard-count 5']);
    assert.equal(
      kindOf(() => shardFromEngine({ JOB_COMPLETION_INDEX: '2' })),
      'shard-count-missing',
    );
    // An engine's own count and --shard-count that disagree: the run would cut the rows in other shards than its siblings.
    assert.equal(
      kindOf(() => shardFromEngine({ CI_NODE_INDEX: '1', CI_NODE_TOTAL: '4' }, 8)),
      'shard-count-conflict',
    );
    assert.equal(shardFromEngine({ CI_NODE_INDEX: '1', CI_NODE_TOTAL: '4' }, 4).count, 4);
  });

  it('refuses no engine, two engines, and values that are no shard', () => {
    assert.equal(
      kindOf(() => shardFromEngine({})),
      'shard-engine-none',
    );
    // Blank is unset (a CI template that expanded to nothing).
    assert.equal(
      kindOf(() => shardFromEngine({ AWB_SHARD_INDEX: ' ', AWB_SHARD_COUNT: '2' })),
      'shard-engine-none',
    );
    // A count alone names no shard.
    assert.equal(
      kindOf(() => shardFromEngine({ CI_NODE_TOTAL: '1' })),
      'shard-engine-none',
    );
    assert.equal(
      kindOf(() => shardFromEngine({ JOB_COMPLETION_INDEX: '0', CI_NODE_INDEX: '1', CI_NODE_TOTAL: '2' }, 2)),
      'shard-engines-several',
    );
    for (const env of [
      { CI_NODE_INDEX: '0', CI_NODE_TOTAL: '4' }, // GitLab is 1-based
      { CIRCLE_NODE_INDEX: '4', CIRCLE_NODE_TOTAL: '4' }, // CircleCI is 0-based
      { AWB_SHARD_INDEX: '-1', AWB_SHARD_COUNT: '4' },
      { AWB_SHARD_INDEX: '1.5', AWB_SHARD_COUNT: '4' },
      { AWB_SHARD_INDEX: 'one', AWB_SHARD_COUNT: '4' },
      { AWB_SHARD_INDEX: '0', AWB_SHARD_COUNT: '0' },
      { AWB_SHARD_INDEX: '0', AWB_SHARD_COUNT: '${{ strategy.job-total }}' },
    ]) {
      assert.equal(
        kindOf(() => shardFromEngine(env)),
        'shard-engine-value',
        JSON.stringify(env),
      );
    }
  });
});

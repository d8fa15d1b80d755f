import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SHARD_ENGINES } from '../../../src/core/rows/index.js';
import { runAwb } from '../../support/cli.js';
import { errorLines, judgeReply, makeDataset, readRowsOf, stackLines, tempDirs, worldReply } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('shard-auto');
after(() => temps.cleanup());
const server = useServers();

/** No engine's variable leaks in from the machine running the tests (a CI job of its own). */
const clean = (env: Record<string, string>) => ({
  ...Object.fromEntries(SHARD_ENGINES.flatMap((e) => [e.index, e.count ?? 'AWB_SHARD_COUNT']).map((v) => [v, undefined])),
  GITHUB_ACTIONS: undefined,
  ...env,
});

describe('infer and judge --shard auto', () => {
  it('take the shard from the engine, say which, record it in the manifest and name the default output by it', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 12, ['terminal']);
    const world = await server({ reply: worldReply });
    const judge = await server({ reply: judgeReply });
    const cwd = dir;
    const parts: Record<string, unknown>[][] = [];
    for (const index of ['1', '2', '3']) {
      // GitLab counts from 1.
      const env = clean({ CI_NODE_INDEX: index, CI_NODE_TOTAL: '3' });
      // The default output, named by the shard: inferArgs' -o left out.
      const args = inferArgs(world.url, data.dir, '-', ['--shard', 'auto']).filter((a, i, all) => a !== '-o' && all[i - 1] !== '-o');
      const r = await runAwb(args, { env, cwd });
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`^shard ${index}/3 from the GitLab CI parallel \\(CI_NODE_INDEX=${index}, CI_NODE_TOTAL=3\\)$`, 'm'),
      );
      const out = join(dir, 'results', 'test-model', `predictions-shard-${index}-of-3.jsonl`);
      const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as { settings: { shard: unknown } };
      assert.deepEqual(manifest.settings.shard, { index: Number(index), count: 3, engine: 'gitlab' });
      parts.push(await readRowsOf(out));
    }
    // Every row in exactly one shard, as --shard K/N splits them.
    const keys = parts.flat().map((r) => `${String(r.id)}/${String(r.turn_idx)}`);
    assert.equal(keys.length, 12);
    assert.equal(new Set(keys).size, 12);
    const same = await runAwb(inferArgs(world.url, data.dir, join(dir, 'k.jsonl'), ['--shard', '2/3']));
    assert.equal(same.code, 0, same.stderr);
    const key = (r: Record<string, unknown>) => `${String(r.id)}/${String(r.turn_idx)}`;
    assert.deepEqual((await readRowsOf(join(dir, 'k.jsonl'))).map(key).sort(), parts[1]!.map(key).sort());
    // judge reads it the same way (here a Kubernetes Indexed Job, 0-based, its count given).
    const predictions = join(dir, 'k.jsonl');
    const j = await runAwb(judgeArgs(judge.url, predictions, join(dir, 'j.jsonl'), ['--shard', 'auto', '--shard-count', '2']), {
      env: clean({ JOB_COMPLETION_INDEX: '1' }),
    });
    assert.equal(j.code, 0, j.stderr);
    assert.match(j.stderr, /^shard 2\/2 from the Kubernetes Indexed Job \(JOB_COMPLETION_INDEX=1, --shard-count 2\)$/m);
  });

  it('is one line and exit 2 when no engine, two engines or a bad value is found, before anything is sent', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 2, ['terminal']);
    const world = await server({ reply: worldReply });
    const out = join(dir, 'p.jsonl');
    for (const [env, extra, says] of [
      [
        {},
        [],
        /^awb: --shard auto: no shard engine found in the environment \(none of JOB_COMPLETION_INDEX, .* is set\); give the shard as --shard K\/N$/,
      ],
      [
        { JOB_COMPLETION_INDEX: '0', CIRCLE_NODE_INDEX: '0', CIRCLE_NODE_TOTAL: '2' },
        ['--shard-count', '2'],
        /^awb: --shard auto: Kubernetes Indexed Job \(JOB_COMPLETION_INDEX\) and CircleCI parallelism \(CIRCLE_NODE_INDEX\) both name a shard; give the shard as --shard K\/N$/,
      ],
      [
        { CI_NODE_INDEX: '0', CI_NODE_TOTAL: '2' },
        [],
        /^awb: --shard auto: CI_NODE_INDEX="0" must be a whole number from 1 to 2 \(1-based, of 2\)$/,
      ],
      [
        { JOB_COMPLETION_INDEX: '0' },
        [],
        /^awb: --shard auto: Kubernetes Indexed Job does not say how many shards there are; give it with --shard-count N or AWB_SHARD_COUNT$/,
      ],
      [{}, ['--shard', '1/2', '--shard-count', '2'], /^awb: --shard-count goes with --shard auto$/],
    ] as const) {
      const args = inferArgs(
        world.url,
        data.dir,
        out,
        (extra as readonly string[]).includes('--shard') ? [...extra] : ['--shard', 'auto', ...extra],
      );
      const r = await runAwb(args, { env: clean(env) });
      assert.equal(r.code, 2, r.stderr);
      assert.deepEqual(stackLines(r.stderr), []);
      assert.match(errorLines(r.stderr).join('\n'), says);
    }
    assert.equal(world.stats.requests, 0);
  });
});

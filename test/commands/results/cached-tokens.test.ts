import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { makeDataset, readRowsOf, tempDirs, worldReply, judgeReply } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import type { ChatRequest, ReplyFn } from '../../support/openai-server.js';

/* Cached prompt tokens counted and priced, and OpenAI's prompt_cache_key sent only when asked (issue 13). */

const startServer = useServers();
const dirs = tempDirs('awb-cached-');

/** A reply that reports 100 prompt tokens, 40 of them cached, as OpenAI and vLLM with --enable-prompt-tokens-details do. */
const withCache =
  (reply: ReplyFn): ReplyFn =>
  async (req, ctx) => ({
    content: String(await reply(req, ctx)),
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_tokens_details: { cached_tokens: 40 } },
  });

const manifestUsage = async (file: string) =>
  (JSON.parse(await readFile(`${file}.manifest.json`, 'utf8')) as { usage: Record<string, number> }).usage;

/** `awb infer` on n rows of one domain, then `awb judge` on its predictions, against endpoints giving these replies. */
async function inferAndJudge(n: number, domain: string, world: ReplyFn, judge: ReplyFn, extra: string[] = []) {
  const dir = await dirs.make();
  const data = await makeDataset(dir, n, [domain]);
  const pred = join(dir, 'pred.jsonl');
  const inferRun = await runAwb(inferArgs((await startServer({ reply: world })).url, data.dir, pred, extra));
  assert.equal(inferRun.code, 0, inferRun.stderr);
  const judged = join(dir, 'judged.jsonl');
  const judgeRun = await runAwb(judgeArgs((await startServer({ reply: judge })).url, pred, judged, extra));
  assert.equal(judgeRun.code, 0, judgeRun.stderr);
  return { dir, pred, judged, inferRun };
}

/** `usage` of `awb score --format json` at $10 per million prompt tokens, output free, with these cached-input prices. */
async function scoredUsage(judged: string, cachedPrices: string[]): Promise<Record<string, Record<string, number | null>>> {
  const s = await runAwb(['score', judged, '--format', 'json', '--no-ci', '--price-input', '10', '--price-output', '0', ...cachedPrices]);
  assert.equal(s.code, 0, s.stderr);
  return (JSON.parse(s.stdout) as { runs: { usage: Record<string, Record<string, number | null>> }[] }).runs[0]!.usage;
}

const near = (a: number | null | undefined, b: number) => a !== null && a !== undefined && Math.abs(a - b) < 1e-12;

describe('cached tokens', () => {
  it('are kept per row, summed in the manifest and the summary, and priced by score --price-cached-input', async () => {
    const { pred, judged, inferRun } = await inferAndJudge(6, 'mcp', withCache(worldReply), withCache(judgeReply));
    for (const row of await readRowsOf(pred)) assert.equal((row.usage as { cached_tokens?: number }).cached_tokens, 40);
    assert.equal((await manifestUsage(pred)).cached_tokens, 240);
    assert.match(inferRun.stderr, /600 prompt \(240 cached, 40\.0% hit\)/);
    for (const row of await readRowsOf(judged)) assert.equal((row.judge_usage as { cached_tokens?: number }).cached_tokens, 40);
    assert.equal((await manifestUsage(judged)).cached_tokens, 240);

    const usage = await scoredUsage(judged, ['--price-judge-cached-input', '1']);
    assert.equal(usage.infer!.cached_tokens, 240);
    assert.equal(usage.infer!.cache_hit_ratio, 0.4);
    // infer: no cached price, so all 600 prompt tokens at $10/M; judge: 360 at $10/M and 240 at $1/M.
    assert.equal(usage.infer!.cost_usd, 0.006);
    assert.ok(near(usage.judge!.cost_usd, (360 * 10 + 240 * 1) / 1e6));

    const t = await runAwb(['score', judged, '--no-ci']);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /Cached/);
    assert.match(t.stdout, /40\.0%/);
  });

  it('are shown and priced by --price-cached-input in every format of score and in the report page', async () => {
    const { dir, judged } = await inferAndJudge(6, 'mcp', withCache(worldReply), withCache(judgeReply));
    // Each stage: 600 prompt tokens, 240 of them cached; 360 at $10,000/M and 240 at $1,000/M, output free.
    const prices = ['--price-input', '10000', '--price-output', '0', '--price-cached-input', '1000'];
    const cost = (360 * 10000 + 240 * 1000) / 1e6;
    const score = async (format: string) => {
      const r = await runAwb(['score', judged, '--no-ci', '-f', format, ...prices]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    const stageLine = /^\S+\s+all\s+(infer|judge)\s+6\s+600\s+\S+\s+\S+\s+240\s+40\.0%\s+\$3\.84$/gm;
    assert.equal((await score('table')).match(stageLine)?.length, 2);
    const md = await score('md');
    for (const stage of ['infer', 'judge'])
      assert.match(
        md,
        new RegExp(`^\\| \\S+ \\| all \\| ${stage} \\| 6 \\| 600 \\| [^|]+ \\| [^|]+ \\| 240 \\| 40\\.0% \\| \\$3\\.84 \\|$`, 'm'),
      );
    const [header, ...records] = (await score('csv'))
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const micro = Object.fromEntries(header!.map((h, i) => [h, records.find((r) => r[4] === 'overall_micro')![i]]));
    const domain = Object.fromEntries(header!.map((h, i) => [h, records.find((r) => r[4] === 'mcp')![i]]));
    for (const row of [micro, domain])
      for (const stage of ['infer', 'judge']) {
        assert.equal(row[`${stage}_prompt_tokens`], '600');
        assert.equal(row[`${stage}_cached_tokens`], '240');
        assert.ok(near(Number(row[`${stage}_cost_usd`]), cost), row[`${stage}_cost_usd`]);
      }
    assert.equal(records.find((r) => r[4] === 'overall_macro')![header!.indexOf('infer_cached_tokens')], '', 'counted once');
    const usage = (JSON.parse(await score('json')) as { runs: { usage: Record<string, Record<string, number>> }[] }).runs[0]!.usage;
    for (const stage of ['infer', 'judge']) {
      assert.equal(usage[stage]!.cached_tokens, 240);
      assert.ok(near(usage[stage]!.cost_usd, cost));
    }

    // The page draws the grids of its data block, the usage grid among them.
    const page = join(dir, 'report.html');
    const r = await runAwb(['report', judged, '--no-ci', '-o', page, ...prices]);
    assert.equal(r.code, 0, r.stderr);
    const data = /<script type="application\/json" id="awb-data">(.*?)<\/script>/s.exec(await readFile(page, 'utf8'))![1]!;
    type Grid = { title: string; columns: { title: string }[]; rows: { cells: { text: string }[] }[] };
    const grids = (JSON.parse(data) as { view: { grids: Grid[] } }).view.grids;
    const grid = grids.find((g) => g.title.startsWith('Usage and cost'))!;
    assert.ok(grid, grids.map((g) => g.title).join('; '));
    assert.match(grid.title, /cached input \$1000/);
    const at = (title: string) => grid.columns.findIndex((c) => c.title === title);
    const all = grid.rows.filter((row) => row.cells[1]!.text === 'all');
    assert.deepEqual(
      all.map((row) => [row.cells[2]!.text, row.cells[at('Cached')]!.text, row.cells[at('Hit')]!.text, row.cells[at('Cost (USD)')]!.text]),
      [
        ['infer', '240', '40.0%', '$3.84'],
        ['judge', '240', '40.0%', '$3.84'],
      ],
    );
  });

  it('an endpoint that reports none: no field in the rows or the manifest, "not reported" rather than 0, full price', async () => {
    const { pred, judged, inferRun } = await inferAndJudge(3, 'os', worldReply, judgeReply);
    for (const row of await readRowsOf(pred)) assert.ok(!('cached_tokens' in (row.usage as object)));
    assert.ok(!('cached_tokens' in (await manifestUsage(pred))));
    assert.match(inferRun.stderr, /prompt \(cached tokens not reported\)/);
    const usage = await scoredUsage(judged, ['--price-cached-input', '1']);
    for (const stage of ['infer', 'judge']) {
      const u = usage[stage]!;
      assert.equal(u.cached_tokens, null, stage);
      assert.equal(u.cache_hit_ratio, null, stage);
      assert.ok(u.prompt_tokens! > 0);
      assert.equal(u.cost_usd, (u.prompt_tokens! * 10) / 1e6, `${stage}: every prompt token at the input price`);
    }
  });

  it('garbage cached counts (a string, negative, fractional, more than the whole prompt) are left out, never summed', async () => {
    const garbage: unknown[] = ['40', -40, 0.5, 101];
    const reply: ReplyFn = async (req, ctx) => ({
      content: String(await worldReply(req, ctx)),
      usage: { prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: garbage[(ctx.requestNo - 1) % 4] } },
    });
    const { pred, inferRun } = await inferAndJudge(4, 'os', reply, judgeReply);
    for (const row of await readRowsOf(pred)) assert.deepEqual(row.usage, { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 });
    assert.ok(!('cached_tokens' in (await manifestUsage(pred))));
    assert.match(inferRun.stderr, /400 prompt \(cached tokens not reported\)/);
  });

  it('--stream keeps them too, and --price-cached-input prices both stages', async () => {
    const { pred, judged } = await inferAndJudge(4, 'web', withCache(worldReply), withCache(judgeReply), ['--stream']);
    for (const row of await readRowsOf(pred)) assert.equal((row.usage as { cached_tokens?: number }).cached_tokens, 40);
    const usage = await scoredUsage(judged, ['--price-cached-input', '2']);
    for (const stage of ['infer', 'judge']) {
      assert.equal(usage[stage]!.cached_tokens, 160, stage);
      assert.ok(near(usage[stage]!.cost_usd, (240 * 10 + 160 * 2) / 1e6), stage);
    }
  });
});

describe('--prompt-cache-key', () => {
  it('sends one prompt_cache_key per trajectory, in infer and judge alike, only with the flag', async () => {
    const dir = await dirs.make();
    const data = await makeDataset(dir, 9, ['web']);
    const keysOf = (reqs: (ChatRequest | undefined)[]) => reqs.map((q) => q?.prompt_cache_key);

    const plain = await startServer({ reply: worldReply });
    const r0 = await runAwb(inferArgs(plain.url, data.dir, join(dir, 'plain.jsonl')));
    assert.equal(r0.code, 0, r0.stderr);
    assert.ok(
      plain.log.every((e) => e.request && !('prompt_cache_key' in e.request)),
      'never sent unless asked',
    );

    const world = await startServer({ reply: worldReply });
    const pred = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(world.url, data.dir, pred, ['--prompt-cache-key']));
    assert.equal(r.code, 0, r.stderr);
    const byTraj = new Map<string, Set<unknown>>();
    for (const e of world.log) {
      const id = /\[row web\/(\d+)\//.exec(JSON.stringify(e.request?.messages))![1]!;
      byTraj.set(id, (byTraj.get(id) ?? new Set()).add(e.request?.prompt_cache_key));
    }
    assert.ok(byTraj.size > 1);
    for (const keys of byTraj.values()) assert.equal(keys.size, 1, 'one key per trajectory');
    const all = [...byTraj.values()].map((k) => [...k][0]);
    assert.equal(new Set(all).size, all.length, 'trajectories get different keys');
    assert.ok(all.every((k) => typeof k === 'string' && k.length > 0));

    const judge = await startServer({ reply: judgeReply });
    const j = await runAwb(judgeArgs(judge.url, pred, join(dir, 'judged.jsonl'), ['--prompt-cache-key']));
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(new Set(keysOf(judge.log.map((e) => e.request))), new Set(all));
  });
});

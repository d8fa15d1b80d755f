/*
 * --max-cost on infer and judge against local endpoints: a capped run stops under its cap with its own exit code, the
 * rows answered saved, and the same command with a higher cap goes on. Requests go one at a time (-c 1) and every
 * reply reports the same usage, so what the cap admits follows from the figures alone, never from timing.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import {
  errorLines,
  judgeReply,
  makeDataset,
  parseResumeCommand,
  readRowsOf,
  stackLines,
  tempDirs,
  worldReply,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import type { ReplyFn } from '../../support/openai-server.js';

const serve = useServers();
const dirs = tempDirs('max-cost');
after(() => dirs.cleanup());

/** Every reply reports 10 completion tokens: at $1 a completion token (and prompts free) each answered request costs $10. */
const tenTokens =
  (reply: ReplyFn): ReplyFn =>
  async (req, ctx) => {
    const r = await reply(req, ctx);
    return { content: typeof r === 'string' ? r : r.content, usage: { prompt_tokens: 7, completion_tokens: 10 } };
  };
// Each request may cost at most its 100 completion tokens: $100.
const PRICES = ['-c', '1', '--max-tokens', '100', '--price-input', '0', '--price-output', '1000000'];
const ROWS = 12;

describe('--max-cost', () => {
  it('stops infer under its cap (exit 7), saves what was answered, and goes on with a higher cap', async () => {
    const dir = await dirs.make();
    const data = await makeDataset(dir, ROWS, ['terminal', 'swe']);
    const world = await serve({ reply: tenTokens(worldReply) });
    const out = join(dir, 'pred.jsonl');
    const args = (cap: string) => inferArgs(world.url, data.dir, out, [...PRICES, '--max-cost', cap]);

    // Each request goes when spent + $100 stays within $150: at $0, $10, … $50; at $60 the seventh would not.
    const capped = await runAwb(args('150'));
    assert.equal(capped.code, 7, capped.stderr);
    assert.deepEqual(stackLines(capped.stderr), []);
    assert.equal(world.stats.requests, 6);
    assert.equal((await readRowsOf(out)).length, 6);
    assert.match(capped.stderr, /--max-cost \$150\.00 reached \(\$60\.00 spent, at most \$0\.00 more in flight\)/);
    assert.match(capped.stderr, /stopped at the cost cap: spent \$60\.00 of --max-cost \$150\.00, 6 rows left/);

    // The same cap again: the output's rows already cost $60, so no request fits.
    const again = await runAwb(args('150'));
    assert.equal(again.code, 7, again.stderr);
    assert.equal(world.stats.requests, 6);

    // The command it prints raises the cap to what the rest likely costs ($60 + 6 × $10 + one request's $100 of headroom).
    const higher = parseResumeCommand(capped.stderr);
    assert.equal(higher[higher.indexOf('--max-cost') + 1], '220.00');
    const rest = await runAwb(higher);
    assert.equal(rest.code, 0, rest.stderr);
    assert.equal(world.stats.requests, ROWS);
    assert.equal((await readRowsOf(out)).length, ROWS);
  });

  it('caps judge the same way', async () => {
    const dir = await dirs.make();
    const data = await makeDataset(dir, ROWS, ['terminal', 'swe']);
    const world = await serve({ reply: worldReply });
    const judge = await serve({ reply: tenTokens(judgeReply) });
    const pred = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(world.url, data.dir, pred))).code, 0);
    const out = join(dir, 'judged.jsonl');
    const args = (cap: string) => judgeArgs(judge.url, pred, out, [...PRICES, '--max-cost', cap]);
    const capped = await runAwb(args('150'));
    assert.equal(capped.code, 7, capped.stderr);
    assert.equal((await readRowsOf(out)).length, 6);
    const done = await runAwb(args('1000'));
    assert.equal(done.code, 0, done.stderr);
    assert.equal((await readRowsOf(out)).length, ROWS);
    assert.equal(judge.stats.requests, ROWS);
  });

  it('--dry-run says how many rows the cap covers; without prices, or with --batch, it is a usage error', async () => {
    const dir = await dirs.make();
    const data = await makeDataset(dir, ROWS, ['terminal', 'swe']);
    const world = await serve({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    const dry = await runAwb(inferArgs(world.url, data.dir, out, [...PRICES, '--max-cost', '250', '--dry-run', '--format', 'json']));
    assert.equal(dry.code, 0, dry.stderr);
    const doc = JSON.parse(dry.stdout) as Record<string, number>;
    // At their most ($100 each, prompts free) two rows fit under $250; at the expected cost, more.
    assert.equal(doc.max_cost_usd, 250);
    assert.equal(doc.max_cost_rows_at_most_cost, 2);
    assert.ok(doc.max_cost_rows_at_expected_cost! > 2);
    const text = await runAwb(inferArgs(world.url, data.dir, out, [...PRICES, '--max-cost', '250', '--dry-run']));
    assert.match(text.stderr, /--max-cost \$250\.00 covers 2 of the 12 rows with every request at the most it can cost/);
    assert.equal(world.stats.requests, 0);

    const unpriced = await runAwb(inferArgs(world.url, data.dir, out, ['--max-cost', '5', '--price-output', '8']));
    assert.equal(unpriced.code, 2);
    assert.equal(errorLines(unpriced.stderr).length, 1);
    const batch = await runAwb(inferArgs(world.url, data.dir, out, [...PRICES, '--max-cost', '5', '--batch']));
    assert.equal(batch.code, 2);
    assert.equal(errorLines(batch.stderr).length, 1);
    for (const r of [unpriced, batch]) assert.deepEqual(stackLines(r.stderr), []);
    assert.equal(world.stats.requests, 0);
  });
});

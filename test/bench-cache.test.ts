import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startBenchEndpoint, type EndpointStats } from '../bench/endpoint.js';
import { blocksOf, oneAtATime, PrefixCache, prefixTreeOrder, renderChat } from '../bench/prefix-cache.js';

const BLOCK = 64;

/** Turn k of a conversation: system, k-1 earlier exchanges, the current action. */
function turn(k: number): { role: string; content: string }[] {
  const m = [{ role: 'system', content: 's'.repeat(150) }];
  for (let i = 1; i < k; i++)
    m.push({ role: 'user', content: `action ${i} ${'a'.repeat(100)}` }, { role: 'assistant', content: `obs ${i} ${'o'.repeat(300)}` });
  m.push({ role: 'user', content: `action ${k} ${'a'.repeat(100)}` });
  return m;
}

describe('prefix cache model', () => {
  it('serves the longest run of held leading blocks, only full blocks, chained', () => {
    const cache = new PrefixCache({ blockBytes: BLOCK, capacityBlocks: Infinity });
    const one = blocksOf(renderChat(turn(1)), BLOCK);
    const two = blocksOf(renderChat(turn(2)), BLOCK);
    assert.ok(renderChat(turn(2)).startsWith(renderChat(turn(1))), 'turn 1 is a prefix of turn 2 under the template');
    assert.equal(cache.lookup(two), 0);
    cache.insert(one);
    assert.equal(cache.lookup(two), one.hashes.length * BLOCK);
    // Same block content after a different prefix is a different block.
    const other = blocksOf(`x${renderChat(turn(1)).slice(1)}`, BLOCK);
    assert.equal(cache.lookup(other), 0);
  });

  it('evicts the least recently used blocks beyond its capacity', () => {
    const cache = new PrefixCache({ blockBytes: BLOCK, capacityBlocks: 4 });
    const a = blocksOf('a'.repeat(4 * BLOCK), BLOCK);
    const b = blocksOf('b'.repeat(2 * BLOCK), BLOCK);
    cache.insert(a);
    cache.insert(b);
    assert.equal(cache.lookup(a), 0, "a's first blocks went first");
    assert.equal(cache.lookup(b), 2 * BLOCK);
  });

  it('one at a time without eviction prefills each distinct block once, in any order', () => {
    const prompts = [3, 1, 2, 4].map((k) => blocksOf(renderChat(turn(k)), BLOCK));
    const opts = { blockBytes: BLOCK, capacityBlocks: Infinity };
    const sorted = prefixTreeOrder(prompts);
    assert.deepEqual(
      sorted.map((p) => p.bytes),
      [...prompts].map((p) => p.bytes).sort((x, y) => x - y),
      'prefix-tree order is turn order',
    );
    assert.equal(oneAtATime(prompts, opts).prefilled, oneAtATime(sorted, opts).prefilled);
    const distinct = new Set(prompts.flatMap((p) => p.hashes)).size;
    const tails = prompts.reduce((s, p) => s + p.bytes - p.hashes.length * BLOCK, 0);
    assert.equal(oneAtATime(sorted, opts).prefilled, distinct * BLOCK + tails);
  });
});

describe('bench endpoint with a simulated prefix cache', () => {
  async function withEndpoint(
    reportCached: boolean,
    f: (post: (k: number) => Promise<Record<string, unknown>>, stats: () => Promise<EndpointStats>) => Promise<void>,
  ) {
    const ep = await startBenchEndpoint({ latencyMs: 5, cache: { blockBytes: BLOCK, capacityBlocks: Infinity, msPerMB: 0, reportCached } });
    const base = ep.url.replace(/\/v1$/, '');
    try {
      await f(
        async (k) => {
          const r = await fetch(`${ep.url}/chat/completions`, {
            method: 'POST',
            body: JSON.stringify({ model: 'bench', messages: turn(k) }),
          });
          return ((await r.json()) as { usage: Record<string, unknown> }).usage;
        },
        async () => (await (await fetch(`${base}/bench/stats`)).json()) as EndpointStats,
      );
    } finally {
      await ep.close();
    }
  }

  it('reports cached tokens when turn 2 follows an answered turn 1, none when both are in flight', async () => {
    await withEndpoint(true, async (post, stats) => {
      await Promise.all([post(1), post(2)]);
      const both = await stats();
      assert.equal(both.prefilledBytes, both.promptBytes, 'sent together, both pay in full');
      const usage = (await post(3)) as { prompt_tokens_details?: { cached_tokens: number } };
      const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
      assert.ok(cached > 0, 'turn 3 after turn 2 was answered finds its prefix');
      const s = await stats();
      assert.equal(s.cachedTokens, cached);
      assert.equal(s.promptBytes - s.prefilledBytes, cached * 4);
      const prompts = [1, 2, 3].map((k) => blocksOf(renderChat(turn(k)), BLOCK));
      assert.equal(s.minimumPrefilledBytes, oneAtATime(prompts, { blockBytes: BLOCK, capacityBlocks: Infinity }).prefilled);
      assert.ok(s.prefilledBytes > s.minimumPrefilledBytes, 'the concurrent pair cost more than the minimum');
    });
  });

  it('can leave cached_tokens out, as servers without cache reports do', async () => {
    await withEndpoint(false, async (post, stats) => {
      await post(1);
      const usage = await post(2);
      assert.equal('prompt_tokens_details' in usage, false);
      const s = await stats();
      assert.ok(s.prefilledBytes < s.promptBytes, 'the cache still works');
      assert.equal(s.cachedTokens, 0);
    });
  });
});

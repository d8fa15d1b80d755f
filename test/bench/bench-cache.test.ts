import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startBenchEndpoint, type EndpointStats } from '../../bench/endpoint.js';
import { blocksOf, oneAtATime, PrefixCache, prefixTreeOrder, requestBlocks, RequestHasher, type Blocks } from '../../bench/prefix-cache.js';

const BLOCK = 64;

/** Turn k of a conversation: system, k-1 earlier exchanges, the current action. */
function turn(k: number): { role: string; content: string }[] {
  // Sizes where no 64-byte block holds the bracket that closes a turn's messages: each turn's blocks begin the next turn's.
  const m = [{ role: 'system', content: 's'.repeat(160) }];
  for (let i = 1; i < k; i++)
    m.push({ role: 'user', content: `action ${i} ${'a'.repeat(100)}` }, { role: 'assistant', content: `obs ${i} ${'o'.repeat(300)}` });
  m.push({ role: 'user', content: `action ${k} ${'a'.repeat(100)}` });
  return m;
}

/** Turn k's request body as the openai client sends it: sampling fields, the messages, the model. */
function body(k: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ temperature: 0.6, ...extra, messages: turn(k), model: 'bench' });
}

/** Turn k's prompt as the cache model sees it. */
const prompt = (k: number) => requestBlocks(body(k), BLOCK);

describe('prefix cache model', () => {
  it('serves the longest run of held leading blocks, only full blocks, chained', () => {
    const cache = new PrefixCache({ blockBytes: BLOCK, capacityBlocks: Infinity });
    const one = prompt(1);
    const two = prompt(2);
    assert.equal(cache.lookup(two), 0);
    cache.insert(one);
    // Turn 2's body repeats turn 1's up to the bracket that closed turn 1's messages: its full blocks before that are reused.
    const shared = body(1).indexOf('],"model"') - body(1).indexOf('"messages":[') - '"messages":['.length;
    assert.ok(body(2).includes(body(1).slice(0, body(1).indexOf('],"model"'))), 'turn 1 is a prefix of turn 2');
    assert.equal(cache.lookup(two), Math.floor(shared / BLOCK) * BLOCK);
    assert.equal(cache.lookup(two), one.hashes.length * BLOCK);
    // Same block content after a different prefix is a different block.
    const other = requestBlocks(body(1).replace('"content":"s', '"content":"x'), BLOCK);
    assert.equal(cache.lookup(other), 0);
  });

  it('takes the prompt from the messages on, whatever comes before them, fed in any pieces', () => {
    const keyed = (key: string) => requestBlocks(body(3, { prompt_cache_key: key, max_tokens: 100 }), BLOCK);
    assert.deepEqual(keyed('a'), prompt(3), 'sampling fields and a prompt_cache_key are not the prompt');
    assert.deepEqual(keyed('a'), keyed('bb'));
    const bytes = Buffer.from(body(3));
    for (const cut of [1, 5, 13, 200]) {
      const hasher = new RequestHasher(BLOCK);
      for (let at = 0; at < bytes.length; at += cut) hasher.update(bytes.subarray(at, at + cut));
      assert.deepEqual(hasher.digest(), prompt(3), `pieces of ${cut} bytes`);
    }
    assert.deepEqual(requestBlocks('{"prompt":"no messages here"}', 4), blocksOf('{"prompt":"no messages here"}', 4));
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
    const prompts = [3, 1, 2, 4].map(prompt);
    const opts = { blockBytes: BLOCK, capacityBlocks: Infinity };
    const sorted = prefixTreeOrder(prompts);
    // Each prompt comes after every prompt whose blocks begin it (the last block of a turn may hold the bracket that ended it).
    const begins = (a: Blocks, b: Blocks) => a !== b && a.hashes.every((h, i) => b.hashes[i] === h);
    let pairs = 0;
    for (const [i, a] of sorted.entries())
      for (const [j, b] of sorted.entries())
        if (begins(a, b)) {
          pairs++;
          assert.ok(i < j, `a prompt of ${a.bytes} bytes comes before the ${b.bytes}-byte prompt it begins`);
        }
    assert.equal(pairs, 6, 'every turn begins each later turn');
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
            body: body(k),
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
      const prompts = [1, 2, 3].map(prompt);
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

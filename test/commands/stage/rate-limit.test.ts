/*
 * `awb judge` against a server enforcing a tight tokens-per-minute or
 * requests-per-minute limit (a "minute" of a second or two): the run is paced to the limit from the headers
 * (few 429s), every row is judged, and the results are those of a run
 * without limits. A server stating no limits still gets every row judged.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { keyOf, makeDataset, readRowsOf, tempDirs, writePredictions } from '../../support/dataset.js';
import { judgeArgs } from '../../support/harness.js';
import { startRateLimitedServer, type RateLimitedServer } from '../../support/rate-limited-server.js';

const dirs = tempDirs('rate-limit');
const servers: RateLimitedServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await dirs.cleanup();
});

async function server(opts: Parameters<typeof startRateLimitedServer>[0]): Promise<RateLimitedServer> {
  const s = await startRateLimitedServer(opts);
  servers.push(s);
  return s;
}

/** Each row's judgement by its key: what must not depend on how the run was paced. */
async function judgements(path: string): Promise<Map<string, unknown>> {
  const rows = await readRowsOf(path);
  return new Map(rows.map((r) => [keyOf(r), [r.total_score, r.failed, r.judge_raw_output]]));
}

const ROWS = 40;

describe('judge paced to a rate-limited endpoint', { concurrency: 1 }, async () => {
  const dir = await dirs.make();
  const ds = await makeDataset(dir, ROWS);
  const preds = join(dir, 'pred.jsonl');
  await writePredictions(ds, preds);
  const free = await server({ latencyMs: 20 });
  const reference = await runAwb(judgeArgs(free.url, preds, join(dir, 'free.jsonl'), ['-c', '8']));
  assert.equal(reference.code, 0, reference.stderr);
  const expected = await judgements(join(dir, 'free.jsonl'));
  const tpm = Math.ceil(free.stats.tokens / 4);

  // Each limit a quarter of the run's per "minute" of two seconds: about six seconds bound by it. The refill (five rows a
  // second) is what holds the run back only while the client could go faster: at one "minute" a second, a client slowed
  // to ten rows a second by a loaded machine was never held back, and the progress rightly named no limit.
  for (const [what, limit, factor] of [
    ['tokens', { tpm }, 'tokens/min'],
    ['requests', { rpm: ROWS / 4 }, 'requests/min'],
  ] as const) {
    it(`with OpenAI headers and a ${what}-per-minute limit: few 429s, every row judged as without the limit, the progress naming it`, async () => {
      const limited = await server({ ...limit, windowMs: 2000, latencyMs: 20 });
      const out = join(dir, `paced-${what}.jsonl`);
      const args = judgeArgs(limited.url, preds, out, ['-c', '8']).filter((a) => a !== '--no-progress');
      const r = await runAwb(args, { env: { AWB_PROGRESS_INTERVAL: '0.3' } });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await judgements(out), expected);
      assert.equal(limited.stats.answered, ROWS);
      assert.ok(limited.stats.rateLimited <= 2, `${limited.stats.rateLimited} requests answered 429`);
      // The plain (non-terminal) progress line: the expected end and, beside it, what holds the run back.
      assert.match(r.stderr, new RegExp(`^judge: \\d+/40 \\([\\d.]+%\\), [\\d.]+ rows/s, ETA \\d+s, 0 failed, limited by ${factor}$`, 'm'));
      // Paced, not unlimited: the bucket held a quarter of the run, the rest came at its refill rate.
      assert.ok(limited.stats.lastAt - limited.stats.firstAt >= 4000, `${limited.stats.lastAt - limited.stats.firstAt} ms`);
    });
  }

  it('with two endpoints of different limits: each keeps its own budget, both are used, and neither limit is exceeded', async () => {
    const small = await server({ tpm: Math.ceil(tpm / 2), windowMs: 1000, latencyMs: 20 });
    const large = await server({ tpm, windowMs: 1000, latencyMs: 20 });
    const args = judgeArgs(small.url, preds, join(dir, 'two.jsonl'), ['--judge-base-url', large.url, '-c', '8']);
    const r = await runAwb(args);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await judgements(join(dir, 'two.jsonl')), expected);
    assert.equal(small.stats.answered + large.stats.answered, ROWS);
    for (const [name, s] of [
      ['small', small],
      ['large', large],
    ] as const) {
      assert.ok(s.stats.answered > 0, `${name} endpoint unused`);
      // A 429 is a request the server found over its limit: one budget for both would send the small one the large one's share.
      assert.ok(s.stats.rateLimited <= 2, `${name} endpoint answered ${s.stats.rateLimited} requests 429`);
    }
  });

  it('a request counted over the whole limit (max_tokens counted too) fails at once with the fix, and is not sent again', async () => {
    const limited = await server({ tpm, windowMs: 1000, latencyMs: 20, countMaxTokens: true });
    const r = await runAwb(judgeArgs(limited.url, preds, join(dir, 'over.jsonl'), ['-c', '1', '--max-tokens', String(tpm)]));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, new RegExp(`allows ${tpm} tokens per minute .*lower --max-tokens`));
    assert.equal(limited.stats.answered, 0);
    assert.equal(limited.stats.requests, 1, 'only the request that showed the limit was sent');
  });

  it('a row whose own prompt is over the whole limit fails alone, sent at most once; the others are judged as without the limit', async () => {
    const limited = await server({ tpm, windowMs: 1000, latencyMs: 20 });
    const huge = join(dir, 'huge-pred.jsonl');
    // Six characters per token of the limit: as the server counts (4 a token), one and a half times the whole limit.
    await writePredictions(ds, huge, (r, i) =>
      i === 3 ? 'x'.repeat(6 * tpm) : `<predicted_observation>${r.response[r.turn_idx - 1]}</predicted_observation>`,
    );
    const out = join(dir, 'huge.jsonl');
    const r = await runAwb(judgeArgs(limited.url, huge, out, ['-c', '8']));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /judge: 1 row failed/);
    const rows = await readRowsOf(out);
    const hugeKey = keyOf(ds.rows[3]!);
    const failed = rows.filter((row) => row.failed === 1);
    assert.deepEqual(failed.map(keyOf), [hugeKey]);
    assert.match(String(failed[0]!.error_message), new RegExp(`over the whole limit of ${tpm} tokens per minute`));
    const got = await judgements(out);
    got.delete(hugeKey);
    const others = new Map(expected);
    others.delete(hugeKey);
    assert.deepEqual(got, others);
    assert.equal(limited.stats.answered, ROWS - 1);
    assert.ok(limited.stats.requests - limited.stats.answered <= 2, `${limited.stats.requests - limited.stats.answered} requests refused`);
  });

  it("a request over one endpoint's whole limit goes to another endpoint that can take it", async () => {
    const tiny = await server({ tpm: 50, windowMs: 1000, latencyMs: 20 });
    const roomy = await server({ latencyMs: 20 });
    const r = await runAwb(judgeArgs(tiny.url, preds, join(dir, 'moved.jsonl'), ['--judge-base-url', roomy.url, '-c', '8']));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await judgements(join(dir, 'moved.jsonl')), expected);
    assert.equal(tiny.stats.answered, 0);
    assert.equal(roomy.stats.answered, ROWS);
  });

  it('with no headers: the 429s pause the endpoint, and every row is judged as without the limit', async () => {
    const limited = await server({ tpm, windowMs: 1000, latencyMs: 20, headers: false });
    const r = await runAwb(judgeArgs(limited.url, preds, join(dir, 'bare.jsonl'), ['-c', '8', '--max-retries', '30']));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await judgements(join(dir, 'bare.jsonl')), expected);
    assert.equal(limited.stats.answered, ROWS);
  });

  it('with no headers and a few per cent of bare 429s: each pauses the endpoint, and -c is reached again after every one (issue 51)', async () => {
    const many = await dirs.make();
    const big = await makeDataset(many, 120);
    const bigPreds = join(many, 'pred.jsonl');
    await writePredictions(big, bigPreds);
    // Requests 20, 60 and 100 of about 123: 2.4 % refused, each with nothing but `retry-after: 1`.
    const flaky = await server({ latencyMs: 200, headers: false, refuse: (n) => n % 40 === 20 });
    const r = await runAwb(judgeArgs(flaky.url, bigPreds, join(many, 'judged.jsonl'), ['-c', '8']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(flaky.stats.answered, 120);
    assert.equal(flaky.stats.rateLimited, 3);
    assert.deepEqual(flaky.stats.maxInFlightAfterRefusal, [8, 8, 8], 'a 429 without limit headers must not shrink -c');
  });

  it('--no-pace sends at -c regardless, and the retries still get every row judged', async () => {
    const limited = await server({ tpm, windowMs: 1000, latencyMs: 20 });
    const r = await runAwb(judgeArgs(limited.url, preds, join(dir, 'unpaced.jsonl'), ['-c', '8', '--no-pace', '--max-retries', '30']));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(await judgements(join(dir, 'unpaced.jsonl')), expected);
    assert.ok(limited.stats.rateLimited > 2, `${limited.stats.rateLimited} requests answered 429 without pacing`);
  });
});

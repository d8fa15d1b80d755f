/*
 * Faults on the endpoint lose nothing: transient errors are retried until the
 * row is done, without ever sending a request that already succeeded again;
 * errors that would repeat for every row stop the run at once with one clear
 * line; a row that keeps failing is recorded and redone alone on the next run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import {
  closedPort,
  errorLines,
  keyOf,
  makeDataset,
  rowMarker,
  readJsonlFile,
  readRowsOf,
  stackLines,
  tempDirs,
  worldReply,
  judgeReply,
  writePredictions,
  type Dataset,
} from '../../support/dataset.js';
import { lastUserText, type Fault, type FaultScript } from '../../support/openai-server.js';
import { mulberry32 } from '../../../src/core/score/bootstrap.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { rawServer } from '../../support/raw-server.js';
import { RUN_WORDS } from '../../../src/commands/words/stage/run.js';

const temps = tempDirs('faults');
after(() => temps.cleanup());
const server = useServers();

/**
 * --timeout of the runs with hangs: it ends each hang, and is a hundred times the longest latency, so a reply slowed by a
 * loaded machine is not taken for a hang (and a success sent again).
 */
const TIMEOUT = '5';

/** Latency of 10–50 ms per request, fixed by the request number so it is the same on every run. */
const latency = (_req: unknown, n: number) => 10 + ((n * 37) % 41);

/**
 * A realistic mix: 10% rate limits (half asking to wait 0 s, half 1 s), 5%
 * 500/503, 2% resets, 1% hangs. The rows named in `forced` get their fault on
 * their first request, so every kind shows up whatever the random draw.
 */
function realisticMix(seed: number, forced: Map<string, Fault>): FaultScript {
  const rnd = mulberry32(seed);
  const mix: Array<[Fault, number]> = [
    [{ kind: '429', retryAfter: 0 }, 0.05],
    [{ kind: '429', retryAfter: 1 }, 0.05],
    ['500', 0.025],
    ['503', 0.025],
    ['reset', 0.02],
    ['hang', 0.01],
  ];
  return (req) => {
    const text = lastUserText(req);
    for (const [marker, fault] of forced) {
      if (text.includes(marker)) {
        forced.delete(marker);
        return fault;
      }
    }
    const u = rnd();
    let acc = 0;
    for (const [fault, p] of mix) {
      acc += p;
      if (u < acc) return fault;
    }
    return undefined;
  };
}

function forcedFaults(ds: Dataset): Map<string, Fault> {
  const kinds: Fault[] = ['hang', 'reset', { kind: '429', retryAfter: 1 }, '500', '503'];
  return new Map(
    kinds.map((f, i) => {
      const r = ds.rows[i * 7 + 3]!;
      // For the judge this marker also names later turns of the trajectory: whichever asks first gets the fault.
      return [rowMarker(r), f];
    }),
  );
}

/** Every dataset row exactly once in the output. */
function assertCoversOnce(rows: Record<string, unknown>[], ds: Dataset): void {
  const keys = rows.map(keyOf);
  assert.equal(new Set(keys).size, keys.length, 'a row appears twice in the output');
  assert.deepEqual(new Set(keys), new Set(ds.rows.map((r) => keyOf(r))));
}

describe('transient faults', { concurrency: true }, () => {
  it('infer completes every row through 429s, 5xx, resets and hangs, and never resends a success', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const s = await server({ reply: worldReply, latencyMs: latency, faults: realisticMix(7, forcedFaults(ds)) });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '8', '--timeout', TIMEOUT, '--max-retries', '8']));
    assert.equal(r.code, 0, r.stderr);
    const rows = await readRowsOf(out);
    assertCoversOnce(rows, ds);
    for (const row of rows) {
      assert.equal(row.error, undefined, `row ${keyOf(row)} failed: ${String(row.error)}`);
      assert.match(String(row.gen), /^<think>short<\/think><predicted_observation>prediction /);
    }
    for (const kind of ['429', '500', '503', 'reset', 'hang'] as const) assert.ok(s.stats.faults[kind] >= 1, `no ${kind} was injected`);
    assert.deepEqual(s.repeatedSuccesses(), []);
    assert.equal(s.stats.successes, ds.rows.length);
  });

  it('judge completes every row through the same mix, and never resends a success', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const s = await server({ reply: judgeReply, latencyMs: latency, faults: realisticMix(11, forcedFaults(ds)) });
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(s.url, preds, out, ['-c', '8', '--timeout', TIMEOUT, '--max-retries', '8']));
    assert.equal(r.code, 0, r.stderr);
    const rows = await readRowsOf(out);
    assertCoversOnce(rows, ds);
    for (const row of rows) {
      assert.equal(row.failed, 0, `row ${keyOf(row)} failed: ${String(row.error_message)}`);
      assert.equal(row.judge_attempts, 1);
    }
    for (const kind of ['429', '500', '503', 'reset', 'hang'] as const) assert.ok(s.stats.faults[kind] >= 1, `no ${kind} was injected`);
    assert.deepEqual(s.repeatedSuccesses(), []);
  });

  it('infer retries a malformed body and keeps an empty reply as the answer', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 40);
    const malformedRow = ds.rows[5]!;
    const emptyRow = ds.rows[9]!;
    const m = rowMarker;
    const seen = new Set<string>();
    const s = await server({
      reply: worldReply,
      latencyMs: latency,
      faultRates: { malformed: 0.05 },
      seed: 3,
      faults: (req) => {
        const text = lastUserText(req);
        if (text.includes(m(emptyRow))) return 'empty';
        if (text.includes(m(malformedRow)) && !seen.has('m')) {
          seen.add('m');
          return 'malformed';
        }
        return undefined;
      },
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '8', '--timeout', TIMEOUT, '--max-retries', '3']));
    // The empty reply is the row's final answer, a failure: exit 1 with the count, the command to ask it again named.
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /infer: 1 row ended failed .*\n {2}.* --retry-failed\n/);
    const rows = await readRowsOf(out);
    assertCoversOnce(rows, ds);
    for (const row of rows) assert.equal(row.error, undefined, `row ${keyOf(row)} failed: ${String(row.error)}`);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    assert.equal(byKey.get(keyOf(emptyRow))!.gen, '');
    assert.match(String(byKey.get(keyOf(malformedRow))!.gen), /prediction/);
    assert.ok(s.stats.faults.malformed >= 2);
    // Every request that got a broken body was asked again and then answered.
    const answered = new Set(s.log.filter((e) => e.outcome === 'ok' || e.outcome === 'empty').map((e) => e.hash));
    for (const e of s.log.filter((x) => x.outcome === 'malformed')) assert.ok(answered.has(e.hash), 'a malformed reply was not retried');
    assert.deepEqual(s.repeatedSuccesses(), []);
    assert.ok(r.stderr.includes(RUN_WORDS.checkRows(1, RUN_WORDS.summaryWarn.empty)), r.stderr);
    // The replies asked again are said, with their count: many point to a proxy or server in trouble.
    assert.match(r.stderr, new RegExp(`warning: ${s.stats.faults.malformed} replies of the world model endpoint were no chat completion`));
  });

  it('judge retries a malformed body and re-asks after empty replies, up to --parse-attempts', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 40);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    // The judge sees earlier turns' actions too; a trajectory's last turn is the only row whose marker is its own.
    const lastTurns = ds.rows.filter((r) => r.turn_idx === r.total_turns);
    const twiceEmpty = lastTurns[4]!;
    const alwaysEmpty = lastTurns[9]!;
    const m = rowMarker;
    let twice = 0;
    const s = await server({
      reply: judgeReply,
      latencyMs: latency,
      faultRates: { malformed: 0.04, empty: 0.04 },
      seed: 5,
      faults: (req) => {
        const text = lastUserText(req);
        if (text.includes(m(alwaysEmpty))) return 'empty';
        if (text.includes(m(twiceEmpty)) && twice < 2) {
          twice++;
          return 'empty';
        }
        return undefined;
      },
    });
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(s.url, preds, out, ['-c', '8', '--timeout', TIMEOUT, '--max-retries', '3', '--parse-attempts', '6']));
    // The row the judge never answers in its format is the only failure: a final result, recorded and counted, and the run exits 1.
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /judge: 1 row ended failed/);
    // One meaning of failed: the summary counts it as score will (total, done, failed, to retry).
    assert.match(r.stderr, /^all\s+\d+\s+\d+\s+1\s+0\s/m);
    const rows = await readRowsOf(out);
    assertCoversOnce(rows, ds);
    const byKey = new Map(rows.map((row) => [keyOf(row), row]));
    const twiceRow = byKey.get(keyOf(twiceEmpty))!;
    assert.equal(twiceRow.failed, 0);
    assert.ok(Number(twiceRow.judge_attempts) >= 3, `judge_attempts ${String(twiceRow.judge_attempts)}`);
    const lost = byKey.get(keyOf(alwaysEmpty))!;
    assert.equal(lost.failed, 1);
    assert.equal(lost.judge_attempts, 6);
    assert.match(String(lost.error_message), /could not be parsed: empty reply/);
    for (const row of rows) if (row !== lost) assert.equal(row.failed, 0, `row ${keyOf(row)} failed: ${String(row.error_message)}`);
    assert.ok(s.stats.faults.malformed + s.stats.faults.empty >= 8);
    assert.deepEqual(s.repeatedSuccesses(), []);
  });
});

// Independent short runs: two at a time keep both cores busy.
describe('errors that would repeat for every row', { concurrency: 2 }, () => {
  const assertFatal = (r: { code: number | null; stderr: string }, url: string, pattern: RegExp) => {
    assert.notEqual(r.code, 0);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, pattern);
    assert.ok(lines[0]!.includes(url), `the error does not name ${url}: ${lines[0]}`);
    assert.deepEqual(stackLines(r.stderr), []);
  };

  it('a rejected key stops at the preflight', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 30);
    const s = await server({ apiKey: 'sk-right-key-000000', reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--model-api-key', 'sk-wrong-key-111111', '-c', '8']));
    assertFatal(r, s.url, /rejected the API key \(401/);
    assert.equal(s.stats.requests, 0);
    assert.ok(s.stats.modelListRequests <= 2);
  });

  it('a rejected key without preflight stops after the first requests, not one per row', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const s = await server({ apiKey: 'sk-right-key-000000', reply: worldReply, latencyMs: 10 });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--model-api-key', 'sk-wrong-key-111111', '-c', '4', '--no-preflight']));
    assertFatal(r, s.url, /rejected the API key \(401/);
    assert.ok(s.stats.requests >= 1 && s.stats.requests <= 4, `${s.stats.requests} requests`);
    // Nothing was answered, so nothing is recorded as done or failed.
    assert.equal((await readJsonlFile(out)).lines.length, 0);
  });

  it('an account that runs out of quota mid-run: the requests already under way are answered and saved, not abandoned', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 40);
    const message = 'You exceeded your current quota, please check your plan and billing details.';
    // Up to the 11th request, answers after 1.5 s; from the 12th, out of quota at once, while the 10th and 11th are still under way.
    const s = await server({
      reply: worldReply,
      latencyMs: (_req, n) => (n < 12 ? 1500 : 0),
      faults: (_req, n) => (n >= 12 ? { kind: '429', code: 'insufficient_quota', message } : undefined),
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '8']));
    assertFatal(r, s.url, /no quota left \(429 insufficient_quota\)/);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /^infer: stopping: no new requests; waiting for the ones in flight$/m);
    assert.equal(s.stats.clientClosed, 0, 'a request under way was abandoned');
    const answered = (await readRowsOf(out)).filter((row) => row.error === undefined && typeof row.gen === 'string' && row.gen !== '');
    assert.equal(answered.length, s.stats.successes);
    assert.ok(s.stats.successes > 9, `${s.stats.successes} answered: none was under way when the quota ran out`);
  });

  it('an account out of quota (429 insufficient_quota) stops at once instead of spending the retries of every row', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 40);
    const message = 'You exceeded your current quota, please check your plan and billing details.';
    const s = await server({ reply: worldReply, faults: () => ({ kind: '429', code: 'insufficient_quota', message }) });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '4']));
    assertFatal(r, s.url, /no quota left \(429 insufficient_quota\): .*You exceeded your current quota/);
    assert.equal(r.code, 3);
    assert.ok(s.stats.requests >= 1 && s.stats.requests <= 4, `${s.stats.requests} requests`);
    assert.equal((await readJsonlFile(out)).lines.length, 0);
  });

  it('an unknown model stops at the preflight, naming what the endpoint serves', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 30);
    const s = await server({ models: ['served-model'], reply: worldReply });
    const r = await runAwb(inferArgs(s.url, ds.dir, join(dir, 'pred.jsonl'), ['-c', '8']));
    assertFatal(r, s.url, /does not serve model "test-model".*; it lists: served-model; give the name it serves with --model-name$/);
    // Only the preflight's one-token request for the model the list leaves out (a pinned server would answer it); no row.
    assert.equal(s.stats.requests, 1);
  });

  it('an unknown model without preflight stops on the first 404, naming what the endpoint serves', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const s = await server({ models: ['served-model'], reply: worldReply, latencyMs: 10 });
    const r = await runAwb(inferArgs(s.url, ds.dir, join(dir, 'pred.jsonl'), ['-c', '4', '--no-preflight']));
    assertFatal(
      r,
      s.url,
      /does not know model "test-model" \(404\): 404 The model `test-model` does not exist.*; it serves: served-model; give the name it serves with --model-name$/,
    );
    assert.ok(s.stats.requests >= 1 && s.stats.requests <= 4, `${s.stats.requests} requests`);
  });

  it('the judge stops the same way on a rejected key', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 30);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const s = await server({ apiKey: 'sk-right-key-000000', reply: judgeReply });
    const r = await runAwb(
      judgeArgs(s.url, preds, join(dir, 'judged.jsonl'), ['--judge-api-key', 'sk-wrong-key-111111', '--no-preflight', '-c', '4']),
    );
    assertFatal(r, s.url, /judge endpoint .* rejected the API key \(401/);
    assert.ok(s.stats.requests <= 4, `${s.stats.requests} requests`);
  });

  it('nothing listening: "cannot reach"', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 10);
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await runAwb(inferArgs(url, ds.dir, join(dir, 'pred.jsonl')));
    assertFatal(r, url, /cannot reach world model endpoint/);
  });
});

describe('an endpoint that is no OpenAI-compatible server', () => {
  it('a web page answering every path (a URL without /v1, a web UI): infer and judge stop at the preflight (exit 3), awb models too', async () => {
    const { url, seen } = await rawServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>Welcome</body></html>');
    });
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6);
    const inferred = await runAwb(inferArgs(url, ds.dir, join(dir, 'pred.jsonl')));
    const preds = join(dir, 'preds.jsonl');
    await writePredictions(ds, preds);
    const judged = await runAwb(judgeArgs(url, preds, join(dir, 'judged.jsonl')));
    const listed = await runAwb(['models', '--base-url', url]);
    for (const r of [inferred, judged, listed]) {
      assert.equal(r.code, 3, r.stderr);
      const lines = errorLines(r.stderr);
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /answered .*with something other than JSON \("<!doctype html>.*URL end in \/v1/);
      assert.ok(lines[0]!.includes(url));
      assert.deepEqual(stackLines(r.stderr), []);
    }
    assert.deepEqual(
      seen.filter((s) => s.startsWith('POST')),
      [],
      'no row was sent',
    );
  });
});

describe('a row that keeps failing', () => {
  it('is recorded with its error, the others finish, and the next run redoes only it', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 30);
    const bad = ds.rows[10]!;
    const marker = rowMarker(bad);
    let broken = true;
    const s = await server({
      reply: worldReply,
      latencyMs: 10,
      faults: (req) => (broken && lastUserText(req).includes(marker) ? '500' : undefined),
    });
    const out = join(dir, 'pred.jsonl');
    const args = inferArgs(s.url, ds.dir, out, ['-c', '8', '--max-retries', '1']);

    const first = await runAwb(args);
    assert.equal(first.code, 1, first.stderr);
    const rows = await readRowsOf(out);
    assertCoversOnce(rows, ds);
    const failed = rows.filter((r) => r.error !== undefined);
    assert.deepEqual(failed.map(keyOf), [keyOf(bad)]);
    assert.equal(failed[0]!.gen, '');
    assert.match(String(failed[0]!.error), /500/);
    assert.match(first.stderr, /^all\s+30\s+29\s+1\s+1\s/m, 'the summary does not count the failure (to retry)');
    assert.match(first.stderr, /1 row failed/);
    // --max-retries 1: the first try and one retry.
    assert.equal(s.log.filter((e) => e.outcome === '500').length, 2);
    assert.deepEqual(s.repeatedSuccesses(), []);

    broken = false;
    const before = s.log.length;
    const second = await runAwb(args);
    assert.equal(second.code, 0, second.stderr);
    const fresh = s.log.slice(before);
    assert.equal(fresh.length, 1);
    assert.equal(fresh[0]!.outcome, 'ok');
    assert.ok(lastUserText(fresh[0]!.request!).includes(marker));
    const again = await readRowsOf(out);
    assertCoversOnce(again, ds);
    for (const row of again) assert.equal(row.error, undefined);
    assert.deepEqual(s.repeatedSuccesses(), []);
  });
});

describe('failures that say what to change: refusals that are the settings, waits not taken, timeouts', { concurrency: 2 }, () => {
  const unknownField = 'Unrecognized request argument supplied: foo';

  it('infer: the same 400 for request after request, none answered, stops the run (exit 3) rather than failing every row', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const s = await server({ reply: worldReply, faults: () => ({ kind: '400', message: unknownField }) });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '4']));
    assert.equal(r.code, 3, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /refused 10 requests in a row with the same error and answered none: 400 Unrecognized request argument supplied: foo; .*--extra-body/,
    );
    assert.ok(lines[0]!.includes(s.url));
    assert.deepEqual(stackLines(r.stderr), []);
    assert.ok(s.stats.requests >= 10 && s.stats.requests <= 13, `${s.stats.requests} requests`);
  });

  it('judge: the same; a refusal of max_tokens names the --extra-body that leaves it out (the budget also goes as max_completion_tokens)', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
    const s = await server({ reply: judgeReply, faults: () => ({ kind: '400', message }) });
    const r = await runAwb(judgeArgs(s.url, preds, join(dir, 'judged.jsonl'), ['-c', '4', '--max-tokens', '4096']));
    assert.equal(r.code, 3, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(
      lines[0]!,
      /^awb: judge endpoint .* refused 10 requests in a row with the same error and answered none: 400 Unsupported parameter/,
    );
    assert.ok(lines[0]!.endsWith(`run the same command again with --extra-body '{"max_tokens":null}'`), lines[0]);
    assert.ok(s.stats.requests <= 13, `${s.stats.requests} requests`);
  });

  it("infer: OpenAI's refusal of any temperature but the default names --temperature 1", async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 60);
    const message = "Unsupported value: 'temperature' does not support 0.6 with this model. Only the default (1) value is supported.";
    const s = await server({ reply: worldReply, faults: () => ({ kind: '400', message }) });
    const r = await runAwb(inferArgs(s.url, ds.dir, join(dir, 'pred.jsonl'), ['-c', '4']));
    assert.equal(r.code, 3, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /refused 10 requests in a row with the same error and answered none: 400 Unsupported value: 'temperature'/);
    assert.ok(
      lines[0]!.endsWith('this model takes only its default temperature: run the same command again with --temperature 1'),
      lines[0],
    );
  });

  it("a refusal the same for several rows once the settings were answered is the rows' own: each fails, the run goes on", async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 40);
    const filtered = new Set(
      ds.rows
        .filter((r) => r.turn_idx === r.total_turns)
        .slice(0, 12)
        .map(rowMarker),
    );
    const message = 'The response was filtered due to the prompt triggering the content management policy.';
    const s = await server({
      reply: worldReply,
      faults: (req) => ([...filtered].some((m) => lastUserText(req).includes(m)) ? { kind: '400', message } : undefined),
    });
    const out = join(dir, 'pred.jsonl');
    const args = inferArgs(s.url, ds.dir, out, ['-c', '4']);
    const first = await runAwb(args);
    assert.equal(first.code, 1, first.stderr);
    // Run again, only the 12 refused rows are sent: none is answered, yet the rows before them were, with the same settings.
    const before = s.stats.requests;
    const second = await runAwb(args);
    assert.equal(second.code, 1, second.stderr);
    assert.equal(s.stats.requests - before, filtered.size);
    const rows = await readRowsOf(out);
    assertCoversOnce(rows, ds);
    const failed = rows.filter((r) => r.error !== undefined);
    assert.equal(failed.length, filtered.size);
    for (const row of failed) assert.equal(row.error, `400 ${message}`);
  });

  it('a request that outlasts --timeout fails its row naming the limit, so a longer one can be given', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 2);
    const s = await server({ reply: worldReply, faults: () => 'hang' });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--timeout', '1', '--max-retries', '0']));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.deepEqual(
      rows.map((row) => row.error),
      ['request timed out after 1 s (--timeout)', 'request timed out after 1 s (--timeout)'],
    );
  });

  it('a 429 asking to wait longer than awb waits (a daily quota) fails its rows saying so', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const s = await server({
      reply: worldReply,
      faults: () => ({ kind: '429', retryAfter: 86_400, message: 'Daily request limit reached.' }),
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--max-retries', '1']));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, 3);
    for (const row of rows)
      assert.equal(
        row.error,
        '429 Daily request limit reached. (the server asked to wait 86400 s; awb waits at most 60 s: run the same command again once it takes requests)',
      );
    assert.match(r.stderr, /3 × 429 Daily request limit reached\. \(the server asked to wait 86400 s/);
  });
});

describe('replies that carry no answer say why, when the reply tells', () => {
  it("infer: a refusal (content null) is recorded in gen_refusal, and the summary counts the model's words, not an empty reply", async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4);
    const refused = rowMarker(ds.rows[1]!);
    const words = "I'm sorry, I can't help with that.";
    const s = await server({
      reply: (req) => (lastUserText(req).includes(refused) ? { content: null, refusal: words } : worldReply(req, { requestNo: 0 })),
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    const byRefusal = rows.filter((row) => row.gen_refusal !== undefined);
    assert.equal(byRefusal.length, 1);
    assert.equal(byRefusal[0]!.gen, '');
    assert.equal(byRefusal[0]!.gen_refusal, words);
    assert.equal(byRefusal[0]!.error, undefined);
    assert.match(r.stderr, /1 × the model refused: I'm sorry, I can't help with that\./);
    assert.ok(r.stderr.includes(RUN_WORDS.checkRows(1, RUN_WORDS.summaryWarn.empty)), r.stderr);
  });

  it('a refusal (content null) and a reply cut off at --max-tokens are named in the row, not taken for a judge writing the wrong format', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const refused = rowMarker(ds.rows.find((r) => r.turn_idx === r.total_turns)!);
    const s = await server({
      reply: (req) =>
        lastUserText(req).includes(refused)
          ? { content: null, refusal: "I'm sorry, I can't help with that." }
          : { content: '<think>Let me weigh the format first', finish_reason: 'length' },
    });
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(s.url, preds, out, ['--parse-attempts', '2']));
    // Six rows, every reply unparseable: fewer questions than stop a judge early (8), so each row ends failed: exit 1.
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /judge: 6 rows ended failed/);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, 6);
    for (const row of rows) {
      assert.equal(row.failed, 1);
      const why =
        rowMarker(row as never) === refused ? " (the judge refused: I'm sorry, I can't help with that.)" : ' (cut off by --max-tokens)';
      assert.match(String(row.error_message), /^Judge scoring failed: reply could not be parsed: /);
      assert.ok(String(row.error_message).endsWith(why), String(row.error_message));
    }
  });
});

describe("a model that refuses max_tokens (OpenAI's gpt-5 and o-series)", () => {
  it('is judged with max_tokens left out by null in --extra-body: the budget goes as max_completion_tokens alone', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const message = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
    const s = await server({ reply: judgeReply, faults: (req) => (req.max_tokens !== undefined ? { kind: '400', message } : undefined) });
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(s.url, preds, out, ['--max-tokens', '4000', '--extra-body', '{"max_tokens": null}']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await readRowsOf(out)).length, 4);
    for (const e of s.log) {
      assert.equal(e.request!.max_completion_tokens, 4000);
      assert.equal(Object.hasOwn(e.request!, 'max_tokens'), false);
    }
  });
});

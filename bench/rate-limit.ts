/*
 * `npm run bench:rate`: does `awb judge` finish as fast as a tokens-per-minute
 * limit allows, without a 429 storm? Judges the full-size bench data
 * (generate.ts) against a local server enforcing a TPM limit the way OpenAI
 * does (test/support/rate-limited-server.ts), first without a limit
 * (the reference results and the run's total tokens), then paced (the
 * default) and with --no-pace at fixed -c 8/32/64 for comparison.
 *
 * The limit is set so that the limit-bound time is BENCH_RATE_WINDOWS
 * "minutes"; a "minute" lasts BENCH_RATE_WINDOW_MS (the limits refill faster
 * than a real minute, so a run takes minutes, not an hour). The defaults make
 * that bound three minutes while TPM stays above the largest request: with
 * more windows that request can never fit, and the paced run stops there.
 * Knobs: BENCH_SCALE (1), BENCH_RATE_WINDOWS (50), BENCH_RATE_WINDOW_MS
 * (3600), BENCH_LATENCY_MS (250), BENCH_RATE_FIXED (8,32,64; "" for none).
 */
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ensureDataset } from './generate.js';
import { startRateLimitedServer, type RateLimitedServer } from '../test/support/rate-limited-server.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = join(root, '.bench');
const outDir = join(benchDir, 'out-rate');
const env = (name: string, fallback: string) => process.env[name] ?? fallback;
const scale = Number(env('BENCH_SCALE', '1'));
const windows = Number(env('BENCH_RATE_WINDOWS', '50'));
const windowMs = Number(env('BENCH_RATE_WINDOW_MS', '3600'));
const latencyMs = Number(env('BENCH_LATENCY_MS', '250'));
const fixed = env('BENCH_RATE_FIXED', '8,32,64').split(',').filter(Boolean).map(Number);
const log = (s: string) => process.stderr.write(`bench:rate: ${s}\n`);

/** The predictions the judge grades: each data line with a `gen` (its turn's true response is not needed: the judge is fake). */
async function writePredictions(dataDir: string, path: string): Promise<void> {
  if (existsSync(path)) return;
  const out = createWriteStream(path);
  for (const f of (await readdir(dataDir)).filter((n) => n.endsWith('_test.jsonl')).sort()) {
    for await (const line of createInterface({ input: createReadStream(join(dataDir, f)), crlfDelay: Infinity })) {
      if (line.trim()) out.write(`${line.slice(0, line.lastIndexOf('}'))},"gen":"<predicted_observation>ok</predicted_observation>"}\n`);
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Each row's judgement by its key (what must not depend on how the run was paced), and the rows' errors. */
async function judgements(path: string): Promise<{ rows: Map<string, string>; errors: Map<string, string> }> {
  const rows = new Map<string, string>();
  const errors = new Map<string, string>();
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    const r = JSON.parse(line) as Record<string, unknown>;
    const key = `${String(r.task)}|${String(r.id)}|${String(r.turn_idx)}`;
    rows.set(key, JSON.stringify([r.total_score, r.failed, r.judge_raw_output]));
    if (typeof r.error_message === 'string') errors.set(key, r.error_message);
  }
  return { rows, errors };
}

/** How the rows that differ from the reference differ: their errors' first words, counted. */
function differences(keys: string[], errors: Map<string, string>): string {
  const counts = new Map<string, number>();
  for (const k of keys) {
    const e = errors.get(k)?.slice(0, 60) ?? 'no error';
    counts.set(e, (counts.get(e) ?? 0) + 1);
  }
  return [...counts].map(([e, n]) => `${n} × "${e}"`).join('; ');
}

function judge(url: string, predictions: string, output: string, extra: string[]): Promise<{ wallS: number; code: number | null }> {
  const args = [
    'judge',
    '--judge-base-url',
    url,
    '--judge-model',
    'test-model',
    '--predictions',
    predictions,
    '-o',
    output,
    '--no-progress',
    ...extra,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'awb.js'), ...args], {
    env: { ...process.env, AWB_JUDGE_API_KEY: 'bench', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ wallS: (performance.now() - started) / 1000, code })));
}

interface Row {
  run: string;
  wallS: number;
  ratio: number;
  requests: number;
  rateLimited: number;
  identical: string;
}

/** A fresh output each time: an earlier one would be resumed, sending nothing. */
async function fresh(output: string): Promise<string> {
  await rm(output, { force: true });
  await rm(`${output}.manifest.json`, { force: true });
  return output;
}

async function measured(
  s: RateLimitedServer,
  name: string,
  predictions: string,
  extra: string[],
  expected: Map<string, string>,
  boundS: number,
) {
  s.reset();
  log(`${name}: load average ${loadavg()[0]!.toFixed(2)} before`);
  const output = await fresh(join(outDir, `${name}.jsonl`));
  const { wallS, code } = await judge(s.url, predictions, output, extra);
  const got = await judgements(output);
  const differ = [...expected].filter(([k, v]) => got.rows.get(k) !== v).map(([k]) => k);
  const row: Row = {
    run: name,
    wallS,
    ratio: wallS / boundS,
    requests: s.stats.requests,
    rateLimited: s.stats.rateLimited,
    identical: differ.length ? `no: ${differ.length} rows differ (exit ${code}): ${differences(differ, got.errors)}` : 'yes',
  };
  log(JSON.stringify(row));
  return row;
}

await mkdir(outDir, { recursive: true });
const data = await ensureDataset(benchDir, scale, log);
const predictions = join(outDir, `predictions-${scale}.jsonl`);
await writePredictions(data.dir, predictions);

const free = await startRateLimitedServer({ latencyMs });
log(`load average ${loadavg()[0]!.toFixed(2)}; reference run without a limit (-c 64), ${data.rows} rows ...`);
const ref = await judge(free.url, predictions, await fresh(join(outDir, 'reference.jsonl')), ['-c', '64']);
const total = free.stats.tokens;
await free.close();
const expected = (await judgements(join(outDir, 'reference.jsonl'))).rows;
const tpm = Math.ceil(total / windows);
const boundS = ((total / tpm) * windowMs) / 1000;
log(
  `reference: ${ref.wallS.toFixed(1)} s, ${total} tokens; limit ${tpm} tokens per ${windowMs} ms "minute": total ÷ TPM = ${boundS.toFixed(1)} s`,
);

const limited = await startRateLimitedServer({ tpm, windowMs, latencyMs });
const rows: Row[] = [await measured(limited, 'paced -c 64', predictions, ['-c', '64'], expected, boundS)];
for (const c of fixed)
  rows.push(await measured(limited, `--no-pace -c ${c}`, predictions, ['-c', String(c), '--no-pace'], expected, boundS));
await limited.close();

const table = [
  `${data.rows} rows, ${total} tokens, TPM ${tpm} per ${windowMs / 1000} s "minute", latency ${latencyMs} ms: total ÷ TPM = ${boundS.toFixed(1)} s`,
  '',
  '| run | wall | wall ÷ (tokens ÷ TPM) | requests | answered 429 | results as unlimited |',
  '| --- | ---: | ---: | ---: | ---: | --- |',
  ...rows.map(
    (r) =>
      `| ${r.run} | ${r.wallS.toFixed(1)} s | ${r.ratio.toFixed(2)} × | ${r.requests} | ${r.rateLimited} (${((100 * r.rateLimited) / r.requests).toFixed(1)} %) | ${r.identical} |`,
  ),
].join('\n');
process.stdout.write(`${table}\n`);

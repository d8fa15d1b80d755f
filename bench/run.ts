/*
 * `npm run bench`: is awb as fast as the endpoint allows, in constant
 * memory? Runs the real CLI (bin/awb.js on dist/) as child processes over a
 * full-size synthetic dataset against a local endpoint that answers after a
 * fixed latency, and compares each figure with the target from the issue.
 *
 * Knobs (environment):
 *   BENCH_LATENCY_MS   endpoint latency per request (default 1000)
 *   BENCH_CONCURRENCY  --concurrency for infer and judge (default 64)
 *   BENCH_SCALE        fraction of the rows, e.g. 0.1 for a quick run (default 1)
 *   BENCH_REUSE=1      keep predictions/judged outputs from an earlier run
 *                      instead of making them again (their rows then say "reused")
 *   BENCH_STEPS        comma list of infer,judge,resume,score,report,startup,small,drift (default all;
 *                      resume: the judge command again on its finished output; small: 86 rows
 *                      shaped as the bundled fixtures against a 0.5 s endpoint)
 *   BENCH_AWB_NODE_ARGS  extra node flags for the awb children, e.g.
 *                      "--cpu-prof --cpu-prof-dir=.bench/prof" to profile them
 *   BENCH_AWB_ARGS     extra awb options for infer and judge, e.g.
 *                      "--max-inflight-mb 24"
 *   BENCH_MEM_TRACE=1  sample each awb child's memory (heap spaces, buffers)
 *                      every 100 ms into .bench/logs/<step>.mem.jsonl
 *
 * BENCH_CACHE=1 measures what a run costs a server with a prefix cache
 * instead (issue 13): infer, then judge, on the data with each file's rows
 * shuffled, against the endpoint's simulated cache, at each concurrency of
 * BENCH_CONCURRENCY (a comma list there, default 32,64). It reports the bytes
 * prefilled against the one-at-a-time minimum of the same requests, and the
 * wall time against (rows × latency + prefill cost of that minimum) ÷
 * concurrency. Its knobs go to the endpoint: BENCH_PREFILL_MS_PER_MB (1000),
 * BENCH_CACHE_BLOCK_BYTES (4096), BENCH_CACHE_BLOCKS (0: no eviction),
 * BENCH_CACHED_TOKENS=absent (usage without cached_tokens). Beside the
 * measured runs it reports the order alone in virtual time
 * (schedule-sim.ts), which no load on the machine can slow.
 *
 * The drift step (BENCH_STEPS=drift, issue 53) runs a free-running infer,
 * `infer --horizon H` (BENCH_HORIZON, default 4: chains of up to H + 1
 * requests a row, each extending the one before), on the full data with each
 * file's rows shuffled, against the endpoint with its simulated prefix cache
 * (the BENCH_CACHE knobs above). It reports the bytes prefilled against the
 * minimum (every chain in order, each step after the prompts it extends), and
 * the wall time against the endpoint-bound ideal: (requests × latency +
 * prefill cost of the minimum) ÷ concurrency, or the longest run of requests
 * one after another when that is longer.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { EndpointStats } from './endpoint.js';
import { ensureDataset, ensureShuffled, type DatasetInfo } from './generate.js';
import { measure, median, type Measured } from './measure.js';
import { pageTimings } from './report-page.js';
import { virtualRuns } from './schedule-sim.js';
import { countLines, datasetFiles, planLines } from '../src/core/rows/index.js';
import { scheduleRows } from '../src/core/runner/plan.js';
import { chainKey } from '../src/core/runner/schedule.js';
import { readManifest } from '../src/core/output/output-file.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const benchDir = join(root, '.bench');
const outDir = join(benchDir, 'out');
const logDir = join(benchDir, 'logs');
const awbBin = join(root, 'bin', 'awb.js');

const latencyMs = envNumber('BENCH_LATENCY_MS', 1000);
const cacheMode = process.env.BENCH_CACHE === '1';
const concurrencies = envNumbers('BENCH_CONCURRENCY', cacheMode ? [32, 64] : [64]);
const concurrency = concurrencies[0]!;
const prefillMsPerMB = envNumber('BENCH_PREFILL_MS_PER_MB', 1000);
const scale = envNumber('BENCH_SCALE', 1);
const reuse = process.env.BENCH_REUSE === '1';
const steps = new Set((process.env.BENCH_STEPS ?? 'infer,judge,resume,score,report,startup,small,drift').split(',').map((s) => s.trim()));
const awbNodeArgs = (process.env.BENCH_AWB_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const awbArgs = (process.env.BENCH_AWB_ARGS ?? '').split(/\s+/).filter(Boolean);
const memTrace = process.env.BENCH_MEM_TRACE === '1';
const horizon = process.env.BENCH_HORIZON ?? '4';
if (memTrace) awbNodeArgs.push('--import', join(root, 'bench', 'mem-sampler.mjs'));

const RSS_TARGET_MB = 200;
// Issue 53's: a free-running infer within 256 MB.
const DRIFT_RSS_TARGET_MB = 256;
const PREFILL_TARGET = 1.05;
const CACHE_WALL_TARGET = 1.15;
const WALL_TARGET = 1.1;
const SCORE_TARGET = 1.5;
const HELP_TARGET_RATIO = 1.5;
// Issue 50's small run: 86 rows shaped as the bundled fixtures, an endpoint answering in 0.5 s, -c 64.
const SMALL_ROWS = 86;
const SMALL_LATENCY_MS = 500;
const SMALL_OVERHEAD_S = 1;
// Issue 15's targets for `awb report` on the full data; "responsive" taken as a redraw within 100 ms.
const REPORT_WALL_S = 30;
const REPORT_RSS_MB = 300;
const REPORT_MB = 25;
const REPORT_PAGE_MS = 3000;
const REPORT_INTERACTION_MS = 100;

function envNumber(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${v}: expected a positive number`);
  return n;
}

function envNumbers(name: string, fallback: number[]): number[] {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const ns = v.split(',').map(Number);
  if (ns.some((n) => !Number.isFinite(n) || n <= 0)) throw new Error(`${name}=${v}: expected positive numbers, comma-separated`);
  return ns;
}

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

/** Children get no keys from the developer's shell and no colours. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    AWB_MODEL_API_KEY: 'bench',
    AWB_JUDGE_API_KEY: 'bench',
  };
  for (const k of ['OPENAI_API_KEY', 'HF_TOKEN', 'HF_ENDPOINT', 'NODE_OPTIONS']) delete env[k];
  return env;
}

interface Endpoint {
  url: string;
  judgeUrl: string;
  stats: () => Promise<EndpointStats>;
  reset: () => Promise<void>;
  stop: () => Promise<void>;
}

/** The endpoint in its own process, so its CPU is not counted as awb's and it cannot slow the bench's own timers. */
async function startEndpoint(latency = latencyMs, env: NodeJS.ProcessEnv = {}): Promise<Endpoint> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'endpoint.ts')], {
    cwd: root,
    env: { ...childEnv(), BENCH_LATENCY_MS: String(latency), ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`bench endpoint exited early (${code})`)));
  });
  const base = url.replace(/\/v1$/, '');
  return {
    url,
    judgeUrl: `${base}/judge/v1`,
    stats: async () => (await (await fetch(`${base}/bench/stats`)).json()) as EndpointStats,
    reset: async () => {
      await fetch(`${base}/bench/reset`, { method: 'POST' });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

function awbArgv(args: string[]): string[] {
  return [process.execPath, ...awbNodeArgs, awbBin, ...args];
}

async function run(label: string, argv: string[]): Promise<Measured> {
  return measure({
    argv,
    env: { ...childEnv(), ...(memTrace ? { BENCH_MEM_TRACE_FILE: join(logDir, `${label}.mem.jsonl`) } : {}) },
    cwd: root,
    stdoutFile: join(logDir, `${label}.stdout`),
    stderrFile: join(logDir, `${label}.stderr`),
    tmpDir: logDir,
  });
}

function tail(path: string, lines = 8): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function manifestComplete(output: string): Promise<boolean> {
  return (await readManifest(output).catch(() => undefined))?.complete === true;
}

interface StageFigures {
  m: Measured;
  server: EndpointStats;
  rows: number;
}

/** One stage (infer or judge) from a fresh output, checked for completeness. */
async function runStageBench(
  ep: Endpoint,
  label: string,
  args: string[],
  output: string,
  expectRows: number,
  c = concurrency,
): Promise<StageFigures | 'reused'> {
  if (reuse && (await manifestComplete(output))) {
    log(`${label}: reusing ${output}`);
    return 'reused';
  }
  await rm(output, { force: true });
  await rm(`${output}.manifest.json`, { force: true });
  await ep.reset();
  noteLoad(label);
  log(
    `${label}: running (${expectRows} rows at concurrency ${c}, flat-latency ideal ${((expectRows * latencyMs) / c / 1000).toFixed(1)} s) ...`,
  );
  const m = await run(label, awbArgv(args));
  const server = await ep.stats();
  const rows = existsSync(output) ? await countLines(output) : 0;
  log(
    `${label}: load ${loadavg()[0]!.toFixed(1)}, ${m.wallS.toFixed(1)} s wall, ${(m.userS + m.sysS).toFixed(1)} s CPU, ${m.peakRssMB.toFixed(0)} MB peak RSS, exit ${m.code}, ${rows} rows written, max ${server.maxInFlight} in flight`,
  );
  if (m.code !== 0 || rows !== expectRows) {
    throw new Error(
      `${label} did not finish cleanly (exit ${m.code ?? m.signal}, ${rows}/${expectRows} rows); its stderr ends:\n${tail(join(logDir, `${label}.stderr`))}`,
    );
  }
  return { m, server, rows };
}

async function bestOf(n: number, label: string, argv: string[]): Promise<{ best: Measured; maxRssMB: number; runs: Measured[] }> {
  const runs: Measured[] = [];
  for (let i = 0; i < n; i++) {
    const m = await run(`${label}-${i + 1}`, argv);
    if (m.code !== 0)
      throw new Error(`${label} failed (exit ${m.code ?? m.signal}); its stderr ends:\n${tail(join(logDir, `${label}-${i + 1}.stderr`))}`);
    runs.push(m);
  }
  const best = runs.reduce((a, b) => (b.wallS < a.wallS ? b : a));
  return { best, maxRssMB: Math.max(...runs.map((r) => r.peakRssMB)), runs };
}

/**
 * `awb --help` and, interleaved with it, a bare `node -e ""`: Node's own
 * start-up is most of the figure and swings with the machine's load, so the
 * difference is what awb itself costs.
 */
function startupMs(runs: number): { median: number; all: number[]; bareMedian: number } {
  const argv = awbArgv(['--help']);
  const bare = [process.execPath, '-e', ''];
  const time = (cmd: string[]) => {
    const t = performance.now();
    const r = spawnSync(cmd[0]!, cmd.slice(1), { stdio: 'ignore', env: childEnv() });
    if (r.status !== 0) throw new Error(`${cmd.join(' ')} exited ${r.status}`);
    return performance.now() - t;
  };
  time(argv); // warm the file cache
  const all: number[] = [];
  const bareAll: number[] = [];
  for (let i = 0; i < runs; i++) {
    all.push(time(argv));
    bareAll.push(time(bare));
  }
  return { median: median(all), all, bareMedian: median(bareAll) };
}

/**
 * The bundled fixtures' rows repeated under new ids to SMALL_ROWS rows: the shape of a smoke run (a few turns of
 * each trajectory), small enough that start-up and the endpoint check are a visible part of the run.
 */
async function smallDataset(): Promise<string> {
  const dir = join(benchDir, 'small');
  const files = (await datasetFiles(join(root, 'fixtures', 'data'))).map((f) => f.path);
  const lines = files.map((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
  const total = lines.reduce((n, l) => n + l.length, 0);
  await mkdir(dir, { recursive: true });
  let made = 0;
  for (const [i, f] of files.entries()) {
    const want = i === files.length - 1 ? SMALL_ROWS - made : Math.round((SMALL_ROWS * lines[i]!.length) / total);
    const out: string[] = [];
    for (let k = 0; out.length < want; k++)
      for (const line of lines[i]!.slice(0, want - out.length)) {
        const row = JSON.parse(line) as { id: unknown };
        out.push(JSON.stringify({ ...row, id: `${String(row.id)}-${k}` }));
      }
    made += out.length;
    await writeFile(join(dir, basename(f)), `${out.join('\n')}\n`);
  }
  return dir;
}

/**
 * A small infer run, three times: its wall time against the endpoint's own time for the same rows (the cache-aware
 * order in virtual time, schedule-sim.ts: a trajectory's turns one after another) and against two rounds.
 */
async function smallRunRows(): Promise<Row[]> {
  noteLoad('small');
  const data = await smallDataset();
  const files = (await datasetFiles(data)).map((f) => f.path);
  const [order] = await virtualRuns(files, [64], SMALL_LATENCY_MS, 0);
  const ep = await startEndpoint(SMALL_LATENCY_MS);
  try {
    const runs: Measured[] = [];
    for (let i = 1; i <= 3; i++) {
      const folder = join(outDir, 'small');
      await rm(folder, { recursive: true, force: true });
      const args = ['infer', '--data', data, '--model-base-url', ep.url, '--model-name', 'bench', '-c', '64', '--no-progress'];
      const m = await run(`small-${i}`, awbArgv([...args, '-o', join(folder, 'predictions.jsonl')]));
      if (m.code !== 0) throw new Error(`the small run failed (exit ${m.code ?? m.signal}): ${tail(join(logDir, `small-${i}.stderr`))}`);
      runs.push(m);
    }
    const wall = median(runs.map((r) => r.wallS));
    const endpointS = order!.makespanS;
    return [
      {
        figure: `small run: ${SMALL_ROWS} rows, endpoint ${SMALL_LATENCY_MS} ms, -c 64 (median of 3)`,
        value: `${sec(wall)} wall, ${sec(median(runs.map((r) => r.userS + r.sysS)))} CPU; the endpoint's time ${sec(endpointS)} (a trajectory's turns in order; two rounds: ${sec((2 * SMALL_LATENCY_MS) / 1000)}); overhead ${sec(wall - endpointS)}`,
        target: `overhead < ${SMALL_OVERHEAD_S} s`,
        result: verdict(wall - endpointS < SMALL_OVERHEAD_S),
      },
    ];
  } finally {
    await ep.stop();
  }
}

// ---- the table ----

interface Row {
  figure: string;
  value: string;
  target: string;
  result: 'PASS' | 'MISS' | '—';
}

const mb = (x: number) => `${x.toFixed(0)} MB`;
const sec = (x: number) => `${x.toFixed(2)} s`;
const verdict = (ok: boolean): Row['result'] => (ok ? 'PASS' : 'MISS');

/** The same judge command run again on its finished output: it reads what is there and sends nothing. */
async function resumeRow(ep: Endpoint, output: string): Promise<Row> {
  await ep.reset();
  noteLoad('resume');
  log('resume: the judge command again, on its finished output ...');
  const m = await run('judge-resume', awbArgv(stageArgs(ep, 'judge', predictions, concurrency, output)));
  const sent = (await ep.stats()).requests;
  if (m.code !== 0)
    throw new Error(
      `the judge's resume failed (exit ${m.code ?? m.signal}); its stderr ends:\n${tail(join(logDir, 'judge-resume.stderr'))}`,
    );
  return {
    figure: 'judge run again on its finished output',
    value: `${sec(m.wallS)} wall, ${sec(m.userS + m.sysS)} CPU, ${mb(m.peakRssMB)} peak RSS; ${sent} requests sent`,
    target: 'figure only (0 requests)',
    result: sent === 0 ? '—' : 'MISS',
  };
}

function stageRows(label: string, f: StageFigures | 'reused' | undefined, n: number): Row[] {
  if (f === undefined) return [{ figure: `${label}`, value: 'not run (BENCH_STEPS)', target: '', result: '—' }];
  if (f === 'reused')
    return [{ figure: `${label}`, value: 'reused an earlier output (BENCH_REUSE=1), not measured', target: '', result: '—' }];
  const ideal = (n * latencyMs) / concurrency / 1000;
  const rounds = (Math.ceil(n / concurrency) * latencyMs) / 1000;
  const ratio = f.m.wallS / ideal;
  return [
    {
      figure: `${label} wall time`,
      value: `${sec(f.m.wallS)} = ${ratio.toFixed(3)} × ideal ${sec(ideal)} (${Math.ceil(n / concurrency)} full rounds: ${sec(rounds)})`,
      target: `≤ ${WALL_TARGET.toFixed(2)} × ideal (${sec(ideal * WALL_TARGET)})`,
      result: verdict(ratio <= WALL_TARGET),
    },
    {
      figure: `${label} CPU (user + sys)`,
      value: `${sec(f.m.userS + f.m.sysS)} (${sec(f.m.userS)} + ${sec(f.m.sysS)})`,
      target: 'figure only',
      result: '—',
    },
    {
      figure: `${label} peak RSS`,
      value: mb(f.m.peakRssMB),
      target: `≤ ${RSS_TARGET_MB} MB`,
      result: verdict(f.m.peakRssMB <= RSS_TARGET_MB),
    },
    {
      figure: `${label} requests in flight (server)`,
      value:
        `max ${f.server.maxInFlight}, time-weighted mean ${f.server.meanInFlight.toFixed(1)}; first request ${sec((f.server.firstAt - f.m.startedAt) / 1000)} after start, ` +
        `last answer ${sec((f.m.startedAt + f.m.wallS * 1000 - f.server.lastAt) / 1000)} before exit; ${f.server.requests} requests, ${(f.server.bytesIn / 1e6).toFixed(0)} MB received; server CPU ${sec(f.server.cpuS)}`,
      target: `max = ${concurrency}`,
      result: verdict(f.server.maxInFlight === Math.min(concurrency, n)),
    },
  ];
}

function machine(): string {
  let model = cpus()[0]?.model ?? 'unknown CPU';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) model = m[1]!.trim();
  } catch {
    // not Linux: os.cpus() has it
  }
  return `${model}, ${cpus().length} cores, Node ${process.version}`;
}

/** 1-minute load averages seen before each step and at the end: other work on the machine inflates wall times. */
const loads: { step: string; load: number }[] = [];
const noteLoad = (step: string) => loads.push({ step, load: loadavg()[0]! });

function render(rows: Row[], data: DatasetInfo, how: string): string {
  const maxLoad = Math.max(...loads.map((l) => l.load));
  const busy = maxLoad > cpus().length * 0.75;
  const lines = [
    `**Machine:** ${machine()}  `,
    `**Load:** 1-min load average ${loads.map((l) => `${l.load.toFixed(1)} (${l.step})`).join(', ')}${busy ? ' — other processes were competing for the CPU, so wall times are inflated' : ''}  `,
    `**Data:** ${data.rows} rows in 7 files, ${(data.bytes / 1e6).toFixed(0)} MB, largest row ${(data.largestRowBytes / 1e6).toFixed(1)} MB, ${data.rowsOver3MB} rows ≥ 3 MB (scale ${scale})  `,
    `**Settings:** latency ${latencyMs} ms, concurrency ${concurrency}; measured with ${how}; MB = 10^6 bytes`,
    '',
    '| Figure | Value | Target | Result |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.figure} | ${r.value} | ${r.target} | ${r.result} |`),
  ];
  return `${lines.join('\n')}\n`;
}

// ---- with a prefix cache (BENCH_CACHE=1) ----

/** The awb command line of one stage against the bench endpoint. */
function stageArgs(ep: Endpoint, stage: 'infer' | 'judge', input: string, c: number, output: string): string[] {
  const [inputFlag, urlFlag, url, modelFlag] =
    stage === 'infer'
      ? ['--data', '--model-base-url', ep.url, '--model-name']
      : ['--predictions', '--judge-base-url', ep.judgeUrl, '--judge-model'];
  return [stage, inputFlag, input, urlFlag, url, modelFlag, 'bench', '--concurrency', String(c), '--no-progress', '-o', output, ...awbArgs];
}

/** Prefilled bytes against the one-at-a-time minimum, wall time against the ideal for that minimum. */
function cacheRows(label: string, f: StageFigures | 'reused', n: number, c: number, longestChainS = 0): Row[] {
  if (f === 'reused') return [{ figure: label, value: 'reused an earlier output (BENCH_REUSE=1), not measured', target: '', result: '—' }];
  const { prefilledBytes, minimumPrefilledBytes, promptBytes, cachedTokens } = f.server;
  const ratio = prefilledBytes / minimumPrefilledBytes;
  const ideal = Math.max((n * latencyMs + (prefillMsPerMB * minimumPrefilledBytes) / 1e6) / c / 1000, longestChainS);
  const wall = f.m.wallS / ideal;
  return [
    {
      figure: `${label} prefilled`,
      value: `${(prefilledBytes / 1e6).toFixed(1)} MB of ${(promptBytes / 1e6).toFixed(1)} MB sent = ${ratio.toFixed(3)} × minimum ${(minimumPrefilledBytes / 1e6).toFixed(1)} MB; ${cachedTokens} cached tokens reported`,
      target: `≤ ${PREFILL_TARGET} × minimum`,
      result: verdict(ratio <= PREFILL_TARGET),
    },
    {
      figure: `${label} wall time`,
      value: `${sec(f.m.wallS)} = ${wall.toFixed(3)} × ideal ${sec(ideal)}; max ${f.server.maxInFlight} in flight, mean ${f.server.meanInFlight.toFixed(1)}; peak RSS ${mb(f.m.peakRssMB)}; awb CPU ${sec(f.m.userS + f.m.sysS)}, server CPU ${sec(f.server.cpuS)}`,
      target: `≤ ${CACHE_WALL_TARGET} × ideal`,
      result: verdict(wall <= CACHE_WALL_TARGET),
    },
  ];
}

/**
 * The most requests of one trajectory that must go one after another at this horizon, as awb's schedule
 * sends them: a row's steps in turn, the trajectory's next row once this one's first step is answered
 * (early) or once it is settled (a rollout they share).
 */
async function longestChain(files: string[], anchor: (turn: number) => number): Promise<number> {
  const rows = scheduleRows(await planLines(files, {}), undefined, anchor);
  const chains = new Map<string, typeof rows>();
  for (const r of rows) chains.set(chainKey(r), [...(chains.get(chainKey(r)) ?? []), r]);
  let longest = 0;
  for (const chain of chains.values()) {
    let start = 0;
    for (const r of chain.sort((a, b) => a.turn - b.turn)) {
      longest = Math.max(longest, start + (r.steps ?? 1));
      start += r.early ? 1 : (r.steps ?? 1);
    }
  }
  return longest;
}

/** The simulated prefix cache's settings, as the tables say them. */
const cacheSettings = () =>
  `prefix cache ${process.env.BENCH_CACHE_BLOCK_BYTES ?? 4096}-byte blocks, ${Number(process.env.BENCH_CACHE_BLOCKS) ? `LRU of ${process.env.BENCH_CACHE_BLOCKS} blocks` : 'no eviction'}, +${prefillMsPerMB} ms per MB prefilled, cached_tokens ${process.env.BENCH_CACHED_TOKENS === 'absent' ? 'absent' : 'reported'}; rows shuffled within each file`;

/** The drift step: infer --horizon H on the shuffled full data against the endpoint's simulated prefix cache. */
async function driftRows(plain: DatasetInfo): Promise<Row[]> {
  const data = await ensureShuffled(plain, 1, log);
  const ep = await startEndpoint(latencyMs, { BENCH_CACHE: '1' });
  const predictions = join(outDir, `drift-h${horizon}-predictions.jsonl`);
  const label = `infer --horizon ${horizon} at concurrency ${concurrency}`;
  try {
    await rm(`${predictions}.steps.jsonl`, { force: true });
    const args = [...stageArgs(ep, 'infer', data.dir, concurrency, predictions), '--horizon', horizon];
    const f = await runStageBench(ep, `drift-h${horizon}`, args, predictions, data.rows, concurrency);
    if (f === 'reused') return cacheRows(label, f, 0, concurrency);
    const h = horizon === 'all' ? 'all' : Number(horizon);
    const files = (await datasetFiles(data.dir)).map((x) => x.path);
    const anchor = (turn: number) => (h === 'all' ? 1 : Math.max(1, turn - h));
    const chain = await longestChain(files, anchor);
    const [order] = await virtualRuns(files, [concurrency], latencyMs, prefillMsPerMB, anchor);
    return [
      {
        figure: `${label}: requests`,
        value: `${f.server.requests} for ${data.rows} rows (${(f.server.requests / data.rows).toFixed(2)} a row); longest run one after another: ${chain} requests; ${cacheSettings()}`,
        target: 'figure only',
        result: '—',
      },
      ...cacheRows(label, f, f.server.requests, concurrency, (chain * latencyMs) / 1000),
      {
        figure: `${label}: the order alone (virtual time, no CPU)`,
        value: `${sec(order!.makespanS)} = ${(order!.makespanS / order!.idealS).toFixed(3)} × its ideal ${sec(order!.idealS)}; mean ${order!.meanInFlight.toFixed(1)} in flight`,
        target: `≤ ${CACHE_WALL_TARGET} × ideal`,
        result: verdict(order!.makespanS / order!.idealS <= CACHE_WALL_TARGET),
      },
      {
        figure: `${label}: peak RSS`,
        value: mb(f.m.peakRssMB),
        target: `≤ ${DRIFT_RSS_TARGET_MB} MB`,
        result: verdict(f.m.peakRssMB <= DRIFT_RSS_TARGET_MB),
      },
    ];
  } finally {
    await ep.stop();
  }
}

async function cacheBench(plain: DatasetInfo): Promise<void> {
  const data = await ensureShuffled(plain, 1, log);
  const n = data.rows;
  const rows: Row[] = [];
  const ep = await startEndpoint();
  try {
    for (const c of concurrencies) {
      const predictions = join(outDir, `cache-c${c}-predictions.jsonl`);
      const judged = join(outDir, `cache-c${c}-judged.jsonl`);
      if (steps.has('infer')) {
        const f = await runStageBench(ep, `cache-infer-c${c}`, stageArgs(ep, 'infer', data.dir, c, predictions), predictions, n, c);
        rows.push(...cacheRows(`infer at concurrency ${c}`, f, n, c));
      }
      if (steps.has('judge')) {
        if (!existsSync(predictions)) throw new Error(`${predictions} is missing: run the infer step first`);
        const f = await runStageBench(ep, `cache-judge-c${c}`, stageArgs(ep, 'judge', predictions, c, judged), judged, n, c);
        rows.push(...cacheRows(`judge at concurrency ${c}`, f, n, c));
      }
    }
  } finally {
    await ep.stop();
  }
  const files = (await datasetFiles(data.dir)).map((f) => f.path);
  const virtual = await virtualRuns(files, concurrencies, latencyMs, prefillMsPerMB);
  concurrencies.forEach((c, i) => {
    const v = virtual[i]!;
    const ratio = v.makespanS / v.idealS;
    rows.push({
      figure: `the order alone at concurrency ${c} (virtual time, no CPU)`,
      value: `${sec(v.makespanS)} = ${ratio.toFixed(3)} × its ideal ${sec(v.idealS)}; mean ${v.meanInFlight.toFixed(1)} in flight`,
      target: `≤ ${CACHE_WALL_TARGET} × ideal`,
      result: verdict(ratio <= CACHE_WALL_TARGET),
    });
  });
  noteLoad('end');
  const table = render(rows, data, `time -v; ${cacheSettings()}; concurrency ${concurrencies.join(', ')}`);
  process.stdout.write(`\n${table}`);
  await writeFile(join(benchDir, 'cache-results.md'), table);
  await writeFile(
    join(benchDir, 'cache-results.json'),
    `${JSON.stringify({ at: new Date().toISOString(), latencyMs, prefillMsPerMB, concurrencies, scale, data, loads, rows }, null, 2)}\n`,
  );
  log(`written to ${join(benchDir, 'cache-results.md')}; logs in ${logDir}`);
}

// ---- main ----

await mkdir(outDir, { recursive: true });
await mkdir(logDir, { recursive: true });
if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first (npm run bench does)');

const data = await ensureDataset(benchDir, scale, log);
if (cacheMode) {
  await cacheBench(data);
  process.exit(0);
}
const n = data.rows;
const predictions = join(outDir, 'predictions.jsonl');
const judged = join(outDir, 'judged.jsonl');
let how = 'time -v';
const rows: Row[] = [];

let inferFigures: StageFigures | 'reused' | undefined;
let judgeFigures: StageFigures | 'reused' | undefined;
let resumeFigure: Row | undefined;
if (steps.has('infer') || steps.has('judge')) {
  const ep = await startEndpoint();
  try {
    if (steps.has('infer')) {
      inferFigures = await runStageBench(ep, 'infer', stageArgs(ep, 'infer', data.dir, concurrency, predictions), predictions, n);
    }
    if (steps.has('judge')) {
      if (!existsSync(predictions)) throw new Error(`${predictions} is missing: run the infer step first`);
      judgeFigures = await runStageBench(ep, 'judge', stageArgs(ep, 'judge', predictions, concurrency, judged), judged, n);
      if (steps.has('resume') && judgeFigures !== 'reused') resumeFigure = await resumeRow(ep, judged);
    }
  } finally {
    await ep.stop();
  }
}
for (const f of [inferFigures, judgeFigures]) if (f && f !== 'reused') how = f.m.how;
rows.push(...stageRows('infer', inferFigures, n), ...stageRows('judge', judgeFigures, n), ...(resumeFigure ? [resumeFigure] : []));

if (steps.has('score')) {
  if (!existsSync(judged)) {
    rows.push({ figure: 'score', value: `not measured: ${judged} is missing (run the judge step)`, target: '', result: '—' });
  } else {
    noteLoad('score');
    log('score: 3 runs of awb score and of the floor ...');
    const judgedMB = statSync(judged).size / 1e6;
    const score = await bestOf(3, 'score', awbArgv(['score', judged]));
    const floor = await bestOf(3, 'floor', [process.execPath, join(root, 'bench', 'floor.mjs'), judged]);
    const ratio = score.best.wallS / floor.best.wallS;
    rows.push(
      {
        figure: 'score wall time (best of 3)',
        value: `${sec(score.best.wallS)} = ${ratio.toFixed(2)} × floor ${sec(floor.best.wallS)} (read + JSON.parse every line of the ${judgedMB.toFixed(0)} MB judged file)`,
        target: `≤ ${SCORE_TARGET} × floor (${sec(floor.best.wallS * SCORE_TARGET)})`,
        result: verdict(ratio <= SCORE_TARGET),
      },
      {
        figure: 'score CPU (user + sys), best run',
        value: `${sec(score.best.userS + score.best.sysS)} (floor ${sec(floor.best.userS + floor.best.sysS)})`,
        target: 'figure only',
        result: '—',
      },
      {
        figure: 'score peak RSS (max of 3)',
        value: `${mb(score.maxRssMB)} (floor ${mb(floor.maxRssMB)})`,
        target: `≤ ${RSS_TARGET_MB} MB`,
        result: verdict(score.maxRssMB <= RSS_TARGET_MB),
      },
    );
    how = score.best.how;
  }
}

if (steps.has('report')) {
  if (!existsSync(judged)) {
    rows.push({ figure: 'report', value: `not measured: ${judged} is missing (run the judge step)`, target: '', result: '—' });
  } else {
    noteLoad('report');
    log('report: awb report, then the page in chromium ...');
    const html = join(outDir, 'report.html');
    const m = await run('report', awbArgv(['report', judged, '-o', html]));
    if (m.code !== 0)
      throw new Error(`awb report failed (exit ${m.code ?? m.signal}); its stderr ends:\n${tail(join(logDir, 'report.stderr'))}`);
    const sizeMB = statSync(html).size / 1e6;
    rows.push(
      {
        figure: 'report wall time',
        value: `${sec(m.wallS)} (CPU ${sec(m.userS + m.sysS)}; load ${loadavg()[0]!.toFixed(1)})`,
        target: `≤ ${REPORT_WALL_S} s`,
        result: verdict(m.wallS <= REPORT_WALL_S),
      },
      { figure: 'report peak RSS', value: mb(m.peakRssMB), target: `≤ ${REPORT_RSS_MB} MB`, result: verdict(m.peakRssMB <= REPORT_RSS_MB) },
      { figure: 'report file size', value: `${sizeMB.toFixed(1)} MB`, target: `≤ ${REPORT_MB} MB`, result: verdict(sizeMB <= REPORT_MB) },
    );
    noteLoad('report page');
    const page = await pageTimings(html);
    if (!page) rows.push({ figure: 'report page', value: 'not measured: /usr/bin/chromium is missing', target: '', result: '—' });
    else {
      const worst = Math.max(...page.leaderboardMs);
      const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
      rows.push(
        {
          figure: 'report page: leaderboard painted (3 loads, Element Timing)',
          value: `${ms(page.paintedMs)} ms after navigation (load ${loadavg()[0]!.toFixed(1)})`,
          target: `≤ ${REPORT_PAGE_MS} ms`,
          result: verdict(Math.max(...page.paintedMs) <= REPORT_PAGE_MS),
        },
        {
          figure: 'report page: leaderboard seen by playwright (3 loads)',
          value: `${ms(page.leaderboardMs)} ms after navigation (a one-table page: ${ms(page.trivialMs)} ms)`,
          target: `≤ ${REPORT_PAGE_MS} ms`,
          result: verdict(worst <= REPORT_PAGE_MS),
        },
        {
          figure: 'report page: every row listed (3 loads)',
          value: `${ms(page.rowsMs)} ms after navigation`,
          target: 'figure only',
          result: '—',
        },
        {
          figure: 'report page: filter / sort / score bound / open a row (median)',
          value: `${page.filterMs.toFixed(1)} / ${page.sortMs.toFixed(1)} / ${page.boundMs.toFixed(1)} / ${page.openRowMs.toFixed(1)} ms`,
          target: `≤ ${REPORT_INTERACTION_MS} ms`,
          result: verdict(Math.max(page.filterMs, page.sortMs, page.boundMs, page.openRowMs) <= REPORT_INTERACTION_MS),
        },
      );
    }
  }
}

if (steps.has('startup')) {
  noteLoad('startup');
  const s = startupMs(10);
  const ratio = s.median / s.bareMedian;
  rows.push({
    figure: '`awb --help` start-up (median of 10)',
    value: `${s.median.toFixed(0)} ms = ${ratio.toFixed(2)} × a bare \`node -e ""\` (${s.bareMedian.toFixed(0)} ms at the same time; range ${Math.min(...s.all).toFixed(0)}–${Math.max(...s.all).toFixed(0)} ms)`,
    target: `≤ ${HELP_TARGET_RATIO} × bare node`,
    result: verdict(ratio <= HELP_TARGET_RATIO),
  });
}

if (steps.has('small')) rows.push(...(await smallRunRows()));
if (steps.has('drift')) rows.push(...(await driftRows(data)));

noteLoad('end');
const table = render(rows, data, how);
process.stdout.write(`\n${table}`);
await writeFile(join(benchDir, 'results.md'), table);
await writeFile(
  join(benchDir, 'results.json'),
  `${JSON.stringify({ at: new Date().toISOString(), latencyMs, concurrency, scale, data, loads, inferFigures, judgeFigures, rows }, null, 2)}\n`,
);
log(`written to ${join(benchDir, 'results.md')}; logs in ${logDir}`);

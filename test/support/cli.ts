import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { SHARD_COUNT_VARIABLE, SHARD_ENGINES } from '../../src/core/rows/shard-engine.js';
import { collected } from './terminal.js';

/** The real entry point, as a user runs it; tests need `npm run build` first (npm test does it). */
export const AWB_BIN = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

export interface AwbResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for a child awb: no colours, no keys leaking in from the developer's shell. */
export function awbEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', AWB_PROGRESS_INTERVAL: '3600' };
  // Nor a hub token, endpoint, cache or offline switch of the developer's own.
  for (const k of [
    'OPENAI_API_KEY',
    'AWB_MODEL_API_KEY',
    'AWB_JUDGE_API_KEY',
    'HF_TOKEN',
    'HUGGING_FACE_HUB_TOKEN',
    'HF_TOKEN_PATH',
    'HF_ENDPOINT',
    'HF_HUB_CACHE',
    'HUGGINGFACE_HUB_CACHE',
    'HF_HUB_OFFLINE',
  ])
    delete env[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function spawnAwb(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [AWB_BIN, ...args], { env: awbEnv(opts.env), cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A running awb: its stderr so far, and everything it printed once it has ended. */
export interface RunningAwb {
  child: ChildProcess;
  stderr(): string;
  exited: Promise<AwbResult>;
}

/** Starts awb in the background, for tests that act while it runs (signals, a server going away). */
export function startAwb(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string } = {}): RunningAwb {
  const child = spawnAwb(args, opts);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<AwbResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, stderr: () => stderr, exited };
}

/** Options of a run: extra environment, its folder, and (spawned only) a time limit. */
export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
  /** A process of its own even where the test's process would do (a test of what only a process shows). */
  spawn?: boolean;
}

/**
 * The variables awb's commands read through their terminal: with no others set, a run in this process
 * behaves as a child would. The Hub's and ModelScope's (PROCESS_VARIABLES) are read from the process's
 * environment when a run asks for them: such a run gets this process's environment for its own, alone
 * (inProcessEnv). Others (OPENAI_LOG, HOME, FORCE_COLOR: read by a library when it loads, or by the
 * system) get a process of their own.
 */
const TERMINAL_VARIABLES = new Set([
  'AWB_MODEL_API_KEY',
  'AWB_JUDGE_API_KEY',
  'OPENAI_API_KEY',
  'AWB_PROGRESS_INTERVAL',
  'NO_COLOR',
  'PATH',
  // --shard auto's engines (options.ts reads them from the terminal's environment).
  ...SHARD_ENGINES.flatMap((e) => [e.index, e.count ?? SHARD_COUNT_VARIABLE]),
  'GITHUB_ACTIONS',
]);

/**
 * Read from `process.env` by core's download and publish (hub-settings.ts, modelscope.ts) and by
 * @huggingface/hub's cache path, each time a run reads them: never kept from one run to the next.
 */
const PROCESS_VARIABLES = new Set([
  'HF_ENDPOINT',
  'HF_HOME',
  'HF_HUB_CACHE',
  'HUGGINGFACE_HUB_CACHE',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'HF_TOKEN_PATH',
  'HF_HUB_OFFLINE',
  'XDG_CACHE_HOME',
  'MODELSCOPE_ENDPOINT',
  'MODELSCOPE_DOMAIN',
  'MODELSCOPE_API_TOKEN',
  'MODELSCOPE_CACHE',
]);

/** In-process runs under way that set none of PROCESS_VARIABLES (they may overlap); those that set some, queued, and the last one's end. */
const plainRuns = new Set<Promise<unknown>>();
let envRunsQueued = 0;
let envRuns: Promise<unknown> = Promise.resolve();

/**
 * `work` with PROCESS_VARIABLES as a child of awbEnv(extra) would have them (the developer's own unset), restored
 * after: a readers/writer lock. A run that sets some goes alone, in turn, once the plain runs under way have ended;
 * a plain run starts only when no such run is waiting or under way, so none reads another's variables.
 */
export async function inProcessEnv<T>(extra: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  if (!Object.keys(extra).some((k) => PROCESS_VARIABLES.has(k))) {
    // Joins the plain runs in the same turn as it finds no env-run queued.
    while (envRunsQueued) await envRuns;
    const run = work();
    plainRuns.add(run);
    return run.finally(() => plainRuns.delete(run));
  }
  envRunsQueued++;
  const turn = envRuns.then(async () => {
    while (plainRuns.size) await Promise.allSettled([...plainRuns]);
    const apply = (values: Record<string, string | undefined>) => {
      for (const k of PROCESS_VARIABLES) {
        if (values[k] === undefined) delete process.env[k];
        else process.env[k] = values[k];
      }
    };
    const saved = { ...process.env };
    apply(awbEnv(extra));
    try {
      return await work();
    } finally {
      apply(saved);
      envRunsQueued--;
    }
  });
  envRuns = turn.catch(() => undefined);
  return turn;
}

type Main = typeof import('../../src/cli.js').main;
type MakeTerminal = typeof import('../../src/commands/shared/terminal.js').makeTerminal;
/** The built CLI, as the spawned runs use it. */
let built: Promise<{ main: Main; makeTerminal: MakeTerminal }> | undefined;
const dist = (path: string) => new URL(`../../dist/${path}`, import.meta.url).href;

/** awb's `main` in this process, with streams and an environment of its own: the cost of a process saved. */
async function runHere(args: string[], extra: Record<string, string | undefined>): Promise<AwbResult> {
  built ??= Promise.all([
    import(dist('cli.js')) as Promise<{ main: Main }>,
    import(dist('commands/shared/terminal.js')) as Promise<{ makeTerminal: MakeTerminal }>,
  ]).then(([cli, terminal]) => ({ main: cli.main, makeTerminal: terminal.makeTerminal }));
  const { main, makeTerminal } = await built;
  const stdout = collected();
  const stderr = collected();
  // No FORCE_COLOR: NO_COLOR and streams that are no terminal say "no colours" whatever this process's chalk found.
  const env = awbEnv({ ...extra, FORCE_COLOR: undefined });
  const argv = [process.execPath, AWB_BIN, ...args];
  let code: number;
  try {
    code = await main(argv, makeTerminal({ stdout: stdout.stream, stderr: stderr.stream, env, argv }));
  } catch (err) {
    // As bin/awb.js says a bug.
    stderr.stream.write(`${inspect(err)}\n`);
    code = 1;
  }
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs awb to its end: in this process where that behaves as a child would, else as a child. */
export async function runAwb(args: string[], opts: RunOptions = {}): Promise<AwbResult> {
  const env = opts.env ?? {};
  if (!opts.spawn && opts.cwd === undefined && Object.keys(env).every((k) => TERMINAL_VARIABLES.has(k) || PROCESS_VARIABLES.has(k)))
    return inProcessEnv(env, () => runHere(args, env));
  const { child, exited } = startAwb(args, opts);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** `awb ARGS…` run to its end, the commonest call of the tests. */
export const awb = (...args: string[]): Promise<AwbResult> => runAwb(args);

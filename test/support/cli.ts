import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
  for (const k of ['OPENAI_API_KEY', 'AWB_MODEL_API_KEY', 'AWB_JUDGE_API_KEY', 'HF_TOKEN', 'HF_ENDPOINT']) delete env[k];
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

export async function runAwb(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<AwbResult> {
  const { child, exited } = startAwb(args, opts);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

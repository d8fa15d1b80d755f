/*
 * Wall time, CPU and peak memory of one child process. GNU time (`time -v`)
 * reads them from the kernel at exit; without it, peak RSS comes from
 * polling /proc/PID/status (VmHWM is itself a high-water mark, so polling
 * only misses growth in the last interval) and CPU from the children's
 * totals in /proc/self/stat, which grow when the child is reaped.
 */
import { spawn, execFileSync } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface Measured {
  /** ms since the epoch when the child was started, to line up with the endpoint's clock. */
  startedAt: number;
  wallS: number;
  userS: number;
  sysS: number;
  peakRssMB: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  how: 'time -v' | '/proc';
}

const GNU_TIME = '/usr/bin/time';

function hasGnuTime(): boolean {
  try {
    accessSync(GNU_TIME, constants.X_OK);
    return execFileSync(GNU_TIME, ['-v', 'true'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) !== undefined;
  } catch {
    return false;
  }
}

let gnuTime: boolean | undefined;
let clockTicks: number | undefined;

function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** cutime + cstime of this process: CPU of its reaped children, in ticks. */
function childrenCpuTicks(): { user: number; sys: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[13]), sys: Number(fields[14]) };
}

function vmHwmKB(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export interface RunSpec {
  argv: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Child stdout and stderr go to files, so the parent does no work while it runs. */
  stdoutFile: string;
  stderrFile: string;
  tmpDir: string;
}

export async function measure(spec: RunSpec): Promise<Measured> {
  gnuTime ??= hasGnuTime();
  const out = openSync(spec.stdoutFile, 'w');
  const err = openSync(spec.stderrFile, 'w');
  const timeFile = join(spec.tmpDir, `time-${process.pid}-${Date.now()}.txt`);
  const [cmd, ...args] = gnuTime ? [GNU_TIME, '-v', '-o', timeFile, ...spec.argv] : spec.argv;
  const before = gnuTime ? undefined : childrenCpuTicks();
  const startedAt = Date.now();
  const started = performance.now();
  const child = spawn(cmd!, args, { env: spec.env, cwd: spec.cwd, stdio: ['ignore', out, err] });
  let hwm = 0;
  const poll = gnuTime
    ? undefined
    : setInterval(() => {
        hwm = Math.max(hwm, vmHwmKB(child.pid!) ?? 0);
      }, 20);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (c, s) => resolve({ code: c, signal: s }));
  });
  const wallS = (performance.now() - started) / 1000;
  if (poll) clearInterval(poll);
  closeSync(out);
  closeSync(err);

  if (gnuTime) {
    const text = readFileSync(timeFile, 'utf8');
    rmSync(timeFile, { force: true });
    const num = (label: string) => {
      const m = new RegExp(`${label.replace(/[()]/g, '\\$&')}:\\s*([\\d.]+)`).exec(text);
      return m ? Number(m[1]) : NaN;
    };
    const status = num('Exit status');
    return {
      startedAt,
      wallS,
      userS: num('User time (seconds)'),
      sysS: num('System time (seconds)'),
      peakRssMB: (num('Maximum resident set size (kbytes)') * 1024) / 1e6,
      code: signal ? null : Number.isNaN(status) ? code : status,
      signal,
      how: 'time -v',
    };
  }
  const after = childrenCpuTicks();
  const tps = ticksPerSecond();
  return {
    startedAt,
    wallS,
    userS: (after.user - before!.user) / tps,
    sysS: (after.sys - before!.sys) / tps,
    peakRssMB: (hwm * 1024) / 1e6,
    code,
    signal,
    how: '/proc',
  };
}

/** The median: the middle value, or the mean of the two middle values. */
export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

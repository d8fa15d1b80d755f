import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fail } from '../errors.js';
import { isStream, tempsOf } from '../files.js';
import { cannotWrite } from './output-file.js';

/** The lock beside an output while a run appends to it. */
export function lockPathFor(output: string): string {
  return `${output}.lock`;
}

/** Whether a process of this machine is alive (EPERM: alive, someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Holder {
  pid: number | undefined;
  host: string | undefined;
  /** Left by a process of this machine that is gone. */
  gone: boolean;
}

/** Who a lock file names; a missing or unreadable one names nobody (and is not gone). */
async function holderOf(path: string): Promise<Holder> {
  const [pid, host] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
  const n = Number(pid);
  const named = Number.isInteger(n) && n > 0;
  return { pid: named ? n : undefined, host, gone: named && host === hostname() && !alive(n) };
}

function busy(output: string, h: Holder, toDelete: string) {
  const elsewhere = h.host !== undefined && h.host !== hostname();
  return fail({ kind: 'output-busy', output, toDelete, ...(h.pid !== undefined && { pid: h.pid, ...(elsewhere && { host: h.host }) }) });
}

/** Links `from` to `to`; false when `to` exists. */
async function linked(from: string, to: string, output: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotWrite(output, '--output', dirname(resolve(output)), err);
  }
}

/**
 * Takes the output for this run: two runs appending to one file (the same
 * command started twice, a CI job retried while the first still runs) would
 * each send every row and write it twice. The lock names the process and is
 * made whole, then linked into place, so no run ever reads it half written;
 * one left by a process of this machine that is gone (killed) is taken over.
 * Returns what releases it.
 *
 * Taking over is remove-then-link, and two runs that found the same stale
 * lock must not both do it (the second would remove the first's fresh lock).
 * So a takeover first links its own file to `LOCK.takeover`, which only one
 * run can hold, and, holding it, looks again: only a lock whose process is
 * gone is removed, and nothing else removes another run's lock, so what it
 * looked at cannot change before the removal. A run that finds the takeover
 * held is refused like one that finds the lock held (one killed inside that
 * instant leaves the file named in the message).
 */
export async function lockOutput(output: string): Promise<() => Promise<void>> {
  // A stream (`-o /dev/null`, a FIFO) keeps nothing beside it: its lock would land in /dev, and it is never resumed.
  if (await isStream(output)) return async () => {};
  const path = lockPathFor(output);
  const guard = `${path}.takeover`;
  // Unique even within one process, so no attempt removes another's file.
  const mine = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(mine, `${process.pid} ${hostname()}\n`);
  } catch (err) {
    throw cannotWrite(output, '--output', dirname(resolve(output)), err);
  }
  try {
    // Twice at most: a lock found left by a run that is gone is removed once, then taken.
    for (let attempt = 0; ; attempt++) {
      if (await linked(mine, path, output)) return () => rm(path, { force: true });
      const found = await holderOf(path);
      if (!found.gone || attempt > 0) throw busy(output, found, path);
      if (!(await linked(mine, guard, output))) {
        const taking = await holderOf(guard);
        if (!taking.gone) throw busy(output, taking, `${path} and ${guard}`);
        throw fail({ kind: 'output-lock-takeover-killed', output, lock: path, guard });
      }
      try {
        if ((await holderOf(path)).gone) await rm(path, { force: true });
      } finally {
        await rm(guard, { force: true });
      }
    }
  } finally {
    await rm(mine, { force: true });
  }
}

/**
 * Removes the temporary files a run killed mid-write (a resume's rewrite, a manifest) left beside
 * an output's `files`: called by the output lock's holder, so no other run is writing them; one
 * whose process is still alive (awb merge -o into the same file) is someone else's, and stays.
 */
export async function removeStaleTemps(files: readonly string[]): Promise<void> {
  const temps = await tempsOf(files);
  for (const t of temps) if (!alive(t.pid)) await rm(t.path, { force: true });
}

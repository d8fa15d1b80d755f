import { hostname } from 'node:os';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { UserError } from '../errors.js';
import { fileError } from '../rows/index.js';

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

/**
 * Takes the output for this run: two runs appending to one file (the same
 * command started twice, a CI job retried while the first still runs) would
 * each send every row and write it twice. The lock names the process and is
 * made whole, then linked into place, so no run ever reads it half written;
 * one left by a process of this machine that is gone (killed) is taken over.
 * Returns what releases it.
 */
export async function lockOutput(output: string): Promise<() => Promise<void>> {
  const path = lockPathFor(output);
  const mine = `${path}.${process.pid}`;
  try {
    await writeFile(mine, `${process.pid} ${hostname()}\n`);
  } catch (err) {
    throw fileError(mine, err);
  }
  try {
    // Twice at most: a lock found left by a run that is gone is removed once, then taken.
    for (let attempt = 0; ; attempt++) {
      try {
        await link(mine, path);
        return () => rm(path, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw fileError(path, err);
      }
      const [pid, host] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
      const holder = Number(pid);
      const gone = Number.isInteger(holder) && holder > 0 && host === hostname() && !alive(holder);
      if (!gone || attempt > 0) {
        const who = Number.isInteger(holder) && holder > 0 ? ` (pid ${holder}${host === hostname() ? '' : ` on ${host}`})` : '';
        throw new UserError(
          `${output} is being written by another awb run${who}; wait for it to end, or give this run a file of its own (-o FILE); if no such run exists, delete ${path}`,
        );
      }
      await rm(path, { force: true });
    }
  } finally {
    await rm(mine, { force: true });
  }
}

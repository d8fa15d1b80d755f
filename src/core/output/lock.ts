import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';
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
 * each send every row and write it twice. The lock file, created exclusively,
 * names the process; one left by a process that is gone (killed) is taken
 * over. Returns what releases it.
 */
export async function lockOutput(output: string): Promise<() => Promise<void>> {
  const path = lockPathFor(output);
  const me = `${process.pid} ${hostname()}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(me);
      } finally {
        await handle.close();
      }
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw fileError(path, err);
    }
    const [pid, host] = (await readFile(path, 'utf8').catch(() => '')).trim().split(' ');
    const holder = Number(pid);
    const here = host === hostname();
    if (Number.isInteger(holder) && holder > 0 && (!here || alive(holder))) {
      throw new UserError(
        `${output} is being written by another awb run (pid ${holder}${here ? '' : ` on ${host}`}); wait for it to end, or give this run a file of its own (-o FILE); if no such run exists, delete ${path}`,
      );
    }
    // Left by a run that is gone: taken over.
    await rm(path, { force: true });
  }
}

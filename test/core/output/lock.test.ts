/*
 * The output lock alone: starts that race each other, and locks that name no
 * process. The whole-CLI case (a second command refused while the first runs)
 * is in new-user.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Fault, FaultError } from '../../../src/core/errors.js';
import { isFault } from '../../support/fault-kind.js';
import { lockOutput, lockPathFor } from '../../../src/core/output/index.js';
import { tempDirs } from '../../support/dataset.js';

const dirs = tempDirs('lock');
after(() => dirs.cleanup());

test('of runs starting at the same moment exactly one takes the output; the others are refused in one line', async () => {
  const out = join(await dirs.make(), 'p.jsonl');
  const tries = await Promise.allSettled(Array.from({ length: 8 }, () => lockOutput(out)));
  const taken = tries.filter((t) => t.status === 'fulfilled');
  assert.equal(taken.length, 1);
  for (const t of tries) if (t.status === 'rejected') isFault('output-busy', { output: out })(t.reason);
  await (taken[0] as PromiseFulfilledResult<() => Promise<void>>).value();
  assert.equal(existsSync(lockPathFor(out)), false);
});

test('a lock that names no process (empty, or written by hand) is held, not taken over; no file of the attempt is left', async () => {
  const dir = await dirs.make();
  const out = join(dir, 'p.jsonl');
  for (const text of ['', 'x\n']) {
    await writeFile(lockPathFor(out), text);
    await assert.rejects(lockOutput(out), isFault('output-busy', { toDelete: lockPathFor(out), pid: undefined }));
  }
  assert.deepEqual(await readdir(dir), ['p.jsonl.lock']);
});

/** A pid of this machine whose process has ended. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  assert.ok(pid && !isAlive(pid));
  return pid;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes two runs race for a stale lock the same way every time: both read
 * the stale lock before either acts on it, then the first goes on while the
 * second is held until a lock has been linked into place (or a run has
 * ended), so the second acts on what it read after the first took over.
 * fs/promises is patched through the documented syncBuiltinESMExports, so
 * the lock's own named imports see the wrappers.
 */
async function raceForStaleLock<T>(path: string, runs: () => Array<Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
  const { readFile: read, link: ln } = fsPromises;
  let reads = 0;
  let bothRead!: () => void;
  let firstActed!: () => void;
  const both = new Promise<void>((resolve) => (bothRead = resolve));
  const acted = new Promise<void>((resolve) => (firstActed = resolve));
  fsPromises.readFile = (async (...args: Parameters<typeof read>) => {
    const text = await read(...args);
    if (args[0] === path && reads < 2) {
      const second = reads++ === 1;
      if (second) bothRead();
      await both;
      if (second) await acted;
    }
    return text;
  }) as typeof read;
  fsPromises.link = (async (from: string, to: string) => {
    await ln(from, to);
    if (to === path) firstActed();
  }) as typeof ln;
  syncBuiltinESMExports();
  try {
    return await Promise.allSettled(runs().map((p) => p.finally(firstActed)));
  } finally {
    Object.assign(fsPromises, { readFile: read, link: ln });
    syncBuiltinESMExports();
  }
}

test('two runs that find the same stale lock at once: exactly one takes it over, the other is refused in one line', async () => {
  const dir = await dirs.make();
  const out = join(dir, 'p.jsonl');
  const lock = lockPathFor(out);
  await writeFile(lock, `${deadPid()} ${hostname()}\n`);
  const tries = await raceForStaleLock(lock, () => [lockOutput(out), lockOutput(out)]);
  assert.ok(existsSync(lock), "the first run's fresh lock was removed while it held it");
  const taken = tries.filter((t) => t.status === 'fulfilled');
  assert.equal(taken.length, 1, 'both runs took the lock');
  const refused = tries.find((t) => t.status === 'rejected')!.reason as unknown;
  isFault('output-busy', { output: out, host: undefined })(refused);
  assert.equal(typeof (refused as FaultError<Extract<Fault, { kind: 'output-busy' }>>).fault.pid, 'number');
  assert.equal((await readFile(lock, 'utf8')).split(' ')[0], String(process.pid));
  await (taken[0] as PromiseFulfilledResult<() => Promise<void>>).value();
  assert.deepEqual(await readdir(dir), []);
});

test('a takeover left half done by a killed run is refused, naming both files to delete', async () => {
  const dir = await dirs.make();
  const out = join(dir, 'p.jsonl');
  const lock = lockPathFor(out);
  await writeFile(lock, `${deadPid()} ${hostname()}\n`);
  await writeFile(`${lock}.takeover`, `${deadPid()} ${hostname()}\n`);
  await assert.rejects(lockOutput(out), isFault('output-lock-takeover-killed', { output: out, lock, guard: `${lock}.takeover` }));
  assert.deepEqual((await readdir(dir)).sort(), ['p.jsonl.lock', 'p.jsonl.lock.takeover']);
});

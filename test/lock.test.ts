/*
 * The output lock alone: starts that race each other, and locks that name no
 * process. The whole-CLI case (a second command refused while the first runs)
 * is in new-user.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { UserError } from '../src/core/errors.js';
import { lockOutput, lockPathFor } from '../src/core/output/index.js';
import { tempDirs } from './support/dataset.js';

const dirs = tempDirs('lock');
after(() => dirs.cleanup());

test('of runs starting at the same moment exactly one takes the output; the others are refused in one line', async () => {
  const out = join(await dirs.make(), 'p.jsonl');
  const tries = await Promise.allSettled(Array.from({ length: 8 }, () => lockOutput(out)));
  const taken = tries.filter((t) => t.status === 'fulfilled');
  assert.equal(taken.length, 1);
  for (const t of tries) if (t.status === 'rejected') assert.ok(t.reason instanceof UserError, String(t.reason));
  await (taken[0] as PromiseFulfilledResult<() => Promise<void>>).value();
  assert.equal(existsSync(lockPathFor(out)), false);
});

test('a lock that names no process (empty, or written by hand) is held, not taken over; no file of the attempt is left', async () => {
  const dir = await dirs.make();
  const out = join(dir, 'p.jsonl');
  for (const text of ['', 'x\n']) {
    await writeFile(lockPathFor(out), text);
    await assert.rejects(lockOutput(out), (err: unknown) => err instanceof UserError && /delete .*p\.jsonl\.lock$/.test(err.message));
  }
  assert.deepEqual(await readdir(dir), ['p.jsonl.lock']);
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inProcessEnv } from './cli.js';

/** Lets every pending promise reaction run (no timer: the lock is promise chains alone). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * In-process runs, each holding until the test lets it go: `sets` the HF_ENDPOINT it sets (undefined: a plain run).
 * Each notes what it sees when it starts and ends, and which runs were under way when it started.
 */
function runs(specs: { name: string; sets?: string }[]) {
  const active = new Set<string>();
  const seen: { name: string; start: string | undefined; end?: string | undefined; beside: string[] }[] = [];
  const release = new Map<string, () => void>();
  const done = specs.map(({ name, sets }) =>
    inProcessEnv(sets === undefined ? {} : { HF_ENDPOINT: sets }, async () => {
      const note: (typeof seen)[number] = { name, start: process.env.HF_ENDPOINT, beside: [...active] };
      seen.push(note);
      active.add(name);
      await new Promise<void>((resolve) => release.set(name, resolve));
      note.end = process.env.HF_ENDPOINT;
      active.delete(name);
      return name;
    }),
  );
  return { seen, active, release, done };
}

describe('inProcessEnv: a run that sets a hub variable never overlaps another in-process run', () => {
  it('runs each alone and with its own value, the plain runs with the value outside', async () => {
    const outside = process.env.HF_ENDPOINT;
    const specs = [
      { name: 'plain 1' },
      { name: 'plain 2' },
      { name: 'sets a', sets: 'http://127.0.0.1:1' },
      { name: 'plain 3' },
      { name: 'sets b', sets: 'http://127.0.0.1:2' },
      { name: 'plain 4' },
    ];
    const { seen, active, release, done } = runs(specs);
    await settle();
    // The plain runs asked before any that sets a variable start together; the others wait.
    assert.deepEqual([...active], ['plain 1', 'plain 2']);
    while (active.size) {
      for (const name of active) release.get(name)!();
      await settle();
    }
    assert.deepEqual((await Promise.all(done)).sort(), specs.map((s) => s.name).sort());
    for (const { name, sets = outside } of specs) {
      const note = seen.find((n) => n.name === name)!;
      assert.deepEqual([note.start, note.end], [sets, sets], name);
      if (name.startsWith('sets')) assert.deepEqual(note.beside, [], `${name} started beside ${note.beside.join(', ')}`);
      else assert.ok(!note.beside.some((b) => b.startsWith('sets')), `${name} started beside ${note.beside.join(', ')}`);
    }
    assert.equal(process.env.HF_ENDPOINT, outside);
  });

  it('restores the variables after a run that fails', async () => {
    const outside = process.env.HF_ENDPOINT;
    await assert.rejects(
      inProcessEnv({ HF_ENDPOINT: 'http://127.0.0.1:3' }, async () => {
        throw new Error('failed');
      }),
      /failed/,
    );
    assert.equal(process.env.HF_ENDPOINT, outside);
    assert.equal(await inProcessEnv({}, async () => process.env.HF_ENDPOINT), outside);
  });
});

import { test } from 'node:test';
import { isFault } from '../../support/fault-kind.js';
import assert from 'node:assert/strict';
import { mkdtemp, open, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlAppender, readLineBytes } from '../../../src/core/rows/jsonl.js';

test('lines are split on \\n only, with their offsets, whether they fit a read or run over several', async () => {
  const lines = [
    '{"a":1}',
    '',
    'x'.repeat(100),
    'short',
    '\u2028 inside \u2029',
    'y'.repeat(37) + '\r',
    'é中'.repeat(20),
    'last, no newline',
  ];
  const text = lines.join('\n');
  const path = join(await mkdtemp(join(tmpdir(), 'awb-lines-')), 'f.jsonl');
  await writeFile(path, text);
  const bytes = Buffer.from(text);
  for (const highWaterMark of [8, 16, 37, 1 << 20]) {
    const got: { text: string; start: number; end: number; terminated: boolean; lineNo: number }[] = [];
    for await (const l of readLineBytes(path, { highWaterMark })) {
      got.push({ text: l.bytes.toString(), start: l.start, end: l.end, terminated: l.terminated, lineNo: l.lineNo });
    }
    assert.deepEqual(
      got.map((g) => g.text),
      lines,
      `highWaterMark ${highWaterMark}`,
    );
    for (const [i, g] of got.entries()) {
      assert.equal(g.lineNo, i + 1);
      assert.equal(bytes.subarray(g.start, g.terminated ? g.end - 1 : g.end).toString(), lines[i]);
      assert.equal(g.terminated, i < lines.length - 1);
    }
  }
});

test('a reader left after its first line, with its next read under way, ends cleanly, and the next reader (given its buffers) reads right', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'awb-lines-'));
  // Lines over several 1 MB reads, so the reader left early has its next read under way.
  const lineOf = (c: string, i: number) => c.repeat(300_000 + i * 7919);
  const a = Array.from({ length: 12 }, (_, i) => lineOf('a', i));
  const b = Array.from({ length: 12 }, (_, i) => lineOf('b', i));
  await writeFile(join(dir, 'a.jsonl'), a.join('\n') + '\n');
  await writeFile(join(dir, 'b.jsonl'), b.join('\n') + '\n');
  for (let round = 0; round < 3; round++) {
    for await (const l of readLineBytes(join(dir, 'a.jsonl'))) {
      assert.equal(l.bytes.toString(), a[0]);
      break;
    }
    const got: string[] = [];
    for await (const l of readLineBytes(join(dir, 'b.jsonl'))) got.push(l.bytes.toString());
    assert.deepEqual(got, b);
  }
});

test('an appender syncs to disk as it goes, so closing has little left to sync, and closes with every line written', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'awb-append-')), 'out.jsonl');
  const probe = await open(path, 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const original = proto.sync;
  let syncs = 0;
  proto.sync = function (this: unknown) {
    syncs++;
    return original.call(this);
  };
  try {
    const out = await JsonlAppender.open(path);
    const line = 'z'.repeat(1_000_000);
    await Promise.all(Array.from({ length: 70 }, () => out.append(line)));
    assert.ok(syncs >= 1, `synced while appending 70 MB (${syncs} syncs)`);
    const before = syncs;
    await out.close();
    assert.equal(syncs, before + 1, 'one last sync on close');
    const text = await readFile(path, 'utf8');
    assert.equal(text, `${line}\n`.repeat(70));
  } finally {
    proto.sync = original;
  }
});

test("a sync that fails (a full disk) is the appender's error, at the next append or at close; a file that cannot be synced is not", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'awb-append-'));
  const probe = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const original = proto.sync;
  const failWith = (code: string) => {
    proto.sync = () => Promise.reject(Object.assign(new Error(`sync: ${code}`), { code }));
  };
  try {
    failWith('ENOSPC');
    const out = await JsonlAppender.open(join(dir, 'full.jsonl'));
    const line = 'z'.repeat(1_000_000);
    const appended = await Promise.allSettled(Array.from({ length: 70 }, () => out.append(line)));
    const closed = await out.close().then(
      () => undefined,
      (err: unknown) => err,
    );
    const errors = [...appended.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : [])), closed].filter(Boolean);
    assert.ok(errors.length > 0, 'the failed sync was reported');
    for (const err of errors) isFault('file-error', { path: join(dir, 'full.jsonl'), code: 'ENOSPC' })(err);

    failWith('EINVAL');
    const special = await JsonlAppender.open(join(dir, 'special.jsonl'));
    await special.append('{"a":1}');
    await special.close();
  } finally {
    proto.sync = original;
  }
});

/*
 * Where awb's writes land: through a link (never replacing it), into a device,
 * FIFO or pipe as a stream (never renamed over), and with no file kept beside
 * a stream. Nothing outside the target is written.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, openSync, closeSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isStream, replaceAtomically, writeAtomically, writeTarget } from '../../../src/core/files.js';
import { lockOutput, writeManifest } from '../../../src/core/output/index.js';
import { JsonlAppender } from '../../../src/core/rows/index.js';
import type { Manifest } from '../../../src/core/schemas/index.js';
import { isFault } from '../../support/fault-kind.js';
import { tempDirs } from '../../support/dataset.js';

const temps = tempDirs('outputs');
after(() => temps.cleanup());
const FILES_TS = fileURLToPath(new URL('../../../src/core/files.ts', import.meta.url));

function mkfifo(path: string): void {
  assert.equal(spawnSync('mkfifo', [path]).status, 0, 'mkfifo');
}

/**
 * Runs writeAtomically(path, text) in a child whose stdout is a shell's pipe (`| cat`: Node's own
 * 'pipe' is a socket, which no path opens) or an open file.
 */
function writeInChild(path: string, text: string, stdout: 'pipe' | number) {
  const code = `import { writeAtomically } from ${JSON.stringify(FILES_TS)}; await writeAtomically(${JSON.stringify(path)}, ${JSON.stringify(text)});`;
  const node = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', code];
  if (stdout !== 'pipe') return spawnSync(node[0]!, node.slice(1), { stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' });
  const quoted = node.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return spawnSync('sh', ['-c', `${quoted} | cat`], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
}

describe('writeAtomically', () => {
  it('writes through a link: the target is replaced, the link stays, nothing else is left', async () => {
    const dir = await temps.make();
    await mkdir(join(dir, 'real'));
    const target = join(dir, 'real', 'report.html');
    await writeFile(target, 'old');
    const link = join(dir, 'report.html');
    await symlink(join('real', 'report.html'), link);
    await writeAtomically(link, 'new page');
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link was replaced by a file');
    assert.equal(readlinkSync(link), join('real', 'report.html'));
    assert.equal(await readFile(target, 'utf8'), 'new page');
    assert.deepEqual(readdirSync(dir).sort(), ['real', 'report.html']);
    assert.deepEqual(readdirSync(join(dir, 'real')), ['report.html']);
  });

  it('follows a chain of links, and creates the missing target of a dangling one', async () => {
    const dir = await temps.make();
    await symlink('b', join(dir, 'a'));
    await symlink('c', join(dir, 'b'));
    await writeAtomically(join(dir, 'a'), 'x');
    assert.ok(lstatSync(join(dir, 'a')).isSymbolicLink() && lstatSync(join(dir, 'b')).isSymbolicLink());
    assert.equal(readFileSync(join(dir, 'c'), 'utf8'), 'x');
    assert.deepEqual(await writeTarget(join(dir, 'a')), { stream: false, file: join(dir, 'c') });
    assert.deepEqual(readdirSync(dir).sort(), ['a', 'b', 'c']);
  });

  it('writes into /dev/null as a device, leaving it one and adding nothing to /dev', async () => {
    const before = readdirSync('/dev').filter((n) => n.startsWith('null'));
    await writeAtomically('/dev/null', 'discarded');
    assert.ok(statSync('/dev/null').isCharacterDevice());
    assert.deepEqual(
      readdirSync('/dev').filter((n) => n.startsWith('null')),
      before,
    );
    assert.equal(await isStream('/dev/null'), true);
  });

  it('writes into a FIFO for its reader, leaving it a FIFO', async () => {
    const dir = await temps.make();
    const fifo = join(dir, 'out.fifo');
    mkfifo(fifo);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let read = '';
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (read += d));
    const closed = new Promise((r) => reader.on('close', r));
    await writeAtomically(fifo, 'through the fifo\n');
    await closed;
    assert.equal(read, 'through the fifo\n');
    assert.ok(statSync(fifo).isFIFO());
    assert.deepEqual(readdirSync(dir), ['out.fifo']);
  });

  it('gives up waiting for a FIFO reader when its signal is aborted, writing nothing', async () => {
    const dir = await temps.make();
    const fifo = join(dir, 'out.fifo');
    mkfifo(fifo);
    const stop = new AbortController();
    // Aborted once the wait has begun (the first try found no reader), however slow the machine.
    let told = 0;
    const waiting = JsonlAppender.open(fifo, stop.signal, () => {
      told++;
      stop.abort();
    });
    await assert.rejects(waiting, isFault('stream-never-read', { path: fifo }));
    assert.equal(told, 1);
    assert.deepEqual(readdirSync(dir), ['out.fifo']);
  });

  it('writes to a stdout link (/proc/self/fd/1) that is a pipe, as a stream', async () => {
    const dir = await temps.make();
    const stdout = join(dir, 'stdout');
    await symlink('/proc/self/fd/1', stdout);
    const r = writeInChild(stdout, 'piped page', 'pipe');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'piped page');
    assert.equal(readlinkSync(stdout), '/proc/self/fd/1');
    assert.deepEqual(readdirSync(dir), ['stdout']);
  });

  it('writes to a stdout link redirected to a file (`-o /dev/stdout > report.html`) into that file', async () => {
    const dir = await temps.make();
    const stdout = join(dir, 'stdout');
    await symlink('/proc/self/fd/1', stdout);
    const report = join(dir, 'report.html');
    const fd = openSync(report, 'w');
    try {
      const r = writeInChild(stdout, '<html>page</html>', fd);
      assert.equal(r.status, 0, r.stderr);
    } finally {
      closeSync(fd);
    }
    assert.equal(readFileSync(report, 'utf8'), '<html>page</html>');
    assert.equal(readlinkSync(stdout), '/proc/self/fd/1', 'the link was replaced');
    assert.deepEqual(readdirSync(dir).sort(), ['report.html', 'stdout']);
  });
});

describe('replaceAtomically', () => {
  it('replaces a link or a FIFO itself, never writing through it', async () => {
    const dir = await temps.make();
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'precious');
    await symlink('victim.txt', join(dir, 'link'));
    mkfifo(join(dir, 'fifo'));
    for (const name of ['link', 'fifo']) {
      await replaceAtomically(join(dir, name), `new ${name}`);
      assert.ok(lstatSync(join(dir, name)).isFile(), `${name} is a plain file`);
      assert.equal(readFileSync(join(dir, name), 'utf8'), `new ${name}`);
    }
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.deepEqual(readdirSync(dir).sort(), ['fifo', 'link', 'victim.txt']);
  });

  it('keeps the old file under its name until the new one is written whole and flushed to disk', async () => {
    const dir = await temps.make();
    const path = join(dir, 'data.jsonl');
    await writeFile(path, 'old\n');
    const seen: string[] = [];
    await replaceAtomically(path, async (handle) => {
      await handle.write('new, first half\n');
      seen.push(`writing: ${readFileSync(path, 'utf8')}`);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        seen.push(`flushing: ${readFileSync(path, 'utf8')}`);
        await sync();
      };
      await handle.write('second half\n');
    });
    assert.deepEqual(seen, ['writing: old\n', 'flushing: old\n']);
    assert.equal(readFileSync(path, 'utf8'), 'new, first half\nsecond half\n');
    assert.deepEqual(readdirSync(dir), ['data.jsonl']);
  });

  it('leaves the old file as it was, and no temporary file, when the write fails midway', async () => {
    const dir = await temps.make();
    const path = join(dir, 'data.jsonl');
    await writeFile(path, 'old\n');
    await assert.rejects(
      replaceAtomically(path, async (handle) => {
        await handle.write('half');
        throw new Error('connection lost');
      }),
      /connection lost/,
    );
    assert.equal(readFileSync(path, 'utf8'), 'old\n');
    assert.deepEqual(readdirSync(dir), ['data.jsonl']);
  });
});

describe('files kept beside an output', () => {
  const manifest = { stage: 'infer' } as unknown as Manifest;

  it('are none beside /dev/null or a FIFO: no lock, no manifest', async () => {
    const dir = await temps.make();
    const fifo = join(dir, 'rows.fifo');
    mkfifo(fifo);
    for (const out of ['/dev/null', fifo]) {
      const unlock = await lockOutput(out);
      await writeManifest(out, manifest);
      await unlock();
      assert.equal(existsSync(`${out}.lock`), false, `${out}.lock`);
      assert.equal(existsSync(`${out}.manifest.json`), false, `${out}.manifest.json`);
    }
    assert.deepEqual(readdirSync(dir), ['rows.fifo']);
  });

  it('stay beside a link to a regular file, which is kept a link', async () => {
    const dir = await temps.make();
    await writeFile(join(dir, 'real.jsonl'), '');
    const link = join(dir, 'out.jsonl');
    await symlink('real.jsonl', link);
    await writeManifest(link, { ...manifest, counts: { total: 0, done: 0, failed: 0, per_domain: {} } } as Manifest);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.ok(existsSync(`${link}.manifest.json`));
  });
});

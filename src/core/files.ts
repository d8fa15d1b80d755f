import { randomBytes } from 'node:crypto';
import { constants, fstat, fsync, write, writev, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, readlink, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { fail, FaultError, fileError, type JsonFileUse } from './errors.js';
import { MAX_JSON_DEPTH, MAX_JSON_FILE_BYTES, nestsDeeperThan } from './json-limits.js';
import { manifestPathFor } from './schemas/index.js';

/*
 * Files awb writes: never through a link planted in their place, never over
 * one of the run's inputs, and never seen half written under their final name.
 */

/**
 * Whether two paths name the same file, by what they lead to (device and
 * inode for existing files; the real folder and the name otherwise), so that
 * links and `..` cannot make an input look like another file.
 */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
  if (sa && sb) return sa.dev === sb.dev && sa.ino === sb.ino;
  if (sa || sb) return false;
  return (await realTarget(a)) === (await realTarget(b));
}

/**
 * Refuses to write a page or a summary over an existing file that opens like
 * JSON: a judged JSONL given to report -o or compare --summary by mistake
 * stays as it was. `use`: what the write would do to it.
 */
export async function refuseOverJson(path: string, use: 'report' | 'summary'): Promise<void> {
  // Only a regular file: opening a pipe given as the output (`-o /dev/stdout`) to read it would wait for a writer,
  // and a log that stdout is appended to (`-o /dev/stdout >> log`) is written after, never over.
  if ((await writeTarget(path)).stream || !(await stat(path).catch(() => undefined))?.isFile()) return;
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    if (!/^\s*[[{]/.test(text)) return;
  } finally {
    await handle.close();
  }
  throw fail({ kind: 'output-holds-json', path, use });
}

/**
 * Refuses, with or without --force, an output (or a file written beside it,
 * such as its manifest) that is one of the inputs, or an input's manifest
 * (read for its provenance), under any name: a link, a linked folder, `..`.
 */
export async function refuseOverInputs(outputs: readonly string[], inputs: readonly string[]): Promise<void> {
  for (const out of outputs) {
    for (const input of inputs) {
      for (const [guarded, ofInput] of [
        [input, 'input'],
        [manifestPathFor(input), 'manifest'],
      ] as const) {
        if (await sameFile(out, guarded)) {
          throw fail({ kind: 'output-is-input', output: out, input, ofInput, throughLink: resolve(out) !== resolve(guarded) });
        }
      }
    }
  }
}

/** The real path a (possibly not yet existing) file would have: its folder resolved through links, plus its name. */
async function realTarget(path: string): Promise<string> {
  const abs = resolve(path);
  const dir = await realpath(dirname(abs)).catch(() => dirname(abs));
  return join(dir, basename(abs));
}

/** A temporary file's name (createTemp): the file it stands for, and the process that made it. */
const TEMP_NAME = /^(.+)\.awb-(\d+)-[0-9a-f]{12}\.tmp$/;

/**
 * The temporary files a process killed mid-write (replaceAtomically) left beside the files `paths`
 * (one folder), each with the pid of the process that made it.
 */
export async function tempsOf(paths: readonly string[]): Promise<{ path: string; pid: number }[]> {
  const dir = dirname(resolve(paths[0]!));
  const names = new Set(paths.map((p) => basename(p)));
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.flatMap((name) => {
    const m = TEMP_NAME.exec(name);
    return m && names.has(m[1]!) ? [{ path: join(dir, name), pid: Number(m[2]) }] : [];
  });
}

/**
 * Creates a new file next to `path` for writing, exclusively: `O_EXCL` fails
 * rather than follow a link or reuse a file someone left there. The name is
 * unguessable, so a planted file cannot be in the way.
 */
async function createTemp(path: string): Promise<{ path: string; handle: FileHandle }> {
  const tmp = `${path}.awb-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  return { path: tmp, handle: await open(tmp, 'wx', 0o644) };
}

/**
 * Removes the temporary files replaceAtomically left next to `path` when killed outright (kill -9, a lost
 * machine) and not written for `idleMs`: no live writer leaves its file alone that long. A download's
 * can be as big as the file it was getting, and nothing else would ever remove it.
 */
export async function removeAbandonedTemps(path: string, idleMs: number): Promise<void> {
  for (const temp of await tempsOf([path])) {
    const st = await lstat(temp.path).catch(() => undefined);
    if (st?.isFile() && st.mtimeMs < Date.now() - idleMs) await rm(temp.path, { force: true }).catch(() => undefined);
  }
}

/**
 * The folders `dir` needs made, outermost first (none when it exists), found without creating
 * anything; a file in the way is refused, naming `option` (the flag that gave the path) when given. Node's recursive mkdir loops
 * forever under /proc and reports a file in the way as a bare EEXIST, so the missing folders are
 * found by walking up and made one level at a time (createFolders).
 */
export async function missingFolders(dir: string, option?: FolderOption): Promise<string[]> {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    let isDir: boolean;
    try {
      isDir = (await stat(at)).isDirectory();
    } catch (err) {
      // ENOTDIR: a file further up is in the way, and is named when the walk reaches it.
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(at) === at) throw fileError(at, err);
      missing.unshift(at);
      continue;
    }
    if (!isDir) throw fail({ kind: 'file-in-the-way', at, ...(option && { option }) });
    return missing;
  }
}

/** The flag that named a path, and what it takes: a file in the way of its folder is said in its words. */
export type FolderOption = { name: string; takes: 'file' | 'folder' };

/** Makes the folders missingFolders found, one level at a time; a place where no folder can be made is one line. */
export async function createFolders(missing: readonly string[]): Promise<void> {
  for (const at of missing) {
    try {
      await mkdir(at);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // made meanwhile by another run (shards sharing a folder)
      throw code === 'ENOENT' ? fail({ kind: 'cannot-create-folder', at }) : fileError(at, err);
    }
  }
}

/** Creates the folder `dir` and any missing above it (missingFolders, createFolders). */
export async function makeFolders(dir: string, option?: FolderOption): Promise<void> {
  await createFolders(await missingFolders(dir, option));
}

/**
 * Where a write to a path lands: a file replaced whole (`file`, links followed), or a stream written in
 * place; `fd`: the stream is one of this process's own descriptors (`/dev/stdout`, `/dev/fd/3`).
 */
export type WriteTarget = { stream: false; file: string } | { stream: true; fd?: number };

/** A path under /proc that names one of this process's descriptors, as /dev/stdout and /dev/fd/N lead to. */
const OWN_FD = /^\/proc\/(self|thread-self|\d+)(?:\/task\/\d+)?\/fd\/(\d+)$/;

/** The descriptor of this process that `at` (a resolved path) names, if it names one. */
function ownDescriptor(at: string): number | undefined {
  const m = OWN_FD.exec(at);
  return m && (m[1] === 'self' || m[1] === 'thread-self' || Number(m[1]) === process.pid) ? Number(m[2]) : undefined;
}

/** Links followed at most before a path is given up on (Linux's own limit). */
const MAX_HOPS = 40;

/**
 * Where writing `path` lands. A link is followed to what it names (a missing target is the file to
 * create), so it is written through, never replaced by a file of its own. A device, FIFO or socket at
 * the end is a stream, and so is anything reached through /proc (`/dev/stdout` is
 * `/proc/self/fd/1`: the file the shell opened, at its offset, not a path to rename over).
 */
export async function writeTarget(path: string): Promise<WriteTarget> {
  let at = resolve(path);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    // The folder's own links resolved, so /dev/fd/1 is seen as /proc/<pid>/fd/1.
    at = await realTarget(at);
    const st = await lstat(at).catch(() => undefined);
    if (!st) return { stream: false, file: at };
    if (!st.isSymbolicLink()) return st.isFile() || st.isDirectory() ? { stream: false, file: at } : { stream: true };
    const fd = ownDescriptor(at);
    if (fd !== undefined) return { stream: true, fd };
    if (at.startsWith('/proc/')) return { stream: true };
    at = resolve(dirname(at), await readlink(at));
  }
  // A loop of links: opened in place, the system names it (ELOOP).
  return { stream: true };
}

/** Whether writing `path` is writing a stream (writeTarget): then nothing is kept beside it and it cannot be resumed. */
export async function isStream(path: string): Promise<boolean> {
  return (await writeTarget(path)).stream;
}

/** How often a FIFO with no reader is tried again. */
const FIFO_POLL_MS = 100;

/** What awb writes an output through: an opened file, or one of its own descriptors (DescriptorWriter). */
export interface WriteHandle {
  write(data: Uint8Array): Promise<unknown>;
  write(data: string): Promise<unknown>;
  writev(buffers: Uint8Array[]): Promise<{ bytesWritten: number }>;
  writeFile(data: string | Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

const fstatOf = (fd: number) => new Promise<Stats>((ok, ko) => fstat(fd, (err, st) => (err ? ko(err) : ok(st))));

/**
 * Writes into a descriptor this process was started with, at the offset it shares with the shell's
 * other uses of it (`>> log`: at the end; `> f 2>&1`: after the messages on stderr), and never closes
 * it. Opening `/proc/self/fd/1` again would make a file description of its own: truncated, at 0.
 */
class DescriptorWriter implements WriteHandle {
  constructor(private readonly fd: number) {}

  async write(data: Uint8Array | string): Promise<unknown> {
    let bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    while (bytes.length) {
      const n = await new Promise<number>((ok, ko) =>
        write(this.fd, bytes, 0, bytes.length, null, (err, written) => (err ? ko(err) : ok(written))),
      );
      if (n === 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      bytes = bytes.subarray(n);
    }
    return undefined;
  }

  writev(buffers: Uint8Array[]): Promise<{ bytesWritten: number }> {
    return new Promise((ok, ko) => writev(this.fd, buffers, null, (err, bytesWritten) => (err ? ko(err) : ok({ bytesWritten }))));
  }

  async writeFile(data: string | Uint8Array): Promise<void> {
    await this.write(data as Uint8Array);
  }

  sync(): Promise<void> {
    return new Promise((ok, ko) => fsync(this.fd, (err) => (err ? ko(err) : ok())));
  }

  /** The descriptor stays open: it is the process's own (its stdout, say), still written after this output. */
  async close(): Promise<void> {}
}

/**
 * Opens `path` for writing in place (`w`, or `a` to append). One of this process's own descriptors
 * that holds a file (`-o /dev/stdout >> log`) is written through as it is (DescriptorWriter); a pipe,
 * a terminal or a device is opened again, which shares or loses nothing. A FIFO blocks its opener
 * until a reader comes, in a thread nothing can interrupt: it is tried without blocking until one
 * does, and `signal` (Ctrl-C, SIGTERM) ends the wait, with nothing written. `waiting` is told once, when the
 * first try finds no reader.
 */
export async function openForWriting(path: string, flags: 'w' | 'a', signal?: AbortSignal, waiting?: () => void): Promise<WriteHandle> {
  const target = await writeTarget(path);
  if (target.stream && target.fd !== undefined && (await fstatOf(target.fd).catch(() => undefined))?.isFile()) {
    return new DescriptorWriter(target.fd);
  }
  if (!(await stat(path).catch(() => undefined))?.isFIFO()) return open(path, flags);
  for (let tries = 0; ; tries++) {
    try {
      const probe = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
      // A reader is there, so this open returns at once; its writes wait for the reader rather than fail with EAGAIN.
      try {
        return await open(path, flags);
      } finally {
        await probe.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENXIO') throw err;
    }
    if (tries === 0) waiting?.();
    await sleep(FIFO_POLL_MS, undefined, { signal }).catch(() => {
      throw fail({ kind: 'stream-never-read', path });
    });
  }
}

/** What a file is written with: its whole text or bytes, or a function that writes through the open handle. */
export type FileContent<H extends WriteHandle = WriteHandle> = string | Uint8Array | ((handle: H) => Promise<void>);

/** Writes `data` into `handle` and closes it; `sync` flushes it to disk first (a pipe or a device has nothing to flush). */
async function fill<H extends WriteHandle>(handle: H, data: FileContent<H>, sync: boolean): Promise<void> {
  try {
    if (typeof data === 'function') await data(handle);
    else await handle.writeFile(data);
    if (sync) await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces what is at `path` (a file, or a link or FIFO, itself, never followed) with a file written
 * whole under a temporary name beside it, flushed to disk, then renamed over it: until the rename a
 * reader, or a machine restarted after a crash, finds the old file; after it, the whole new one;
 * never no file nor half of one. The temporary file is removed when anything fails.
 */
export async function replaceAtomically(path: string, data: FileContent<FileHandle>): Promise<void> {
  const tmp = await createTemp(path);
  try {
    await fill(tmp.handle, data, true);
    await rename(tmp.path, path);
  } catch (err) {
    await rm(tmp.path, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes a file whole without a reader ever seeing half of it (replaceAtomically). A link is written
 * through (its target replaced); a stream (`-o /dev/stdout`, `/dev/null`, a FIFO; writeTarget) is
 * written into as it is: a file renamed over it would replace it (run as root, even /dev/null).
 * `signal` ends a wait for a FIFO's reader (openForWriting).
 */
export async function writeAtomically(path: string, data: FileContent, signal?: AbortSignal): Promise<void> {
  const target = await writeTarget(path);
  if (target.stream) return fill(await openForWriting(path, 'w', signal), data, false);
  return replaceAtomically(target.file, data);
}

/** Appends `text` to `path` (created when missing), in place: a step summary, or a stream as writeAtomically writes one. */
export async function appendText(path: string, text: string, signal?: AbortSignal): Promise<void> {
  return fill(await openForWriting(path, 'a', signal), text, false);
}

/**
 * A JSON file awb keeps beside an output (a manifest, a batch state), checked
 * against its format; undefined when there is none. Anything else is a fault
 * naming the file and what it was read for (`use`: what to do about it differs).
 */
export async function readJsonFile<S extends z.ZodType>(path: string, schema: S, use: JsonFileUse): Promise<z.output<S> | undefined> {
  let text: string;
  try {
    // Read only when its size is that of a file awb writes: a shared file's manifest may be anything.
    const { size } = await stat(path);
    const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
    if (size > MAX_JSON_FILE_BYTES) {
      throw fail({
        kind: 'json-file-invalid',
        path,
        use,
        field: '',
        problem: `${mb(size)}, more than the ${mb(MAX_JSON_FILE_BYTES)} awb reads in such a file`,
      });
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof FaultError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    const known = fileError(path, err);
    throw known instanceof FaultError ? known : fail({ kind: 'file-unreadable', path, reason: (err as Error).message });
  }
  if (nestsDeeperThan(text)) {
    throw fail({ kind: 'json-file-invalid', path, use, field: '', problem: `nested more than ${MAX_JSON_DEPTH} levels deep` });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw fail({ kind: 'json-file-not-json', path, use });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fail({ kind: 'json-file-invalid', path, use, field: issue.path.join('.'), problem: issue.message });
  }
  return parsed.data;
}

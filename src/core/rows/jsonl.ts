import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { fail, fileError } from '../errors.js';
import { openForWriting, type WriteHandle } from '../files.js';

const NL = 0x0a;
const CR = 0x0d;

export interface LineBytes {
  /** The line's bytes without its `\n`: a view into a reused buffer, valid only until the next line is read. */
  bytes: Buffer;
  lineNo: number;
  start: number;
  end: number;
  terminated: boolean;
}

const READ_SIZE = 1 << 20;
const LONG_KEPT = 4 * READ_SIZE;
/**
 * The buffers of readers that finished, for the next ones: a run reads its
 * files one after another (the plan, then the rows), and fresh buffers for
 * each would pile up until the garbage collector next looks.
 */
const spareBuffers: { reads: [Buffer, Buffer]; long: Buffer }[] = [];

/** Signatures of the compressed formats JSONL is shipped in: a `.jsonl.gz` given where the file is wanted. */
const COMPRESSED = [
  { magic: [0x1f, 0x8b], name: 'gzip', tool: 'gunzip -k' },
  { magic: [0x28, 0xb5, 0x2f, 0xfd], name: 'zstd', tool: 'zstd -d' },
  { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'xz', tool: 'unxz -k' },
  { magic: [0x42, 0x5a, 0x68], name: 'bzip2', tool: 'bunzip2 -k' },
  { magic: [0x50, 0x4b, 0x03, 0x04], name: 'zip', tool: 'unzip' },
];

function compression(start: Buffer): { name: string; tool: string } | undefined {
  return COMPRESSED.find((c) => c.magic.every((b, i) => start[i] === b));
}

/** UTF-16 by its byte order mark, or by the NUL beside each ASCII character of a JSON line's start (`{"` as 7B 00 22 00). */
function isUtf16(start: Buffer): boolean {
  if (start.length < 2) return false;
  const [a, b] = [start[0]!, start[1]!];
  return (a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff) || (a !== 0 && b === 0) || (a === 0 && b !== 0);
}

/**
 * Reads a file line by line as bytes, splitting on `\n` only, without a
 * leading byte order mark; a compressed file is refused at its first bytes. JSONL from the
 * real data holds raw U+2028/U+2029 inside strings, which readline-style
 * splitters may treat as line breaks; here they stay inside their line.
 * Memory holds two read buffers and one buffer as large as the longest line
 * so far (a row may be several MB), and a caller that skips a line never pays
 * for decoding it.
 */
export async function* readLineBytes(path: string, opts: { highWaterMark?: number } = {}): AsyncGenerator<LineBytes> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw fileError(path, err);
  }
  // Two read buffers, reused: the next read fills one while the lines of the
  // other are handed out. A line that runs past a read is gathered in `long`,
  // kept for the file's next long lines and doubled when one is longer: fresh
  // buffers would leave hundreds of MB for the garbage collector to find on a
  // full-size file, and each costs its page faults.
  const size = opts.highWaterMark ?? READ_SIZE;
  const kept = size === READ_SIZE ? spareBuffers.pop() : undefined;
  const reads = kept?.reads ?? [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let long = kept?.long ?? Buffer.allocUnsafe(0);
  let carried = 0; // bytes of the current line gathered in `long` from earlier reads
  const carry = (piece: Buffer) => {
    if (carried + piece.length > long.length) {
      const grown = Buffer.allocUnsafe(Math.max(size, carried + piece.length, 2 * long.length));
      long.copy(grown, 0, 0, carried);
      long = grown;
    }
    carried += piece.copy(long, carried);
  };
  const read = (into: Buffer, at: number): Promise<number> =>
    handle.read(into, 0, into.length, at).then(
      (r) => r.bytesRead,
      (err: unknown) => {
        throw fileError(path, err);
      },
    );
  let offset = 0; // byte offset of the current line's first byte
  let lineNo = 0;
  let pos = 0;
  let which = 0;
  let pending = read(reads[0], 0);
  let endingsChecked = false;
  try {
    for (;;) {
      const chunkStart = pos;
      const bytesRead = await pending;
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = reads[which]!.subarray(0, bytesRead);
      which ^= 1;
      pending = read(reads[which]!, pos);
      let from = 0;
      if (chunkStart === 0) {
        const packed = compression(chunk);
        // Read as text, a compressed file is 'not valid JSON' at line 1 after a planning scan counted its binary lines as rows.
        if (packed) throw fail({ kind: 'input-compressed', path, format: packed.name, tool: packed.tool });
        if (isUtf16(chunk)) throw fail({ kind: 'input-utf16', path });
      }
      // A UTF-8 byte order mark (Windows editors write one) is not part of the first line.
      if (chunkStart === 0 && bytesRead >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) offset = from = 3;
      if (!endingsChecked) endingsChecked = checkEndings(path, chunk, from, long.subarray(0, carried));
      for (let nl = chunk.indexOf(NL, from); nl !== -1; nl = chunk.indexOf(NL, from)) {
        let bytes = chunk.subarray(from, nl);
        if (carried) {
          carry(bytes);
          bytes = long.subarray(0, carried);
          carried = 0;
        }
        lineNo++;
        const end = offset + bytes.length + 1;
        yield { bytes, lineNo, start: offset, end, terminated: true };
        offset = end;
        from = nl + 1;
      }
      if (from < chunk.length) carry(chunk.subarray(from));
    }
    if (carried) {
      lineNo++;
      yield { bytes: long.subarray(0, carried), lineNo, start: offset, end: pos, terminated: false };
    }
  } finally {
    // A reader left early has its next read under way: settled here, so its failure cannot go unhandled.
    await pending.catch(() => undefined);
    if (size === READ_SIZE && spareBuffers.length < 2)
      spareBuffers.push({ reads, long: long.length > LONG_KEPT ? Buffer.allocUnsafe(0) : long });
    await handle.close();
  }
}

/**
 * Whether the first line's ending is known to be LF (true), or not yet
 * (false: no line end in the chunk so far). A file whose lines end in CR
 * alone (old Mac) would read as one line, taken for a line cut short or bad
 * JSON: a first lone CR right after a whole JSON value, with more text after
 * it on the line, is refused with a line that says so. Any other CR is JSON
 * whitespace or part of a CRLF and stays; lines still split on LF alone.
 */
function checkEndings(path: string, chunk: Buffer, from: number, carried: Buffer): boolean {
  const nl = chunk.indexOf(NL, from);
  const cr = chunk.indexOf(CR, from);
  if (cr === -1 || (nl !== -1 && cr >= nl - 1)) return nl !== -1;
  // CRs and blanks up to the LF still end the line (`\r\r\n`, a CRLF file converted twice); at the chunk's end the next chunk decides.
  let after = cr;
  while (after < chunk.length && (chunk[after] === CR || chunk[after] === 0x20 || chunk[after] === 0x09)) after++;
  if (after === chunk.length) return false;
  if (chunk[after] === NL) return true;
  const before = Buffer.concat([carried, chunk.subarray(from, cr)]).toString('utf8');
  if (before.trim() !== '' && parses(before)) {
    throw fail({ kind: 'input-cr-endings', path });
  }
  return true;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function decodeLine(bytes: Buffer): string {
  return withoutCr(bytes).toString('utf8');
}

/** A line's bytes without the `\r` of a CRLF file: what a copied line keeps, so an output never mixes line endings. */
export function withoutCr(bytes: Buffer): Buffer {
  return bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
}

/** Counts non-empty lines by scanning bytes, without decoding or parsing: cheap enough to size a progress bar. */
export async function countLines(path: string): Promise<number> {
  let count = 0;
  let lineHasContent = false;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      for (let i = 0; i < chunk.length; i++) {
        const b = chunk[i]!;
        if (b === NL) {
          if (lineHasContent) count++;
          lineHasContent = false;
        } else if (b !== 0x20 && b !== 0x0d && b !== 0x09) {
          lineHasContent = true;
        }
      }
    }
  } catch (err) {
    throw fileError(path, err);
  }
  return lineHasContent ? count + 1 : count;
}

/** What is left of `parts` after the first `written` bytes went out. */
function rest(parts: Buffer[], written: number): Buffer[] {
  const left: Buffer[] = [];
  for (const p of parts) {
    if (written >= p.length) written -= p.length;
    else {
      left.push(written ? p.subarray(written) : p);
      written = 0;
    }
  }
  return left;
}

/** Text, or bytes that are already UTF-8 (a line re-read from its input). */
type LinePart = string | Buffer;

/** Bytes appended between two syncs to disk in the background. */
const SYNC_EVERY = 32e6;

/**
 * Appends whole lines to a JSONL file, one after the other, so a crash leaves
 * at most one cut line at the end, which readers detect (no `\n`) and drop.
 * The file is on disk when `close` returns; it is synced in the background
 * every SYNC_EVERY bytes on the way, so that last sync has little left to do
 * (a whole run's hundreds of MB would hold up its end).
 */
export class JsonlAppender {
  /** Writes are chained so concurrent callers never interleave parts of two lines. */
  private queue: Promise<void> = Promise.resolve();
  private unsynced = 0;
  private syncing: Promise<void> | undefined;
  /** A background sync's failure (a full disk, an I/O error): raised by the next append or by close. */
  private syncFailed: { error: unknown } | undefined;

  private constructor(
    readonly path: string,
    private readonly handle: WriteHandle,
  ) {}

  /** `signal` ends a wait for a FIFO's reader, `waiting` is told when one begins (openForWriting). */
  static async open(path: string, signal?: AbortSignal, waiting?: () => void): Promise<JsonlAppender> {
    try {
      return new JsonlAppender(path, await openForWriting(path, 'a', signal, waiting));
    } catch (err) {
      throw fileError(path, err);
    }
  }

  /** `line` may come in parts (e.g. a slice of the input line and the fields added to it), written as one line. */
  append(line: string | readonly LinePart[]): Promise<void> {
    const next = this.queue.then(() => this.writeLine(line));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private writeLine(line: string | readonly LinePart[]): Promise<void> {
    if (this.syncFailed) throw fileError(this.path, this.syncFailed.error);
    // The parts go out in one writev call, so a multi-MB input line is never copied into a joined buffer.
    return this.writeParts(
      (typeof line === 'string' ? [line, '\n'] : [...line, '\n']).map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)),
    );
  }

  private async writeParts(parts: Buffer[]): Promise<void> {
    try {
      // write(2) may stop short on a full disk; keep going until the line is whole or an error says why.
      while (parts.length) {
        const { bytesWritten } = await this.handle.writev(parts);
        if (bytesWritten === 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
        parts = rest(parts, bytesWritten);
        this.unsynced += bytesWritten;
      }
    } catch (err) {
      throw fileError(this.path, err);
    }
    if (this.unsynced >= SYNC_EVERY && !this.syncing) {
      this.unsynced = 0;
      this.syncing = this.sync()
        .catch((error: unknown) => {
          this.syncFailed ??= { error };
        })
        .finally(() => (this.syncing = undefined));
    }
  }

  private async sync(): Promise<void> {
    try {
      await this.handle.sync();
    } catch (err) {
      // Special files (/dev/null, a pipe) cannot be synced, and there is nothing to lose; any other failure is data not on disk.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    }
  }

  async close(): Promise<void> {
    try {
      await this.queue;
      await this.syncing;
      if (this.syncFailed) throw this.syncFailed.error;
      await this.sync();
    } catch (err) {
      throw fileError(this.path, err);
    } finally {
      await this.handle.close();
    }
  }
}

/**
 * Reads `length` bytes at `start` of an open file: a planned line, read again when its turn comes.
 * With `into` (at least `length` long), into the start of that buffer rather than a new one.
 */
export async function readLineAt(
  file: { handle: FileHandle; path: string },
  start: number,
  length: number,
  into?: Buffer,
): Promise<Buffer> {
  const bytes = into ? into.subarray(0, length) : Buffer.allocUnsafe(length);
  let bytesRead: number;
  try {
    ({ bytesRead } = await file.handle.read(bytes, 0, length, start));
  } catch (err) {
    throw fileError(file.path, err);
  }
  if (bytesRead < length) throw fail({ kind: 'input-shrank', path: file.path });
  return bytes;
}

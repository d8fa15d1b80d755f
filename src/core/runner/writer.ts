import { open } from 'node:fs/promises';
import type { z } from 'zod';
import { writeAtomically } from '../files.js';
import { JsonlAppender, isBlank, outputLine, readLineBytes, readRow } from '../rows/index.js';
import type { DatasetRow } from '../schemas/index.js';
import { isNonEmptyFile } from '../output/index.js';
import { fileError } from '../errors.js';

export interface Resumed {
  /** Rows already finished: never sent again. */
  doneKeys: Set<string>;
  /** Lines dropped so they are redone: rows without a final result, a line cut by a crash, lines that are not rows. */
  dropped: { failed: number; cut: number; invalid: number };
  /** The byte ranges of the lines kept (dropRedone). */
  keepRanges: [number, number][];
}

export interface ResumeOptions {
  /** The stage's input schema (output rows are input rows with fields added). */
  schema: z.ZodType<DatasetRow>;
  /** Whether an earlier output row (with its key) is kept as it is; the others are dropped and redone. */
  keep: (row: Record<string, unknown>, key: string) => boolean;
  /** Called for each kept row, with its key and line number, to rebuild the tallies. */
  onKept?: (row: Record<string, unknown>, key: string, lineNo: number) => void;
  /** Called before each line: throws to stop the scan (Ctrl-C while a huge output is read). */
  between?: () => void;
}

/** Reads an earlier (possibly interrupted) output so a run can resume, changing nothing (dropRedone does). */
export async function scanOutput(path: string, opts: ResumeOptions): Promise<Resumed> {
  const doneKeys = new Set<string>();
  const dropped = { failed: 0, cut: 0, invalid: 0 };
  const keepRanges: [number, number][] = [];
  if (!(await isNonEmptyFile(path))) return { doneKeys, dropped, keepRanges };
  for await (const line of readLineBytes(path)) {
    opts.between?.();
    if (isBlank(line.bytes)) continue;
    if (!line.terminated) {
      dropped.cut++;
      continue;
    }
    const read = readRow(line.bytes, opts.schema, { file: path, lineNo: line.lineNo, terminated: true });
    if (!read.ok || doneKeys.has(read.key)) {
      dropped.invalid++;
      continue;
    }
    if (!opts.keep(read.parsed, read.key)) {
      dropped.failed++;
      continue;
    }
    doneKeys.add(read.key);
    opts.onKept?.(read.parsed, read.key, line.lineNo);
    const last = keepRanges[keepRanges.length - 1];
    if (last && last[1] === line.start) last[1] = line.end;
    else keepRanges.push([line.start, line.end]);
  }
  return { doneKeys, dropped, keepRanges };
}

/**
 * Removes the lines to redo that scanOutput found by writing the kept lines to a new file and
 * renaming it over the original: until the rename the original is intact, so a crash here loses nothing either.
 */
export async function dropRedone(path: string, scan: Resumed): Promise<void> {
  const { failed, cut, invalid } = scan.dropped;
  if (failed + cut + invalid > 0) await rewriteKeeping(path, scan.keepRanges);
}

async function rewriteKeeping(path: string, ranges: [number, number][]): Promise<void> {
  try {
    const source = await open(path, 'r');
    try {
      await writeAtomically(path, async (out) => {
        const buf = Buffer.allocUnsafe(1 << 20);
        for (const [start, end] of ranges) {
          for (let pos = start; pos < end;) {
            const { bytesRead } = await source.read(buf, 0, Math.min(buf.length, end - pos), pos);
            if (bytesRead === 0) throw new Error(`${path} got shorter while it was being rewritten`);
            await out.write(buf.subarray(0, bytesRead));
            pos += bytesRead;
          }
        }
      });
    } finally {
      await source.close();
    }
  } catch (err) {
    throw fileError(path, err);
  }
}

/** Appends output rows: each the input line with the stage's fields added, written whole. */
export class OutputWriter {
  private constructor(
    private readonly appender: JsonlAppender,
    private readonly replaced: readonly string[],
  ) {}

  /** `signal` ends a wait for a FIFO's reader, `waiting` is told when one begins. */
  static async open(path: string, replaced: readonly string[], signal?: AbortSignal, waiting?: () => void): Promise<OutputWriter> {
    return new OutputWriter(await JsonlAppender.open(path, signal, waiting), replaced);
  }

  write(line: Buffer, fields: Record<string, unknown>): Promise<void> {
    return this.appender.append(outputLine(line, fields, this.replaced));
  }

  close(): Promise<void> {
    return this.appender.close();
  }
}

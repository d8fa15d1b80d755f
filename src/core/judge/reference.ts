import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { fail } from '../errors.js';
import { isBlank, readLineAt, readLineBytes, readRow, splitKey } from '../rows/index.js';
import { predictionRowSchema } from '../schemas/index.js';
import { extractPrediction } from '../rubrics/index.js';

/**
 * The reference predictions of `--mode pairwise`, indexed by row key: only
 * where each line sits is kept, and a line is read again when its candidate
 * row is judged, so memory grows with the number of rows, not their texts.
 */
export class ReferenceFile {
  private constructor(
    readonly path: string,
    readonly sha256: string,
    private readonly at: Map<string, { start: number; length: number }>,
    private readonly handle: FileHandle,
  ) {}

  /** Reads the file once: every line checked as a prediction row, hashed as it streams by. */
  static async open(path: string, domains?: readonly string[]): Promise<ReferenceFile> {
    const at = new Map<string, { start: number; length: number }>();
    const hash = createHash('sha256');
    let offset = 0;
    for await (const line of readLineBytes(path)) {
      hash.update(line.bytes);
      if (line.terminated) hash.update('\n');
      const start = offset;
      offset += line.bytes.length + (line.terminated ? 1 : 0);
      if (isBlank(line.bytes)) continue;
      const read = readRow(line.bytes, predictionRowSchema, { file: path, lineNo: line.lineNo, terminated: line.terminated });
      if (!read.ok) throw fail({ kind: 'reference-bad-row', problem: read.bad.message });
      if (domains && !domains.includes(splitKey(read.key).domain)) continue;
      if (at.has(read.key)) throw fail({ kind: 'reference-duplicate-row', file: path, lineNo: line.lineNo });
      at.set(read.key, { start, length: line.bytes.length });
    }
    return new ReferenceFile(path, hash.digest('hex'), at, await open(path, 'r'));
  }

  has(key: string): boolean {
    return this.at.has(key);
  }

  /** The reference prediction for a key, cleaned as for the rubric judge; undefined when that row has no generation. */
  async prediction(key: string): Promise<string | undefined> {
    const where = this.at.get(key)!;
    const bytes = await readLineAt({ handle: this.handle, path: this.path }, where.start, where.length);
    const read = readRow(bytes, predictionRowSchema, { file: this.path, lineNo: 0, terminated: true });
    if (!read.ok) throw fail({ kind: 'reference-changed', file: this.path });
    return read.row.gen ? extractPrediction(read.row.gen) : undefined;
  }

  /**
   * Rows on one side only, as compare counts them: candidate rows without a
   * reference row (written as NO_REFERENCE, not sent), and reference rows the
   * candidate file lacks.
   */
  async unpaired(predictions: string, domains?: readonly string[]): Promise<{ candidateOnly: string[]; referenceOnly: string[] }> {
    const seen = new Set<string>();
    const candidateOnly: string[] = [];
    for await (const line of readLineBytes(predictions)) {
      if (isBlank(line.bytes)) continue;
      const read = readRow(line.bytes, predictionRowSchema, { file: predictions, lineNo: line.lineNo, terminated: line.terminated });
      if (!read.ok || (domains && !domains.includes(splitKey(read.key).domain))) continue;
      seen.add(read.key);
      if (!this.at.has(read.key)) candidateOnly.push(read.key);
    }
    return { candidateOnly, referenceOnly: [...this.at.keys()].filter((k) => !seen.has(k)) };
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

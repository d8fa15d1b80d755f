import { counted, visible } from '../../../core/shown.js';

/* What the result commands (compare, merge, report, rows) say besides faults: each line's words, built here. */
export const RESULTS_WORDS = {
  gateOptionsAlone: '--allow-partial and --allow-incomparable only apply to the gate: add --fail-below DELTA',
  worstAndBest: '--worst and --best exclude each other: pick one',
  /** The last words of a command Ctrl-C stopped before it wrote `file`. */
  interrupted: (command: string, file: string) => `${command} interrupted; nothing was written to ${file}`,
  mergeUsage: (awb: string) => `merge: name the merged file with -o FILE, then the shard files (${awb} merge -o merged.jsonl shard1.jsonl ...)`,
  merged: (rows: number, shards: number, out: string) => `merge: wrote ${counted(rows, 'row')} from ${counted(shards, 'shard')} to ${visible(out)}`,
  mergeIncomplete: (missing: number, failed: number) =>
    `merge: ${counted(missing, 'row')} missing and ${failed} failed; the merged file is incomplete`,
  reportWritten: (file: string, rows: number, bytes: number, seconds: number, cut?: { texts: number; limit: number }) =>
    `awb: wrote ${visible(file)} (${rows} rows, ${(bytes / 1e6).toFixed(1)} MB, ${seconds.toFixed(1)} s${cut ? `; ${cut.texts} texts cut at ${cut.limit} characters` : ''})`,
  noRowsMatch: 'awb: no rows match',
  /** A key the dataset holds twice (the android pair): each row it names, by its fingerprint. */
  keyNamesPair: (key: string, prints: readonly string[]) =>
    `awb: note: ${key} names ${prints.length} rows (the dataset holds this id and turn twice); one of them: ${prints.map((p) => `${key}#${p}`).join(', ')}`,
} as const;

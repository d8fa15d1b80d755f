import { z } from 'zod';
import { domainOfTask } from '../../domains.js';
import { fail } from '../../errors.js';
import { fieldScan, readLineBytes, scanFields, type LineBytes } from '../../rows/index.js';
import { choiceHits, judgeRepeatsSchema, orderFigures, taskSchema } from '../../schemas/index.js';
import { pairwisePanelResultSchema, pairwiseResultSchema, turingPanelResultSchema, turingResultSchema } from '../../schemas/index.js';
import { fieldProblem, parseJsonLine } from './judged-reader.js';
import { modeOfRow, type JudgeMode, type ModeWithField } from './judge-mode.js';
import type { ScoreWarning } from '../faults.js';

export type { JudgeMode, ModeWithField } from './judge-mode.js';

/** What score keeps of one row of a choice mode (turing, pairwise). */
export interface ChoiceRecord {
  domain: string;
  /** The row's id as text. */
  id: string;
  /** The trajectory (domain and id), the bootstrap's resampling unit. */
  cluster: string;
  turn: number;
  lineNo: number;
  /**
   * The row's figures, 0..1: the share of its two orders whose answer is the event the rate
   * counts (turing: fooled; pairwise: the candidate preferred) and whether they agree; a panel's
   * row, its members' combined. Undefined when the row does not count (an order without a
   * choice; a panel's row no member counted).
   */
  figures?: { rate: number; consistent: number };
  /**
   * One judge's row: per order (subject at A, then at B), whether its answer is that event
   * (choiceHits; null: no choice). A panel's row has none: its members' are in its `panel`.
   */
  hits?: [boolean | null, boolean | null];
}

/** What score keeps of one row judged K times. */
export interface RepeatRecord {
  domain: string;
  cluster: string;
  turn: number;
  lineNo: number;
  /** total_score of each valid repeat, in order (1..5). */
  totals: number[];
}

export type ModeFile =
  | { path: string; mode: 'rubric'; warnings: ScoreWarning[] }
  | { path: string; mode: 'turing' | 'pairwise'; records: ChoiceRecord[]; warnings: ScoreWarning[] }
  | { path: string; mode: 'repeat'; records: RepeatRecord[]; warnings: ScoreWarning[] };

const SCAN = fieldScan(['task', 'id', 'turn_idx', 'failed', 'turing', 'pairwise', 'judge_repeats']);

const identity = {
  task: taskSchema,
  id: z.union([z.number(), z.string()]),
  turn_idx: z.number().int().min(1),
};
const ROW_SCHEMAS = {
  turing: z.object({ ...identity, turing: turingResultSchema }),
  pairwise: z.object({ ...identity, pairwise: pairwiseResultSchema }),
  repeat: z.object({ ...identity, judge_repeats: judgeRepeatsSchema }),
};
/** A panel's choice rows (judge --judge-model a,b,c): the mode object holds the panel's figures, under these names. */
const PANEL_SCHEMAS = {
  turing: { rate: 'fooling', schema: z.object({ ...identity, turing: turingPanelResultSchema }) },
  pairwise: { rate: 'win', schema: z.object({ ...identity, pairwise: pairwisePanelResultSchema }) },
} as const;

/** Sees each record of a judge-mode file with the line it was read from. */
export type ModeVisitor = (record: ChoiceRecord | RepeatRecord, line: LineBytes) => void;

/**
 * Reads a judged file of the judge modes, streaming: the mode is the one of
 * its first row (turing, pairwise or judge_repeats field; none of them: a
 * rubric file, returned at once for readJudged to read), and every other row
 * must be of the same mode. Each row keeps only what the figures need;
 * `visit` lets a caller take more from each line in the same pass.
 */
export async function readModeFile(path: string, visit?: ModeVisitor): Promise<ModeFile> {
  const warnings: ScoreWarning[] = [];
  let mode: ModeWithField | undefined;
  const records: Array<ChoiceRecord | RepeatRecord> = [];
  for await (const line of readLineBytes(path)) {
    const row = smallFields(path, line, warnings);
    if (!row) continue;
    if (mode === undefined) {
      const first = modeOf(row);
      if (first === 'rubric') return { path, mode: 'rubric', warnings };
      mode = first;
    }
    const record = recordOf(path, line.lineNo, mode, row);
    records.push(record);
    visit?.(record, line);
  }
  if (mode === undefined) return { path, mode: 'rubric', warnings };
  return mode === 'repeat'
    ? { path, mode, records: records as RepeatRecord[], warnings }
    : { path, mode, records: records as ChoiceRecord[], warnings };
}

/** The mode of a judged file, told by its first row (a file without rows: rubric). */
export async function judgeModeOf(path: string): Promise<JudgeMode> {
  // Small reads: only the first row is wanted, and a whole chunk of the file would be read for it.
  for await (const line of readLineBytes(path, { highWaterMark: 1 << 16 })) {
    const row = smallFields(path, line, []);
    if (row) return modeOf(row);
  }
  return 'rubric';
}

/**
 * The record of one line of a file of `mode`, for a caller reading the file
 * itself (undefined for a blank or cut last line, which the caller's reader
 * reports); a row of another mode is refused as readModeFile refuses it.
 */
export function modeRecordOf(path: string, line: LineBytes, mode: ModeWithField): ChoiceRecord | RepeatRecord | undefined {
  const row = smallFields(path, line, []);
  return row && recordOf(path, line.lineNo, mode, row);
}

function recordOf(path: string, lineNo: number, mode: ModeWithField, row: SmallRow): ChoiceRecord | RepeatRecord {
  const rowMode = modeOf(row);
  if (rowMode !== mode) throw fail({ kind: 'judge-modes-mixed', file: path, line: lineNo, fileMode: mode, rowMode });
  return toRecord(path, lineNo, mode, row);
}

function modeOf(row: Record<string, unknown>): JudgeMode {
  return modeOfRow((field) => row[field] !== undefined);
}

interface SmallRow extends Record<string, unknown> {
  /** The id as written (JSON text), so ids beyond 2^53 keep their trajectories apart. */
  idText?: string;
}

/**
 * The few fields needed, read from the line's bytes without decoding the
 * histories; JSON.parse of the whole line only when the fast path cannot
 * read it (it also words the errors). A function of its own so that the
 * parsed row does not outlive the line (see judged-reader.ts).
 */
function smallFields(path: string, line: LineBytes, warnings: ScoreWarning[]): SmallRow | undefined {
  const scanned = scanFields(line, SCAN);
  if (scanned) {
    const id = scanned.at.get('id');
    return id ? { ...scanned.fields, idText: line.bytes.toString('utf8', id[0], id[1]) } : scanned.fields;
  }
  const parsed = parseJsonLine(path, line, warnings);
  if (!parsed) return undefined;
  const v = parsed.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw fail({ kind: 'judged-line-not-object', file: path, line: line.lineNo });
  return v as SmallRow;
}

/** A panel's choice row: a mode object with the panel's rate in place of the orders. */
function panelOf(mode: ModeWithField, row: SmallRow) {
  if (mode === 'repeat') return undefined;
  const panel = PANEL_SCHEMAS[mode];
  const result = row[mode];
  return typeof result === 'object' && result !== null && !('orders' in result) && panel.rate in result ? panel : undefined;
}

function toRecord(path: string, lineNo: number, mode: ModeWithField, row: SmallRow): ChoiceRecord | RepeatRecord {
  const panel = panelOf(mode, row);
  const checked = (panel?.schema ?? ROW_SCHEMAS[mode]).safeParse(row, { reportInput: true });
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw fail({
      kind: 'judged-field-invalid',
      file: path,
      line: lineNo,
      field: issue.path.join('.') || undefined,
      problem: fieldProblem(issue),
    });
  }
  const s = checked.data;
  const domain = domainOfTask(s.task);
  const id = typeof s.id === 'string' ? s.id : (row.idText ?? String(s.id));
  const base = { domain, id, cluster: `${domain}:${id}`, turn: s.turn_idx, lineNo };
  if ('judge_repeats' in s) return { ...base, totals: validTotals(s.judge_repeats) };
  // The row's own failed is what resume and other tools read: it must say what the mode object says.
  const result = 'turing' in s ? s.turing : s.pairwise;
  if (row.failed !== undefined && row.failed !== result.failed)
    throw fail({
      kind: 'choice-failed-mismatch',
      file: path,
      line: lineNo,
      mode: 'turing' in s ? 'turing' : 'pairwise',
      expected: result.failed,
    });
  if (!('orders' in result)) {
    const rate = 'fooling' in result ? result.fooling : result.win;
    const consistent = result.position_consistency;
    return rate === null || consistent === null ? base : { ...base, figures: { rate, consistent } };
  }
  return choiceRecord(base, choiceHits(result));
}

/** The total_score of each valid repeat, in order: what judge noise spreads over (a row's judge_repeats, or a panel member's). */
export function validTotals(repeats: readonly { failed: 0 | 1; total_score: number }[]): number[] {
  return repeats.filter((r) => r.failed === 0).map((r) => r.total_score);
}

/** The record of one judge's choice row (a panel's member's, for score --by-judge), from its hits. */
export function choiceRecord(base: Omit<ChoiceRecord, 'hits' | 'figures'>, hits: [boolean | null, boolean | null]): ChoiceRecord {
  const figures = orderFigures(hits);
  return { ...base, hits, ...(figures && { figures }) };
}

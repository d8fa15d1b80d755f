import type { z } from 'zod';
import { domainOfTask } from '../../domains.js';
import { fail } from '../../errors.js';
import type { At, FieldProblem, ScoreWarning } from '../faults.js';
import { SIXTIETHS, toSixtieths } from '../exact.js';
import { decodeLine, readLineBytes, type LineBytes } from '../../rows/index.js';
import { fieldScan, parseSlice, scanFields, topLevelValues, type Slice } from '../../rows/index.js';
import { clusterOfKey, rowKey, rowStage, type KeyedFields } from '../../rows/index.js';
import { DIMENSIONS, horizonSchema, judgeFailureOf, judgedScoreSchema, type Horizon } from '../../schemas/index.js';
import { noOutput } from '../../rubrics/index.js';
import { modeOfRow, type JudgeMode } from './judge-mode.js';

export interface TokenUsage {
  prompt: number;
  completion: number;
  reasoning: number;
  /** Prompt tokens served from a prefix cache; undefined when the endpoint did not report them. */
  cached?: number;
}

/**
 * What score and compare keep of one judged row. Judged lines can be several
 * MB (the whole history rides along), so only this small record survives
 * the line: memory grows with the row count, never with the file size.
 */
export interface JudgedRecord {
  key: string;
  /** The trajectory (domain + id), the bootstrap's resampling unit. */
  cluster: string;
  domain: string;
  turn: number;
  /** The five dimensions in DIMENSIONS order, in sixtieths; 0 = no score. */
  dims: number[];
  /** total_score in sixtieths; 0 = no score. */
  total: number;
  /** As score counts it (countsAsFailed). */
  failed: boolean;
  /** Its `gen` is empty: inference failed, so no judge graded it. */
  noGeneration: boolean;
  /** Its generation holds nothing once reasoning is removed (noOutput): the judge was shown it as "No output". */
  noOutput: boolean;
  /** Failed because its judge request failed (outlasted its retries), not because a reply could not be read. */
  requestFailed: boolean;
  lineNo: number;
  /** The judge mode the row's fields say it was judged in: a file holds one. */
  mode: JudgeMode;
  /** A free-running row's horizon (infer --horizon); undefined: teacher-forced. */
  horizon?: Horizon;
  /** Inference usage (`usage`). */
  usage?: TokenUsage;
  /** Judge usage (`judge_usage`). */
  judgeUsage?: TokenUsage;
  /** The parts of them the Batch API answered (`batch_usage`, `judge_batch_usage`), billed at its discount. */
  batchUsage?: TokenUsage;
  judgeBatchUsage?: TokenUsage;
}

export interface JudgedFile {
  path: string;
  /** Its first row's judge mode (rubric for a file without rows); every row has it. */
  mode: JudgeMode;
  records: JudgedRecord[];
  /** Problems that did not stop reading (a cut last line); for the command to print. */
  warnings: ScoreWarning[];
}

const SCORE_FIELDS = ['total_score', ...DIMENSIONS] as const;

/** Sees each record with the line it was read from, while the line is still at hand. */
export type JudgedVisitor = (record: JudgedRecord, line: LineBytes) => void;

/**
 * Reads a judged JSONL file (ours or the official script's) into small
 * records, validating every line; `visit` lets a caller take more from each
 * line in the same pass (the report, its texts).
 */
export async function readJudged(path: string, visit?: JudgedVisitor): Promise<JudgedFile> {
  const records: JudgedRecord[] = [];
  const warnings: ScoreWarning[] = [];
  const read = judgedLines(path, warnings);
  for await (const line of readLineBytes(path)) {
    const record = read(line);
    if (!record) continue;
    records.push(record);
    visit?.(record, line);
  }
  return { path, mode: records[0]?.mode ?? 'rubric', records, warnings };
}

/**
 * Checks the lines of one judged file in order, as every command that reads
 * grades sees them (score, compare, report, rows): each line to its record
 * (undefined for a blank or cut last line, with a warning for the latter); a
 * first row of an earlier stage, a row of another judge mode, or a row given
 * twice is refused.
 */
export function judgedLines(path: string, warnings: ScoreWarning[]): (line: LineBytes) => JudgedRecord | undefined {
  const seen = new Map<string, number>();
  let mode: JudgeMode | undefined;
  return (line) => {
    // Only the first row tells the file's stage (a later row without judge results is refused at its missing field).
    const first = mode === undefined;
    const record = scanLine(path, line, first) ?? parseLine(path, line, warnings, first);
    if (!record) return undefined;
    mode ??= record.mode;
    if (record.mode !== mode)
      throw fail({ kind: 'judge-modes-mixed', file: path, line: line.lineNo, fileMode: mode, rowMode: record.mode });
    const earlier = seen.get(record.key);
    if (earlier !== undefined) throw fail({ kind: 'judged-row-repeated', file: path, line: line.lineNo, earlier });
    seen.set(record.key, line.lineNo);
    return record;
  };
}

/**
 * One line to its record. A function of its own, not inline in the loop:
 * locals of an async loop stay reachable while it awaits the next line, so
 * the previous parsed row (megabytes for long histories) would live on
 * while the next one is read and parsed.
 */
function parseLine(path: string, line: LineBytes, warnings: ScoreWarning[], first: boolean): JudgedRecord | undefined {
  const json = parseJsonLine(path, line, warnings);
  if (!json) return undefined;
  const parsed = json.value;
  const has = (k: string) => typeof parsed === 'object' && parsed !== null && Object.hasOwn(parsed, k);
  const raw = idJson(line.bytes, topLevelValues(line.bytes, ID_ONLY)?.get('id')) ?? json.text;
  const noGeneration = has('gen') && (parsed as { gen?: unknown }).gen === '';
  return {
    ...toRecord(path, line.lineNo, raw, parsed, has, first),
    noGeneration,
    noOutput: noOutput(has('gen') ? (parsed as { gen?: unknown }).gen : undefined) !== undefined,
  };
}

const ID_ONLY = new Set(['id']);

/**
 * The id alone as JSON text, for the row key: it keeps an id beyond 2^53
 * exactly, from its own text, and keeps the key's exact reading of the line
 * away from the rest of it (a repeated key elsewhere, say).
 */
function idJson(b: Buffer, slice: Slice | undefined): string | undefined {
  return slice && `{"id":${b.toString('utf8', slice[0], slice[1])}}`;
}

/**
 * A judged line as JSON: undefined for a blank line or a cut last line (with
 * a warning: an interrupted run leaves one), a fault for any other line
 * that is not JSON.
 */
export function parseJsonLine(path: string, line: LineBytes, warnings: ScoreWarning[]): { text: string; value: unknown } | undefined {
  const text = decodeLine(line.bytes);
  if (text.trim() === '') return undefined;
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    if (!line.terminated) {
      warnings.push({ kind: 'judged-line-cut', file: path, line: line.lineNo });
      return undefined;
    }
    throw fail({ kind: 'judged-line-not-json', file: path, line: line.lineNo, reason: (err as Error).message });
  }
}

const SMALL_FIELDS = [
  'task',
  'id',
  'turn_idx',
  'total_turns',
  ...SCORE_FIELDS,
  'failed',
  'judge_failure',
  'usage',
  'judge_usage',
  'batch_usage',
  'judge_batch_usage',
  'current_prompt',
  'system_str',
  'horizon',
] as const;
// The judge modes' fields only for whether they are there, judge_repeats and panel also for whether they are lists; `gen` is decoded only to tell a generation without output (noOutput).
const SCAN = fieldScan(SMALL_FIELDS, {
  turnLists: ['prompt', 'response'],
  locate: ['gen', 'judge_repeats', 'panel', 'turing', 'pairwise'],
});

/**
 * The fast path: the record from the few values it needs, found in the
 * line's bytes (scanFields), without decoding the histories. undefined
 * sends the line to parseLine, which also words every error.
 */
function scanLine(path: string, line: LineBytes, first: boolean): JudgedRecord | undefined {
  const scanned = scanFields(line, SCAN);
  if (!scanned) return undefined;
  const { fields: row, at } = scanned;
  // Only whether it is a list matters (a --repeat row's grades are means); its items are never decoded.
  const repeats = at.get('judge_repeats');
  if (repeats && line.bytes[repeats[0]] === 0x5b) row.judge_repeats = [];
  const panel = at.get('panel');
  if (panel && line.bytes[panel[0]] === 0x5b) row.panel = [];
  try {
    const record = toRecord(path, line.lineNo, idJson(line.bytes, at.get('id')) ?? '{}', row, (k) => at.has(k), first);
    // `""` is two bytes: an empty generation, written when inference failed.
    const gen = at.get('gen');
    const noGeneration = gen !== undefined && gen[1] - gen[0] === 2 && line.bytes[gen[0]] === 0x22;
    return { ...record, noGeneration, noOutput: !noGeneration && noOutput(parseSlice(line.bytes, gen)) !== undefined };
  } catch {
    return undefined;
  }
}

/**
 * `has`: whether the line has a top-level field of that name. `first`: for
 * the file's first row, whose stage is the file's: a predictions or dataset
 * file is told so.
 */
function toRecord(
  path: string,
  lineNo: number,
  raw: string,
  parsed: unknown,
  has: (key: string) => boolean,
  first: boolean,
): Omit<JudgedRecord, 'noGeneration' | 'noOutput'> {
  const at = { file: path, line: lineNo };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail({ kind: 'judged-line-not-object', ...at });
  const row = parsed as Record<string, unknown>;
  const stage = first ? rowStage(has) : 'judged';
  if (stage !== 'judged') throw fail({ kind: 'judged-file-of-earlier-stage', file: path, stage });

  // Only the few small fields go through zod: validating (and copying) the
  // full row with its histories would dominate the time on large files.
  const checked = judgedScoreSchema.safeParse(
    {
      task: row.task,
      id: row.id,
      turn_idx: row.turn_idx,
      total_turns: row.total_turns,
      total_score: row.total_score,
      format: row.format,
      factuality: row.factuality,
      consistency: row.consistency,
      realism: row.realism,
      quality: row.quality,
      failed: row.failed,
      usage: row.usage,
      judge_usage: row.judge_usage,
      batch_usage: row.batch_usage,
      judge_batch_usage: row.judge_batch_usage,
    },
    { reportInput: true },
  );
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw fail({ kind: 'judged-field-invalid', ...at, field: issue.path.join('.') || undefined, problem: fieldProblem(issue) });
  }
  const s = checked.data;

  // A --repeat row's grades are means over up to K repeats (11/3, 17/7, …), a panel's over its members: taken to the nearest sixtieth, see repeatGrade.
  const [total, ...dims] = gradesOf(s, Array.isArray(row.judge_repeats) || Array.isArray(row.panel), at);
  const key = rowKey(raw, keyedFields(row, s.task, s.id, s.turn_idx, at));
  const domain = domainOfTask(s.task);
  const horizon = row.horizon === undefined ? undefined : horizonSchema.safeParse(row.horizon);
  if (horizon && !horizon.success) {
    throw fail({ kind: 'judged-field-invalid', ...at, field: 'horizon', problem: { kind: 'horizon' } });
  }
  return {
    key,
    cluster: clusterOfKey(key),
    domain,
    turn: s.turn_idx,
    dims,
    total,
    failed: countsAsFailed(s.failed, [total, ...dims]),
    requestFailed: judgeFailureOf(row) === 'request-failed',
    lineNo,
    mode: modeOfRow(has),
    ...(horizon ? { horizon: horizon.data } : {}),
    usage: tokens(s.usage),
    judgeUsage: tokens(s.judge_usage),
    batchUsage: tokens(s.batch_usage),
    judgeBatchUsage: tokens(s.judge_batch_usage),
  };
}

/**
 * As score counts a row: flagged failed, or with no score at all (`grades`:
 * total_score and the five dimensions, all 0). The official script counts
 * such a row valid in its domain's header, yet each of its means skips zeros,
 * so the row is in no average and not in its final Valid count: here it is
 * failed, everywhere. A row with some grades 0 and others not is valid, its
 * zeros skipped value by value, as there.
 */
export function countsAsFailed(failed: number, grades: readonly number[]): boolean {
  return failed !== 0 || grades.every((g) => g === 0);
}

/**
 * total_score and the five dimensions, in sixtieths, each checked: 0 (no
 * score) or a mean of 1-5 grades (`repeated`: a --repeat row's, taken to the
 * nearest sixtieth); anything else fails at its field.
 */
function gradesOf(s: Record<(typeof SCORE_FIELDS)[number], number>, repeated: boolean, at: At): [number, ...number[]] {
  const grade = repeated ? repeatGrade : (v: number) => v;
  const scores = SCORE_FIELDS.map((field) => {
    const v = toSixtieths(grade(s[field]));
    if (v !== undefined) return v;
    throw fail({ kind: 'judged-grade-invalid', ...at, field, value: s[field] });
  });
  return scores as [number, ...number[]];
}

/**
 * The official grade fields of a row judged K times (`judge_repeats`) hold a
 * mean over its valid repeats, which is usually no multiple of 1/60 (the
 * unit that keeps every leaderboard sum an exact integer). Such a grade is
 * rounded to the nearest sixtieth: a row's 0-100 score moves by at most
 * 25/120 ≈ 0.21 points, and rows of ordinary files are read unchanged.
 */
export function repeatGrade(v: number): number {
  return Math.round(v * SIXTIETHS) / SIXTIETHS;
}

/**
 * The fields the row key hashes, checked just enough for hashing. A bare
 * string prompt/response counts as a one-turn list, as the dataset schema
 * reads it, so keys agree with the ones infer and judge compute.
 */
function keyedFields(row: Record<string, unknown>, task: string, id: string | number, turn: number, at: At): KeyedFields {
  const wrong = (field: string, expected: 'a list of strings' | 'a string', v: unknown): never => {
    throw fail({ kind: 'judged-field-type', ...at, field, expected, got: typeof v });
  };
  const turns = (field: 'prompt' | 'response'): string[] | undefined => {
    const v = row[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return [v];
    if (!Array.isArray(v)) return wrong(field, 'a list of strings', v);
    const item: unknown = v[turn - 1];
    if (item !== undefined && typeof item !== 'string') wrong(`${field}[${turn - 1}]`, 'a string', item);
    return v as string[];
  };
  const text = (field: 'current_prompt' | 'system_str'): string | undefined => {
    const v = row[field];
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : wrong(field, 'a string', v);
  };
  return {
    task,
    id,
    turn_idx: turn,
    prompt: turns('prompt'),
    response: turns('response'),
    current_prompt: text('current_prompt'),
    system_str: text('system_str'),
  };
}

export function tokens(
  u:
    | {
        prompt_tokens?: number;
        completion_tokens?: number;
        reasoning_tokens?: number;
        cached_tokens?: number;
        completion_tokens_details?: unknown;
        prompt_tokens_details?: unknown;
      }
    | null
    | undefined,
): TokenUsage | undefined {
  if (!u) return undefined;
  const details = u.completion_tokens_details as { reasoning_tokens?: unknown } | undefined;
  const reasoning = u.reasoning_tokens ?? (typeof details?.reasoning_tokens === 'number' ? details.reasoning_tokens : 0);
  // Our rows carry cached_tokens; a raw OpenAI usage object, its prompt_tokens_details.
  const promptDetails = u.prompt_tokens_details as { cached_tokens?: unknown } | undefined;
  const cached = u.cached_tokens ?? (typeof promptDetails?.cached_tokens === 'number' ? promptDetails.cached_tokens : undefined);
  return { prompt: u.prompt_tokens ?? 0, completion: u.completion_tokens ?? 0, reasoning, ...(cached !== undefined ? { cached } : {}) };
}

/** A JSON value's type as zod names it: null, array, object, string, number, boolean. */
function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/**
 * Why zod refused a field, as data (worded in src/commands/words/), from the issue's code and fields,
 * never its message's words: a wrong type (or a union of types: id, a number or a string) as what
 * was expected and what came, a wrong constant as the one expected; any other issue (a refinement's,
 * a union the schema words itself) as the schema or zod words it. The check must report its input
 * (`reportInput: true`): without it every wrong type reads as missing.
 */
export function fieldProblem(issue: z.core.$ZodIssue): FieldProblem {
  const wrongType = (expected: string[]): FieldProblem => ({
    kind: 'type',
    expected,
    ...(issue.input === undefined ? {} : { got: typeName(issue.input) }),
  });
  if (issue.code === 'invalid_type') return wrongType([issue.expected]);
  if (issue.code === 'invalid_value' && issue.values.length === 1) {
    const v = issue.values[0];
    return { kind: 'value', expected: typeof v === 'string' ? JSON.stringify(v) : String(v) };
  }
  if (issue.code === 'invalid_union') {
    const branches = issue.errors.map((b) => b.find((i) => i.path.length === 0 && i.code === 'invalid_type'));
    if (branches.length && branches.every((b) => b !== undefined))
      return wrongType([...new Set(branches.map((b) => (b as z.core.$ZodIssueInvalidType).expected))]);
  }
  return { kind: 'said', text: issue.message };
}

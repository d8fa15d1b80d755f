import { fail } from '../../errors.js';
import { judgedTexts } from '../../rubrics/index.js';
import { decodeLine, fieldScan, readLineBytes, scanFields, splitKey, type LineBytes } from '../../rows/index.js';
import { DIMENSIONS, type Dimension } from '../../schemas/index.js';
import { judgedLines, type JudgedRecord } from './judged-reader.js';
import type { ScoreWarning } from '../faults.js';

/** One judged row as `awb rows` shows it. */
export interface RowView {
  /** `domain/id/turn_idx`: the key the HTML report's links use. */
  key: string;
  /** The row key's fingerprint: `key#fingerprint` names one of the two rows that share a key (the android pair). */
  fingerprint: string;
  domain: string;
  task: string;
  id: string | number;
  turn_idx: number;
  total_score: number;
  grades: Record<Dimension, number>;
  failed: number;
  /** The current action (`current_prompt`, else `prompt[turn_idx-1]`). */
  action: string;
  /** The prediction as the judge saw it: `extracted_output`, else `gen` with think blocks and the observation wrapper removed. */
  prediction: string;
  /** `response[turn_idx-1]`, unwrapped as the judge saw it. */
  groundTruth: string;
  strengths: string[];
  weaknesses: string[];
  error?: string;
  /** A free-running row's (infer --horizon): each generated observation, cleaned as the judge cleans a prediction, beside the real one. */
  rollout?: { turn: number; generated: string; real: string }[];
}

/** A row named on the command line: `domain/id/turn_idx`, or with `#fingerprint` (a prefix will do) one row of a pair sharing it. */
export interface RowRef {
  /** As typed, for messages. */
  text: string;
  domain: string;
  id: string;
  turn: number;
  fingerprint?: string;
}

export interface RowQuery {
  /** Only the rows named; each must name a row of the file. */
  refs?: readonly RowRef[];
  /** Only this domain (already in the dataset's spelling). */
  domain?: string;
  /** Keep the N lowest (`worst`) or highest (`best`) totals; undefined: every row, in file order. */
  pick?: { order: 'worst' | 'best'; n: number };
  /** Only failed rows (otherwise --worst/--best rank the valid rows). */
  failed?: boolean;
}

/**
 * The selected rows of a judged file, streamed: in file order as they are
 * read, or with `pick` the N chosen rows once the file is read, best or
 * worst first (ties in file order). Memory holds N rows, never the file.
 * Every line is checked as score checks it (judgedLines): a file score
 * refuses is refused here with the same line, and what score only warns
 * about (a cut last line) goes to `warnings`.
 */
export async function* judgedRows(path: string, query: RowQuery, warnings: ScoreWarning[]): AsyncGenerator<RowView> {
  const kept: RowView[] = [];
  const pick = query.pick;
  // Worst first: ascending totals; best first: descending. Equal totals keep file order.
  const before = (a: RowView, b: RowView): boolean =>
    pick?.order === 'best' ? a.total_score > b.total_score : a.total_score < b.total_score;
  // A --domain that matches no row (a typo) is told apart from a selection that matches nothing.
  const domains = new Set<string>();
  const read = judgedLines(path, warnings);
  const found = new Set<RowRef>();
  for await (const line of readLineBytes(path)) {
    const record = read(line);
    if (!record) continue;
    domains.add(record.domain);
    if (query.refs) {
      const named = query.refs.filter((ref) => names(ref, record));
      if (!named.length) continue;
      for (const ref of named) found.add(ref);
    }
    if (query.domain !== undefined && record.domain !== query.domain) continue;
    if (query.failed ? !record.failed : pick && record.failed) continue;
    const view = viewOf(record, line);
    if (!pick) {
      yield view;
      continue;
    }
    if (kept.length === pick.n && !before(view, kept[kept.length - 1]!)) continue;
    let at = kept.length;
    while (at > 0 && before(view, kept[at - 1]!)) at--;
    kept.splice(at, 0, view);
    if (kept.length > pick.n) kept.pop();
  }
  // Said of the file, as score and compare say it, rather than as a selection that matches nothing.
  if (!domains.size) throw fail({ kind: 'judged-file-empty', file: path });
  if (query.domain !== undefined && !domains.has(query.domain)) {
    throw fail({ kind: 'no-rows-of-domain', file: path, domain: query.domain, has: [...domains] });
  }
  yield* kept;
  const missing = (query.refs ?? []).filter((ref) => !found.has(ref));
  if (missing.length) throw fail({ kind: 'rows-not-found', file: path, keys: missing.map((r) => r.text) });
}

/** Whether `ref` names the row: domain, the id's exact text, turn, and the fingerprint's start when given. */
function names(ref: RowRef, record: JudgedRecord): boolean {
  const k = splitKey(record.key);
  return (
    k.domain === ref.domain &&
    k.id === ref.id &&
    k.turn === ref.turn &&
    (ref.fingerprint === undefined || k.fingerprint.startsWith(ref.fingerprint))
  );
}

const SCAN = fieldScan(
  [
    'task',
    'id',
    'total_score',
    ...DIMENSIONS,
    'failed',
    'current_prompt',
    'gen',
    'extracted_output',
    'strengths',
    'weaknesses',
    'error_message',
    'rollout',
  ],
  { turnLists: ['prompt', 'response'] },
);

/**
 * The row as shown, from a line the reader has checked: its fields found in
 * the line's bytes without decoding the histories, or parsed whole when the
 * scan is unsure of the line.
 */
function viewOf(record: JudgedRecord, line: LineBytes): RowView {
  const row = scanFields(line, SCAN)?.fields ?? (JSON.parse(decodeLine(line.bytes)) as Record<string, unknown>);
  const turn = record.turn;
  const at = (v: unknown): string => {
    const item = Array.isArray(v) ? (v[turn - 1] as unknown) : turn === 1 ? v : undefined;
    return typeof item === 'string' ? item : '';
  };
  const { action, prediction, truth } = judgedTexts({
    current_prompt: row.current_prompt,
    prompt: at(row.prompt),
    gen: row.gen,
    extracted_output: row.extracted_output,
    response: at(row.response),
  });
  // The id's own text: a numeric id beyond 2^53 keeps its digits.
  const id = splitKey(record.key).id;
  const grade = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return {
    key: `${record.domain}/${id}/${turn}`,
    fingerprint: splitKey(record.key).fingerprint,
    domain: record.domain,
    task: row.task as string,
    id: typeof row.id === 'number' && !Number.isSafeInteger(row.id) ? id : (row.id as string | number),
    turn_idx: turn,
    total_score: grade(row.total_score),
    grades: Object.fromEntries(DIMENSIONS.map((d) => [d, grade(row[d])])) as Record<Dimension, number>,
    failed: Number(row.failed),
    action,
    prediction,
    groundTruth: truth,
    strengths: texts(row.strengths),
    weaknesses: texts(row.weaknesses),
    ...(typeof row.error_message === 'string' ? { error: row.error_message } : {}),
    ...(Array.isArray(row.rollout) && row.rollout.length ? { rollout: rolloutOf(row.rollout, line) } : {}),
  };
}

/**
 * A free-running row's generated observations beside the real ones of their turns: those are read from
 * the whole line (the scan keeps only the row's own turn), one row at a time.
 */
function rolloutOf(rollout: unknown[], line: LineBytes): NonNullable<RowView['rollout']> {
  const response = (JSON.parse(decodeLine(line.bytes)) as { response?: unknown }).response;
  return rollout.flatMap((x) => {
    const step = x as { turn?: unknown; gen?: unknown };
    if (typeof step.turn !== 'number') return [];
    const real = Array.isArray(response) ? (response[step.turn - 1] as unknown) : undefined;
    const { prediction, truth } = judgedTexts({ gen: step.gen, response: real });
    return [{ turn: step.turn, generated: prediction, real: truth }];
  });
}

function texts(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [];
}

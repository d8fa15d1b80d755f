import { domainOfTask } from '../domains.js';
import { UserError, atLine } from '../errors.js';
import { judgedTexts } from '../rubrics/index.js';
import { decodeLine, readLineBytes, topLevelValues } from '../rows/index.js';
import { DIMENSIONS, judgedScoreSchema, type Dimension } from '../schemas/index.js';
import { countsAsFailed, describeIssue, earlierStageError, gradesOf, kindOfRow } from './judged-reader.js';

/** One judged row as `awb rows` shows it. */
export interface RowView {
  /** `domain/id/turn_idx`: the key the HTML report's links use. */
  key: string;
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
}

export interface RowQuery {
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
 */
export async function* judgedRows(path: string, query: RowQuery, awb: string): AsyncGenerator<RowView> {
  const kept: RowView[] = [];
  const pick = query.pick;
  // Worst first: ascending totals; best first: descending. Equal totals keep file order.
  const before = (a: RowView, b: RowView): boolean =>
    pick?.order === 'best' ? a.total_score > b.total_score : a.total_score < b.total_score;
  let first = true;
  for await (const line of readLineBytes(path)) {
    // Only the first row is asked what it is, as score tells a file of an earlier stage (shown, its rows would all read as failed).
    const view = viewOf(path, line.lineNo, line.bytes, line.terminated, first ? awb : undefined);
    if (!view) continue;
    first = false;
    if (query.domain !== undefined && view.domain !== query.domain) continue;
    const failed = countsAsFailed(
      view.failed,
      DIMENSIONS.map((d) => view.grades[d]),
    );
    if (query.failed ? !failed : pick && failed) continue;
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
  yield* kept;
}

/** `earlierStageFor`: how to start awb, when the row is to be refused as one of an earlier stage's file. */
function viewOf(path: string, lineNo: number, bytes: Buffer, terminated: boolean, earlierStageFor?: string): RowView | undefined {
  const text = decodeLine(bytes);
  if (text.trim() === '') return undefined;
  let row: Record<string, unknown>;
  try {
    row = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    // A last line cut by an interrupted run is left out, as score does.
    if (!terminated) return undefined;
    throw new UserError(atLine(path, lineNo, undefined, `not valid JSON (${(err as Error).message})`));
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    throw new UserError(atLine(path, lineNo, undefined, 'not a JSON object'));
  const kind = kindOfRow(row);
  if (earlierStageFor !== undefined && kind !== 'judged') throw new UserError(earlierStageError(path, kind, earlierStageFor));
  const checked = judgedScoreSchema.safeParse(row);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UserError(atLine(path, lineNo, issue.path.join('.') || undefined, describeIssue(issue)));
  }
  const s = checked.data;
  // Grades score would refuse are refused here too, at their line and field.
  gradesOf(s, Array.isArray(row.judge_repeats), (field, problem) => {
    throw new UserError(atLine(path, lineNo, field, problem));
  });
  const turn = s.turn_idx;
  const idSlice = topLevelValues(bytes, new Set(['id']))?.get('id');
  // A numeric id beyond 2^53 is kept in its own digits.
  const idText = idSlice && typeof s.id === 'number' ? bytes.toString('utf8', idSlice[0], idSlice[1]) : String(s.id);
  const domain = domainOfTask(s.task);
  const at = (field: string): string => {
    const v = row[field];
    const item = typeof v === 'string' ? (turn === 1 ? v : undefined) : Array.isArray(v) ? v[turn - 1] : undefined;
    return typeof item === 'string' ? item : '';
  };
  const { action, prediction, truth } = judgedTexts({
    current_prompt: row.current_prompt,
    prompt: at('prompt'),
    gen: row.gen,
    extracted_output: row.extracted_output,
    response: at('response'),
  });
  return {
    key: `${domain}/${idText}/${turn}`,
    domain,
    task: s.task,
    id: typeof s.id === 'number' && !Number.isSafeInteger(s.id) ? idText : s.id,
    turn_idx: turn,
    total_score: s.total_score,
    grades: Object.fromEntries(DIMENSIONS.map((d) => [d, s[d]])) as Record<Dimension, number>,
    failed: s.failed,
    action,
    prediction,
    groundTruth: truth,
    strengths: texts(row.strengths),
    weaknesses: texts(row.weaknesses),
    ...(typeof row.error_message === 'string' ? { error: row.error_message } : {}),
  };
}

function texts(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [];
}

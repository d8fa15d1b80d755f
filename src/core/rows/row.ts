import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-limits.js';
import { isUtf8 } from 'node:buffer';
import type { z } from 'zod';
import { atLine } from '../errors.js';
import { turnProblem, type DatasetRow } from '../schemas/index.js';
import { decodeLine } from './jsonl.js';
import { topLevelMembers } from './members.js';
import { rowKey } from './row-key.js';
import type { BadRow } from './faults.js';

export type { BadRow } from './faults.js';

/** Where a line is: its file and 1-based line number, and whether it ended with a newline. */
interface LineAt {
  file: string;
  lineNo: number;
  terminated: boolean;
}

export interface Row<T> {
  /** The row as JSON.parse reads it (the last of repeated keys wins, as in the official reader), checked by the schema. */
  row: T;
  /** Everything JSON.parse gave, before the schema: for fields the schema does not name. */
  parsed: Record<string, unknown>;
  /** The identity of the row's turn (see rowKey). */
  key: string;
}

export type ReadRow<T> = ({ ok: true } & Row<T>) | { ok: false; bad: BadRow };

/** Turns a zod failure into the one-line `file:line: field: problem` every input error uses. */
function zodProblem(at: LineAt, error: z.ZodError, parsed: unknown): string {
  let issue = error.issues[0]!;
  const path = [...issue.path];
  // A union says only "Invalid input"; a branch that got inside the value (a list with one bad item) says what is wrong.
  while (issue.code === 'invalid_union') {
    const inner = issue.errors.flat().find((e) => e.path.length > 0);
    if (!inner) break;
    path.push(...inner.path);
    issue = inner;
  }
  const field = path.length ? path.join('.') : undefined;
  // zod 4 leaves `input` out of its issues, so whether the field is there is read from the row itself.
  const value = path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    parsed,
  );
  let problem = issue.message;
  if (value === undefined) problem = 'is missing';
  else if (issue.code === 'invalid_union')
    problem = `${issue.message}: received ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`;
  return atLine(at.file, at.lineNo, field, problem);
}

/**
 * Reads and checks one line of a rows file: JSON.parse, the schema, the turn
 * index. A bad line comes back as a `file:line: field: problem` report.
 */
export function readRow<S extends z.ZodType<DatasetRow>>(bytes: Buffer, schema: S, at: LineAt): ReadRow<z.infer<S>> {
  const bad = (field: string | undefined, problem: string) => ({
    ok: false as const,
    bad: { file: at.file, lineNo: at.lineNo, message: atLine(at.file, at.lineNo, field, problem) },
  });
  const text = decodeLine(bytes);
  // Values that deep would throw later, where the row is written out again (JSON.stringify recurses).
  if (nestsDeeperThan(text)) return bad(undefined, `nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const cut = at.terminated ? '' : ' (the last line has no newline: the file may have been cut short)';
    return bad(undefined, `not valid JSON${cut}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad(undefined, 'is not a JSON object');
  // Decoding replaced the bad bytes with U+FFFD: sending that to a model (and copying the bytes into the output) would pass off damaged text as the row's.
  if (!isUtf8(bytes)) return bad(badUtf8Field(bytes), 'is not valid UTF-8 (the file is damaged or in another encoding)');
  const result = schema.safeParse(parsed);
  if (!result.success) return { ok: false, bad: { file: at.file, lineNo: at.lineNo, message: zodProblem(at, result.error, parsed) } };
  const row = result.data as z.infer<S>;
  const turn = turnProblem(row);
  if (turn) return bad(turn.field, turn.problem);
  return { ok: true, row, parsed: parsed as Record<string, unknown>, key: rowKey(text, row) };
}

/** The top-level field whose value holds the bytes that are not UTF-8 (undefined when they sit between fields). */
function badUtf8Field(bytes: Buffer): string | undefined {
  return topLevelMembers(bytes)?.find((m) => !isUtf8(bytes.subarray(m.member[0], m.member[1])))?.key;
}

/** The action being evaluated: `current_prompt`, or the prompt list's entry when a hand-made row leaves it empty. */
export function currentAction(row: DatasetRow): string {
  return row.current_prompt || (row.prompt[row.turn_idx - 1] ?? '');
}

/** The real observation after the action: what the world model is graded against. */
export function groundTruth(row: DatasetRow): string {
  return row.response[row.turn_idx - 1] ?? '';
}

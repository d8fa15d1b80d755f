import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import { atLine, UserError } from './errors.js';
import { domainOfTask } from './domains.js';
import { readLines } from './jsonl.js';
import { rowKey } from './row-key.js';
import { turnProblem, type DatasetRow } from './schemas/dataset-row.js';
import { assignShards, type Shard } from './shard.js';

export interface InputFile {
  path: string;
}

export interface InputRow<T extends DatasetRow> {
  key: string;
  domain: string;
  /** The line's exact text: outputs are built from it so every field survives byte for byte. */
  raw: string;
  row: T;
  parsed: Record<string, unknown>;
  file: string;
  lineNo: number;
}

export interface BadRow {
  file: string;
  lineNo: number;
  message: string;
}

export type BadRowMode = 'stop' | 'skip';

/** The data folder's `{domain}_test.jsonl` files, in leaderboard-independent name order. */
export async function datasetFiles(dir: string, domains?: string[]): Promise<{ domain: string; path: string }[]> {
  let names: string[];
  try {
    const st = await stat(dir);
    if (!st.isDirectory()) throw new UserError(`${dir}: is a file; --data takes the folder holding {domain}_test.jsonl files`);
    names = await readdir(dir);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`${dir}: no such data folder`);
  }
  const found = names
    .filter((n) => n.endsWith('_test.jsonl'))
    .sort()
    .map((n) => ({ domain: n.slice(0, -'_test.jsonl'.length), path: join(dir, n) }));
  if (!found.length) throw new UserError(`${dir}: holds no *_test.jsonl files (expected the official layout, e.g. mcp_test.jsonl)`);
  if (!domains) return found;
  const missing = domains.filter((d) => !found.some((f) => f.domain === d));
  if (missing.length) {
    throw new UserError(`${dir}: no data for domain(s) ${missing.join(', ')}; it has ${found.map((f) => f.domain).join(', ')}`);
  }
  return found.filter((f) => domains.includes(f.domain));
}

/** Turns a zod failure into the one-line `file:line: field: problem` every input error uses. */
function zodProblem(file: string, lineNo: number, error: z.ZodError, parsed: unknown): string {
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
  const value = path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), parsed);
  let problem = issue.message;
  if (value === undefined) problem = 'is missing';
  else if (issue.code === 'invalid_union') problem = `${issue.message}: received ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`;
  return atLine(file, lineNo, field, problem);
}

/**
 * Parses and checks every line of the inputs, yielding good rows and
 * reporting bad ones. A cut last line (no newline, not JSON) is a crash
 * leftover and is reported like any bad row.
 */
export async function* readRows<S extends z.ZodType<DatasetRow>>(
  files: string[],
  schema: S,
  onBad: (bad: BadRow) => void,
): AsyncGenerator<InputRow<z.infer<S>>> {
  for (const file of files) {
    for await (const line of readLines(file)) {
      if (!line.text.trim()) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line.text);
      } catch (err) {
        const cut = line.terminated ? '' : ' (the last line has no newline: the file may have been cut short)';
        onBad({ file, lineNo: line.lineNo, message: atLine(file, line.lineNo, undefined, `not valid JSON${cut}: ${(err as Error).message}`) });
        continue;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        onBad({ file, lineNo: line.lineNo, message: atLine(file, line.lineNo, undefined, 'is not a JSON object') });
        continue;
      }
      const result = schema.safeParse(parsed);
      if (!result.success) {
        onBad({ file, lineNo: line.lineNo, message: zodProblem(file, line.lineNo, result.error, parsed) });
        continue;
      }
      const row = result.data as z.infer<S>;
      const turn = turnProblem(row);
      if (turn) {
        onBad({ file, lineNo: line.lineNo, message: atLine(file, line.lineNo, turn.field, turn.problem) });
        continue;
      }
      yield {
        key: rowKey(line.text, row),
        domain: domainOfTask(row.task),
        raw: line.text,
        row,
        parsed: parsed as Record<string, unknown>,
        file,
        lineNo: line.lineNo,
      };
    }
  }
}

export interface SelectOptions {
  domains?: string[];
  /** At most this many rows per domain, first in file order. */
  limit?: number;
  shard?: Shard;
  onBadRow: BadRowMode;
}

export interface Plan {
  /** Keys of the rows this run covers. */
  keys: Set<string>;
  /** Domains selected before sharding: what all shards of one run have in common. */
  selectedDomains: string[];
  perDomain: Map<string, number>;
  badRows: BadRow[];
  /** Rows of the input before --domains/--limit/--shard. */
  inputRows: number;
}

/**
 * First pass over the inputs: checks every row before any request is sent
 * (so a bad line stops the run while nothing has been spent) and decides
 * which rows this run covers. Holds only keys and sizes, never rows.
 */
export async function planRows<S extends z.ZodType<DatasetRow>>(files: string[], schema: S, opts: SelectOptions): Promise<Plan> {
  const badRows: BadRow[] = [];
  const perDomainSeen = new Map<string, number>();
  const firstLine = new Map<string, string>();
  const picked: { key: string; weight: number }[] = [];
  let inputRows = 0;
  for await (const r of readRows(files, schema, (bad) => {
    if (opts.onBadRow === 'stop') throw new UserError(bad.message);
    badRows.push(bad);
  })) {
    inputRows++;
    const where = `${r.file}:${r.lineNo}`;
    const seenAt = firstLine.get(r.key);
    if (seenAt) {
      const bad = { file: r.file, lineNo: r.lineNo, message: `${where}: the same row (same task, id, turn and content) as ${seenAt}` };
      if (opts.onBadRow === 'stop') throw new UserError(bad.message);
      badRows.push(bad);
      continue;
    }
    firstLine.set(r.key, where);
    if (opts.domains && !opts.domains.includes(r.domain)) continue;
    const n = perDomainSeen.get(r.domain) ?? 0;
    if (opts.limit !== undefined && n >= opts.limit) continue;
    perDomainSeen.set(r.domain, n + 1);
    picked.push({ key: r.key, weight: rowWeight(r.row) });
  }
  if (opts.domains) {
    const missing = opts.domains.filter((d) => !perDomainSeen.has(d));
    if (missing.length) {
      throw new UserError(`no rows for domain(s) ${missing.join(', ')} in ${files.join(', ')}; it has ${[...new Set(firstLineDomains(firstLine))].join(', ') || 'none'}`);
    }
  }
  const chosen = opts.shard ? assignShards(picked, opts.shard.count)[opts.shard.index - 1]! : picked.map((p) => p.key);
  const keys = new Set(chosen);
  const perDomain = new Map<string, number>();
  for (const k of keys) {
    const d = k.slice(0, k.indexOf(':'));
    perDomain.set(d, (perDomain.get(d) ?? 0) + 1);
  }
  return { keys, selectedDomains: [...perDomainSeen.keys()], perDomain, badRows, inputRows };
}

function firstLineDomains(firstLine: Map<string, string>): string[] {
  return [...firstLine.keys()].map((k) => k.slice(0, k.indexOf(':')));
}

/**
 * The size a row costs to process, from its content only, so a row weighs
 * the same in the dataset and in predictions and shards agree across stages.
 */
export function rowWeight(row: DatasetRow): number {
  let w = (row.system_str ?? '').length + (row.current_prompt ?? '').length;
  for (const p of row.prompt) w += p.length;
  for (const r of row.response) w += r.length;
  return w;
}

export function absolute(path: string): string {
  return resolve(path);
}

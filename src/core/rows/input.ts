import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { atLine, UserError } from '../errors.js';
import { domainOfTask } from '../domains.js';
import { firstTopLevelValue } from './json-scan.js';
import { readLineBytes } from './jsonl.js';
import { turnProblem, type DatasetRow } from '../schemas/index.js';
import { assignShards, type Shard } from './shard.js';

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
  const value = path.reduce<unknown>(
    (v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined),
    parsed,
  );
  let problem = issue.message;
  if (value === undefined) problem = 'is missing';
  else if (issue.code === 'invalid_union')
    problem = `${issue.message}: received ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value}`;
  return atLine(file, lineNo, field, problem);
}

export type ParsedLine<T> = { ok: true; row: T; parsed: Record<string, unknown> } | { ok: false; bad: BadRow };

/** Parses and checks one input line; a bad one comes back as a `file:line: field: problem` report. */
export function parseRow<S extends z.ZodType<DatasetRow>>(
  text: string,
  schema: S,
  file: string,
  lineNo: number,
  terminated = true,
): ParsedLine<z.infer<S>> {
  const bad = (field: string | undefined, problem: string) => ({
    ok: false as const,
    bad: { file, lineNo, message: atLine(file, lineNo, field, problem) },
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const cut = terminated ? '' : ' (the last line has no newline: the file may have been cut short)';
    return bad(undefined, `not valid JSON${cut}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad(undefined, 'is not a JSON object');
  const result = schema.safeParse(parsed);
  if (!result.success) return { ok: false, bad: { file, lineNo, message: zodProblem(file, lineNo, result.error, parsed) } };
  const row = result.data as z.infer<S>;
  const turn = turnProblem(row);
  if (turn) return bad(turn.field, turn.problem);
  return { ok: true, row, parsed: parsed as Record<string, unknown> };
}

export interface SelectOptions {
  domains?: string[];
  /** At most this many rows per domain, first in file order. */
  limit?: number;
  shard?: Shard;
}

export interface Plan {
  /** The lines this run covers, as `lineId(file, line)`; undefined when it covers every line. */
  lines?: Set<string>;
  /** Domains selected before sharding: what all shards of one run have in common. */
  selectedDomains: string[];
  perDomain: Map<string, number>;
  total: number;
}

export function lineId(fileIndex: number, lineNo: number): string {
  return `${fileIndex}:${lineNo}`;
}

/**
 * The domain of a row read straight from its bytes: the top-level `task`
 * value, found without decoding or parsing the (possibly multi-MB) rest. A
 * `task` key inside a nested object does not count. undefined when the line
 * has none that can be read this way.
 */
export function domainOfBytes(bytes: Buffer): string | undefined {
  const at = firstTopLevelValue(bytes, 'task');
  if (!at || bytes[at[0]] !== 0x22) return undefined;
  try {
    return domainOfTask(JSON.parse(bytes.toString('utf8', at[0], at[1])) as string);
  } catch {
    return undefined;
  }
}

/**
 * Decides which rows a run covers, reading bytes only: the domain of each
 * line and its size. Nothing is decoded or parsed, so the first request goes
 * out after a fast scan instead of a full parse of the data; rows are
 * checked as they are sent. Shards balance the lines' byte sizes, with ties
 * broken by position: every machine reading the same files gets the same split.
 */
export async function planLines(files: string[], opts: SelectOptions): Promise<Plan> {
  const filtered = opts.domains !== undefined || opts.limit !== undefined || opts.shard !== undefined;
  const perDomainSeen = new Map<string, number>();
  const picked: { key: string; weight: number; domain: string }[] = [];
  for (let f = 0; f < files.length; f++) {
    for await (const line of readLineBytes(files[f]!)) {
      if (isBlank(line.bytes)) continue;
      // A line whose domain cannot be read this way is left to the full check when it is sent.
      const domain = domainOfBytes(line.bytes) ?? '?';
      if (opts.domains && domain !== '?' && !opts.domains.includes(domain)) continue;
      const n = perDomainSeen.get(domain) ?? 0;
      if (opts.limit !== undefined && n >= opts.limit) continue;
      perDomainSeen.set(domain, n + 1);
      picked.push({ key: lineId(f, line.lineNo), weight: line.bytes.length, domain });
    }
  }
  if (opts.domains) {
    const missing = opts.domains.filter((d) => !perDomainSeen.has(d));
    if (missing.length) throw new UserError(`no rows for domain(s) ${missing.join(', ')} in ${files.join(', ')}`);
  }
  let chosen = picked;
  if (opts.shard) {
    const inShard = new Set(assignShards(picked, opts.shard.count)[opts.shard.index - 1]);
    chosen = picked.filter((p) => inShard.has(p.key));
  }
  const perDomain = new Map<string, number>();
  for (const p of chosen) perDomain.set(p.domain, (perDomain.get(p.domain) ?? 0) + 1);
  return {
    ...(filtered ? { lines: new Set(chosen.map((p) => p.key)) } : {}),
    selectedDomains: [...perDomainSeen.keys()].filter((d) => d !== '?'),
    perDomain,
    total: chosen.length,
  };
}

export function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

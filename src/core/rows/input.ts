import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FaultError, fail } from '../errors.js';
import { datasetRowSchema } from '../schemas/index.js';
import { domainName, domainOfTask } from '../domains.js';
import { updateText } from '../text-parts.js';
import { arrayElement } from './json-scan.js';
import { topLevelMembers } from './members.js';
import { readLineBytes } from './jsonl.js';
import { idText, turnKey } from './row-key.js';
import { assignShards, type Shard } from './shard.js';

export type BadRowMode = 'stop' | 'skip';

/** The data folder's `{domain}_test.jsonl` files, in leaderboard-independent name order. */
export async function datasetFiles(dir: string, domains?: string[]): Promise<{ domain: string; path: string }[]> {
  let names: string[];
  try {
    const st = await stat(dir);
    if (!st.isDirectory()) throw fail({ kind: 'data-folder-is-file', dir });
    names = await readdir(dir);
  } catch (err) {
    if (err instanceof FaultError) throw err;
    throw fail({ kind: 'no-data-folder', dir });
  }
  const found = names
    .filter((n) => n.endsWith('_test.jsonl'))
    .sort()
    .map((n) => ({ domain: domainName(n.slice(0, -'_test.jsonl'.length)), path: join(dir, n) }));
  if (!found.length) throw fail({ kind: 'no-test-files', dir });
  if (!domains) return found;
  const missing = domains.filter((d) => !found.some((f) => f.domain === d));
  if (missing.length) throw fail({ kind: 'data-lacks-domains', dir, missing, found: found.map((f) => f.domain) });
  return found.filter((f) => domains.includes(f.domain));
}

export interface SelectOptions {
  domains?: string[];
  /** At most this many rows per domain, first in file order. */
  limit?: number;
  shard?: Shard;
}

/** A line a run covers: where it is (to read it again when its turn comes) and its domain from the planning scan. */
export interface PlannedLine {
  /** Index into the plan's files. */
  file: number;
  lineNo: number;
  /** Byte offset of the line, and its length without the newline. */
  start: number;
  length: number;
  terminated: boolean;
  /** '?' when the line's task could not be read (the full check reports it when the row is read). */
  domain: string;
  /** The trajectory and turn, for the scheduler: the id as rowKey reads it ('' when unreadable) and turn_idx (0 when unreadable). */
  id: string;
  turn: number;
  /** A fingerprint of the history's head (system_str and prompt[0]): rows of one trajectory share it. */
  prefix?: string;
}

export interface LinePlan {
  files: string[];
  /** The lines this run covers, in file order. */
  lines: PlannedLine[];
  /** Domains selected before sharding: what all shards of one run have in common. */
  selectedDomains: string[];
  perDomain: Map<string, number>;
}

export function lineId(fileIndex: number, lineNo: number): string {
  return `${fileIndex}:${lineNo}`;
}

/** What the planning scan reads of a line: enough to place it in a shard and in the schedule. */
interface LineFacts {
  domain: string | undefined;
  id: string;
  turn: number;
  prefix?: string;
}

/**
 * A line's top-level values as JSON.parse reads them (the last of repeated
 * keys, escaped spellings decoded, nested objects skipped), each decoded on
 * its own, so the (possibly multi-MB) texts not asked for are never parsed.
 * undefined when the walk cannot read the line as an object.
 */
function lineValues(bytes: Buffer) {
  const members = topLevelMembers(bytes);
  if (!members) return undefined;
  const last = (key: string) => members.findLast((x) => x.key === key)?.value;
  const at = (v: [number, number] | undefined): unknown => {
    try {
      return v && JSON.parse(bytes.toString('utf8', v[0], v[1]));
    } catch {
      return undefined;
    }
  };
  return {
    last,
    at,
    value: (key: string) => at(last(key)),
    /** Element `index` of a turn list (a bare string is a list of one), as JSON.parse reads it. */
    element: (slice: [number, number], index: number): unknown => {
      if (bytes[slice[0]] !== 0x5b) return index === 0 ? at(slice) : undefined;
      const element = arrayElement(bytes, slice, index);
      return element && at(element);
    },
    /** A value's JSON text as written in the line. */
    text: (key: string) => {
      const slice = last(key);
      return slice && bytes.toString('utf8', slice[0], slice[1]);
    },
  };
}

/**
 * The facts of a row (see lineValues); by JSON.parse itself when the walk
 * cannot read the line. The domain is undefined for a line that is not an
 * object with a string task.
 */
function lineFacts(bytes: Buffer): LineFacts {
  const values = lineValues(bytes);
  if (!values) {
    let row: Record<string, unknown> | undefined;
    try {
      const v: unknown = JSON.parse(bytes.toString('utf8'));
      row = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      row = undefined;
    }
    return {
      domain: typeof row?.task === 'string' ? domainOfTask(row.task) : undefined,
      id: row?.id === undefined ? '' : idText(row.id, () => JSON.stringify(row.id)),
      turn: typeof row?.turn_idx === 'number' ? row.turn_idx : 0,
    };
  }
  const task = values.value('task');
  const turn = values.value('turn_idx');
  /*
   * The history's head as JSON.parse reads it (decoding only these two
   * texts, not the row): lines of one trajectory spelled differently, say
   * some rewritten by a tool that escapes non-ASCII, are still one chain.
   */
  const hash = createHash('sha1');
  const textAt = (slice: [number, number], v: unknown) => (typeof v === 'string' ? v : bytes.toString('utf8', slice[0], slice[1]));
  const system = values.last('system_str');
  if (system) updateText(hash, textAt(system, values.at(system)));
  hash.update('\0');
  const prompt = values.last('prompt');
  const head = prompt && (bytes[prompt[0]] === 0x5b ? arrayElement(bytes, prompt, 0) : prompt);
  if (head) updateText(hash, textAt(head, values.at(head)));
  return {
    domain: typeof task === 'string' ? domainOfTask(task) : undefined,
    id: values.last('id') ? idText(values.value('id'), () => values.text('id')) : '',
    turn: typeof turn === 'number' ? turn : 0,
    prefix: hash.digest('base64').slice(0, 12),
  };
}

/** The fields of a key that the row's schema checks alone, as readRow would (the lists are read one element each). */
const keyFields = datasetRowSchema.pick({ task: true, id: true, turn_idx: true, system_str: true, current_prompt: true });

export interface KeyedLine {
  key: string;
  value: (field: string) => unknown;
}

/**
 * The key readRow gives the line (rowKey), read from the few values it is
 * made of without parsing the rest: a resume matches the rows it has planned
 * with the rows already finished without parsing every line. undefined when
 * those values are not all there with their types: such a line is read whole,
 * and checked, like any other.
 */
export function lineKey(bytes: Buffer): KeyedLine | undefined {
  const values = lineValues(bytes);
  if (!values) return undefined;
  const fields = keyFields.safeParse(Object.fromEntries(Object.keys(keyFields.shape).map((k) => [k, values.value(k)])));
  const prompt = values.last('prompt');
  const response = values.last('response');
  if (!fields.success || !prompt || !response) return undefined;
  const { task, id, turn_idx: turn, system_str: system = '', current_prompt: current } = fields.data;
  const action = current || (values.element(prompt, turn - 1) ?? '');
  const truth = values.element(response, turn - 1) ?? '';
  if (typeof action !== 'string' || typeof truth !== 'string') return undefined;
  return {
    key: turnKey(
      task,
      idText(id, () => values.text('id')),
      turn,
      system,
      action,
      truth,
    ),
    value: values.value,
  };
}

/** The domain of a row (see lineFacts), or undefined for a line that is not an object with a string task. */
export function domainOfLine(bytes: Buffer): string | undefined {
  return lineFacts(bytes).domain;
}

/**
 * Decides which lines a run covers, from a scan that reads each line's domain
 * and size: the first request goes out after this scan instead of after a
 * full parse of the data; rows are parsed and checked when they are sent.
 * Shards balance the lines' byte sizes, with ties broken by position: every
 * machine reading the same files gets the same split.
 */
export async function planLines(files: string[], opts: SelectOptions): Promise<LinePlan> {
  const perDomainSeen = new Map<string, number>();
  const picked: PlannedLine[] = [];
  for (let f = 0; f < files.length; f++) {
    for await (const line of readLineBytes(files[f]!)) {
      if (isBlank(line.bytes)) continue;
      const facts = lineFacts(line.bytes);
      const domain = facts.domain ?? '?';
      if (opts.domains && domain !== '?' && !opts.domains.includes(domain)) continue;
      const n = perDomainSeen.get(domain) ?? 0;
      if (opts.limit !== undefined && n >= opts.limit) continue;
      perDomainSeen.set(domain, n + 1);
      const length = line.end - line.start - (line.terminated ? 1 : 0);
      const { id, turn, prefix } = facts;
      picked.push({ file: f, lineNo: line.lineNo, start: line.start, length, terminated: line.terminated, domain, id, turn, prefix });
    }
  }
  if (opts.domains) {
    const missing = opts.domains.filter((d) => !perDomainSeen.has(d));
    if (missing.length) throw fail({ kind: 'no-rows-for-domains', missing, files });
  }
  let lines = picked;
  if (opts.shard) {
    const weighted = picked.map((p) => ({ key: lineId(p.file, p.lineNo), weight: p.length }));
    const inShard = new Set(assignShards(weighted, opts.shard.count)[opts.shard.index - 1]);
    lines = picked.filter((p) => inShard.has(lineId(p.file, p.lineNo)));
  }
  const perDomain = new Map<string, number>();
  for (const p of lines) perDomain.set(p.domain, (perDomain.get(p.domain) ?? 0) + 1);
  return { files, lines, selectedDomains: [...perDomainSeen.keys()].filter((d) => d !== '?'), perDomain };
}

export function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

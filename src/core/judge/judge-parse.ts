import { DIMENSIONS, type Dimension } from '../schemas/index.js';
import { lastBlock, stripThink } from '../rubrics/index.js';
import { nestsDeeperThan } from '../json-limits.js';

/**
 * Reads a judge reply the way the official AgentWorldBench script does, so
 * that scores agree with it on every reply a real judge plausibly writes.
 * Where the official result is an accident of its implementation, the
 * choice made here is noted next to the rule.
 */

export type JudgeParse =
  | { ok: true; scores: Record<Dimension, number>; total: number; strengths: unknown[]; weaknesses: unknown[] }
  /** `final`: the judge did answer, so asking again would replace its answer rather than repair a garbled one. */
  | { ok: false; reason: string; final?: true };

type JsonObject = Record<string, unknown>;

const EVALUATION_TAG = 'final_evaluation';

export function parseJudgeReply(reply: string): JudgeParse {
  const trimmed = reply.trim();
  if (!trimmed) return fail('empty reply');
  const candidate = findCandidate(evaluationText(trimmed));
  if (candidate === undefined) return fail('no JSON object');
  const parsed = parseCandidate(candidate);
  if (!parsed) return fail('JSON could not be repaired');
  if (!Object.hasOwn(parsed, 'scores')) return fail('scores missing');
  if (!isObject(parsed.scores)) return fail('scores is not an object');
  return judgement(parsed.scores, parsed);
}

/** The last evaluation block; an empty or absent one means the judge skipped the tags, so the whole reply counts. */
function evaluationText(reply: string): string {
  const cleaned = stripThink(reply, EVALUATION_TAG).trim();
  const block = lastBlock(cleaned, EVALUATION_TAG)?.trim();
  return block || cleaned;
}

/**
 * The text of the JSON object to read. Each kind of candidate is tried in
 * turn and the first kind with any hit decides, even if that hit later fails
 * to parse: a fenced block is what the judge meant as its answer, and a
 * block mentioning "scores" beats a stray example object.
 */
function findCandidate(text: string): string | undefined {
  return preferScores(fencedObjects(text)) ?? preferScores(balancedObjects(text)) ?? backwardObject(text);
}

function preferScores(blocks: string[]): string | undefined {
  return blocks.findLast((b) => b.includes('"scores"')) ?? blocks.at(-1);
}

/**
 * Contents of ```json and bare ``` fences that hold an object and nothing
 * else; other fences are code, not answers. The official script spells the
 * language in lower case only: in ```JSON the word is read as content, so the
 * block is skipped like code, and so is a block with text after its object.
 */
function fencedObjects(text: string): string[] {
  return [...text.matchAll(/```(?:json)?([\s\S]*?)```/g)]
    .map((m) => (m[1] ?? '').trim())
    .filter((b) => b.startsWith('{') && b.endsWith('}'));
}

/**
 * Top-level objects in reading order, matched by braces outside
 * double-quoted strings; a `{` that never closes is skipped and the search
 * goes on from the next `{`. A scan started at any `{` it passes outside a
 * string would follow the same path from there, so one scan records all
 * those matches: a judge looping on `{"a": {` costs a few passes, not one
 * per brace.
 */
function balancedObjects(text: string): string[] {
  const closeOf = new Map<number, number>();
  const found: string[] = [];
  // Characters the scans may read in all. A scan starts anew only at a `{` that earlier scans read inside a
  // string, within an object that never closes: real replies need two passes at most, and a reply built to need
  // a pass per brace is read as far as this allows (linear in its length), then left with what was found.
  const budget = { left: SCAN_PASSES * text.length };
  let start = text.indexOf('{');
  while (start !== -1) {
    if (!closeOf.has(start)) {
      if (budget.left <= 0) break;
      recordMatches(text, start, closeOf, budget);
    }
    const end = closeOf.get(start) ?? -1;
    if (end !== -1) found.push(text.slice(start, end + 1));
    start = text.indexOf('{', end === -1 ? start + 1 : end + 1);
  }
  return found;
}

/** How many passes over a reply balancedObjects's scans may make in all. */
const SCAN_PASSES = 8;

/** Maps each `{` met outside a string, scanning from `start` to the end, to its `}` (-1 when it never closes). */
function recordMatches(text: string, start: number, closeOf: Map<number, number>, budget: { left: number }): void {
  budget.left -= text.length - start;
  const open: number[] = [];
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') open.push(i);
    else if (c === '}') {
      const o = open.pop();
      if (o !== undefined) closeOf.set(o, i);
    }
  }
  for (const o of open) closeOf.set(o, -1);
}

/**
 * Only reached when every forward match ran into an unterminated string, so
 * quotes are ignored here: counting braces back from the last `}` still
 * finds the object the judge meant, for the repairs to try.
 */
function backwardObject(text: string): string | undefined {
  const end = text.lastIndexOf('}');
  let depth = 0;
  for (let i = end; i >= 0; i--) {
    if (text[i] === '}') depth++;
    else if (text[i] === '{' && --depth === 0) return text.slice(i, end + 1);
  }
  return undefined;
}

/**
 * Parses the candidate, repairing the slips judges make. When the object as
 * a whole stays broken (usually free text in strengths or weaknesses), the
 * scores object alone is still worth reading.
 */
function parseCandidate(candidate: string): JsonObject | undefined {
  const direct = parseObject(candidate);
  if (direct) return direct;
  const repaired = repairJson(candidate);
  const fixed = parseObject(repaired);
  if (fixed) return fixed;
  // Up to the first `}`, as the official last resort reads it; `{}` is not taken, so such a reply is asked again.
  const scoresText = scoresObjectText(repaired);
  const scores = scoresText === undefined ? undefined : parseObject(scoresText);
  return scores && { scores };
}

/**
 * The first `"scores": {…}` up to the first `}` after its `{`, with something between them (the official
 * last resort's pattern), found in one pass: that pattern tried at each of many unclosed
 * `"scores": {` would read the rest of the text from each.
 */
function scoresObjectText(text: string): string | undefined {
  let close = -1;
  for (const m of text.matchAll(/"scores"\s*:\s*\{/g)) {
    const open = m.index + m[0].length - 1;
    if (close <= open) close = text.indexOf('}', open + 1);
    if (close === -1) return undefined;
    if (close > open + 1) return text.slice(open, close + 1);
  }
  return undefined;
}

function repairJson(text: string): string {
  return text
    .replace(/,\s*([}\]])/g, '$1')
    .replace(/'(\w+)'\s*:/g, '"$1":')
    .replace(/([{,]\s*)([A-Za-z_]\w*)\s*:/g, '$1"$2":');
}

/**
 * JSON.parse keeps the last of duplicate keys, as the official script does.
 * NaN and Infinity are not JSON, so a score written that way fails the
 * reply (and the judge is asked again), as the official parse also fails.
 */
function parseObject(text: string): JsonObject | undefined {
  // Nesting no judge writes would make the row's line (JSON.stringify) throw: such a reply does not parse.
  if (nestsDeeperThan(text)) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A reply whose five dimensions are all invalid says nothing about the
 * prediction; the official script stores it as a success but then leaves it
 * out of every average, so it is reported as a failure here. A final one: the
 * official script does not ask again, and a second reply counted in its place
 * would give numbers the official script never gives.
 */
function judgement(raw: JsonObject, parsed: JsonObject): JudgeParse {
  const scores = Object.fromEntries(DIMENSIONS.map((d) => [d, readScore(raw[d])])) as Record<Dimension, number>;
  const valid = DIMENSIONS.map((d) => scores[d]).filter((v) => v > 0);
  if (valid.length === 0) return { ok: false, reason: 'no valid dimension', final: true };
  const total = valid.reduce((a, b) => a + b, 0) / valid.length;
  return { ok: true, scores, total, strengths: asList(parsed.strengths), weaknesses: asList(parsed.weaknesses) };
}

/**
 * One dimension on the 1..5 scale, 0 meaning invalid. Decisions where the
 * official result is accidental:
 * - zero, negative and non-finite values are 0 (the official keeps
 *   negatives, which then drag dimension averages below 1);
 * - booleans are 0 (the official counts `true` as 1 because Python's bool is
 *   an int), as are null, arrays and objects;
 * - strings follow `stringScore`.
 */
function readScore(value: unknown): number {
  if (typeof value === 'number') return clamp(Number.isInteger(value) ? value : roundHalfEven(value));
  if (typeof value === 'string') return clamp(stringScore(value));
  return 0;
}

function clamp(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.min(n, 5) : 0;
}

/** Python's round(): exact ties go to the even neighbour (4.5 → 4, 3.5 → 4). */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff !== 0.5) return diff < 0.5 ? floor : floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/*
 * The whitespace Python's int() ignores around the digits (measured on
 * CPython 3.11: str.isspace without \x1c-\x1f). It differs from
 * JavaScript's trim(): NEL (\x85) is in it, the BOM is not.
 */
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*';
const INT_TEXT = new RegExp(`^${PY_SPACE}([+-]?)([0-9０-９]+)${PY_SPACE}$`);

/**
 * A score written as a string, read as the official script reads it: the
 * text before the first `/` through Python's int(). So "4", " 3 ", "4/5"
 * and " 3 / 5 " read as 4, 3, 4 and 3 (the denominator is ignored: "7/5"
 * is clamped like 7), and "4.5", "four", "4 out of 5" and "" as 0.
 * Where int() is accidental: full-width digits are read (judges writing CJK
 * text emit them, and int() reads them too); a sign is read, so "-3" ends
 * up 0 like -3; underscores ("1_0", which int() reads as 10) are not a
 * grade a judge means, so they give 0; other scripts' digits give 0.
 */
function stringScore(value: string): number {
  const slash = value.indexOf('/');
  const m = INT_TEXT.exec(slash === -1 ? value : value.slice(0, slash));
  if (!m) return 0;
  const digits = m[2]!.replace(/[０-９]/g, (d) => String(d.charCodeAt(0) - 0xff10));
  return Number(digits) * (m[1] === '-' ? -1 : 1);
}

function asList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(reason: string): JudgeParse {
  return { ok: false, reason };
}

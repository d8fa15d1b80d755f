import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/*
 * Output rows are the input line's own text with new fields appended, so
 * every input field survives byte for byte: ids beyond 2^53 (which
 * JSON.parse rounds), raw U+2028/U+2029, number spellings like `1.0`.
 * A line comes back in two parts, the input up to its closing brace and the
 * added fields, so writers never build the whole line as one more copy.
 */

function fieldsText(fields: Record<string, unknown>): string[] {
  return Object.keys(fields)
    .filter((k) => fields[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(fields[k])}`);
}

/**
 * For a line as text; `parsed` is the same line after JSON.parse. Fields in
 * `replaced` that the line already has (the output of an earlier run of the
 * same stage) are taken out first, so no field of the old result survives
 * next to the new one.
 */
export function appendFieldsParts(
  raw: string,
  parsed: Record<string, unknown>,
  fields: Record<string, unknown>,
  replaced: readonly string[],
): [string, string] {
  const added = fieldsText(fields);
  let base = raw.trim();
  const present = replaced.filter((k) => Object.hasOwn(parsed, k));
  if (present.length) base = withoutKeys(base, present);
  if (!added.length) return [base, ''];
  const body = base.slice(0, base.lastIndexOf('}')).trimEnd();
  return [body, `${body.endsWith('{') ? '' : ','}${added.join(',')}}`];
}

/**
 * Removes top-level keys while keeping every other value's exact text.
 * Rare path (re-judging a judged file), so a lossless parse is affordable.
 */
function withoutKeys(raw: string, names: string[]): string {
  const obj = parseLossless(raw) as Record<string, unknown>;
  for (const k of names) delete obj[k];
  return stringifyLossless(obj) ?? raw;
}

/**
 * The id as its exact JSON text when JSON.parse could not keep it exactly
 * (integers beyond 2^53), else the parsed value as a string.
 */
export function exactId(raw: string, id: unknown): string {
  if (typeof id === 'number' && !Number.isSafeInteger(id)) {
    const obj = parseLossless(raw) as Record<string, unknown>;
    return String(obj.id);
  }
  return String(id);
}

const CLOSE = 0x7d;
const OPEN = 0x7b;

/**
 * Where an object line closes, read from its last bytes: `bodyEnd` is where
 * its content ends (whitespace before the closing brace dropped) and `empty`
 * says the object has no fields. Offsets are within `tail`; undefined when
 * `tail` is too short to tell (the caller reads more of the line).
 */
export function objectEnd(tail: Buffer): { bodyEnd: number; empty: boolean } | undefined {
  let close = tail.length - 1;
  while (close >= 0 && tail[close] !== CLOSE) close--;
  let bodyEnd = close;
  while (bodyEnd > 0 && tail[bodyEnd - 1]! <= 0x20) bodyEnd--;
  if (bodyEnd <= 0) return undefined;
  return { bodyEnd, empty: tail[bodyEnd - 1] === OPEN };
}

/** What follows an object's content to add `fields` and close it again. */
export function fieldsTail(empty: boolean, fields: Record<string, unknown>): string {
  const added = fieldsText(fields);
  return added.length ? `${empty ? '' : ','}${added.join(',')}}` : '}';
}

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

/** For a line as text; `parsed` is the same line after JSON.parse, used to see which keys exist already. */
export function appendFieldsParts(raw: string, parsed: Record<string, unknown>, fields: Record<string, unknown>): [string, string] {
  const added = fieldsText(fields);
  let base = raw.trim();
  const names = Object.keys(fields).filter((k) => fields[k] !== undefined);
  if (names.some((k) => Object.hasOwn(parsed, k))) base = withoutKeys(base, names);
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

/** For a line still in bytes (re-read from the input), which is then never decoded. */
export function appendFieldsToBytes(line: Buffer, fields: Record<string, unknown>): [Buffer, string] {
  const added = fieldsText(fields);
  let close = line.length - 1;
  while (close >= 0 && line[close] !== CLOSE) close--;
  let bodyEnd = close;
  while (bodyEnd > 0 && line[bodyEnd - 1]! <= 0x20) bodyEnd--;
  const body = line.subarray(0, bodyEnd);
  if (!added.length) return [line.subarray(0, close + 1), ''];
  return [body, `${body[body.length - 1] === 0x7b ? '' : ','}${added.join(',')}}`];
}

import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';

/**
 * Output rows are the input line's own text with new fields appended, so
 * every input field survives byte for byte: ids beyond 2^53 (which
 * JSON.parse rounds), raw U+2028/U+2029, number spellings like `1.0`.
 * `parsed` is the same line after JSON.parse, used to see which keys exist.
 */
export function appendFields(raw: string, parsed: Record<string, unknown>, fields: Record<string, unknown>): string {
  return appendFieldsParts(raw, parsed, fields).join('');
}

/**
 * The same line as `appendFields`, in two parts: the input line up to its
 * closing brace (a slice of `raw`, not a copy) and the added fields. Writers
 * that encode the parts one after the other never build the whole line as
 * one more string.
 */
export function appendFieldsParts(raw: string, parsed: Record<string, unknown>, fields: Record<string, unknown>): [string, string] {
  const names = Object.keys(fields).filter((k) => fields[k] !== undefined);
  let base = raw.trim();
  if (names.some((k) => Object.hasOwn(parsed, k))) base = withoutKeys(base, names);
  const close = base.lastIndexOf('}');
  const body = base.slice(0, close).trimEnd();
  const added = names.map((k) => `${JSON.stringify(k)}:${JSON.stringify(fields[k])}`).join(',');
  if (!added) return [base, ''];
  return [body, `${body.endsWith('{') ? '' : ','}${added}}`];
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

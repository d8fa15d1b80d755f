import { PART, textParts } from '../../text-parts.js';

/**
 * A text sent as one JSON string but kept as its pieces, so that a judge
 * message of several MB is never joined into one string: `jsonBytes` writes
 * the pieces one after the other. Anything else that turns it into JSON or
 * text (JSON.stringify, a template) sees the joined text.
 */
export class JoinedText {
  constructor(readonly pieces: readonly string[]) {}

  toJSON(): string {
    return this.pieces.join('');
  }

  toString(): string {
    return this.pieces.join('');
  }
}

/**
 * A body larger than this goes into a resizable ArrayBuffer (never resized), whose pages V8 maps
 * and unmaps itself: one from malloc, once freed, raises glibc's mmap threshold to its size, and
 * later bodies then come from a heap that keeps its freed middle resident (bench/README.md).
 */
const OWN_PAGES = 1 << 16;

/** ArrayBuffer's resizable form (Node ≥ 20), typed alone: the ES2024 lib would also type `transfer`, which Node 20 lacks. */
const Resizable = ArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => ArrayBuffer;

/**
 * The UTF-8 bytes of `JSON.stringify(value)`, identical to them, for the
 * plain data of a request body. Long strings are escaped part by part and
 * written straight into the buffer: V8 puts a string over 128 KB on fresh
 * pages, and `Buffer.from(JSON.stringify(…))` would make two of them per long
 * text (the escaped text, then its flat copy to encode), which costs more on
 * a virtual machine than the escaping itself (bench/README.md).
 */
export function jsonBytes(value: unknown): Buffer {
  const parts: string[] = [];
  write(value, parts);
  let length = 0;
  for (const p of parts) length += Buffer.byteLength(p);
  const out = length > OWN_PAGES ? Buffer.from(new Resizable(length, { maxByteLength: length }), 0, length) : Buffer.allocUnsafe(length);
  let at = 0;
  for (const p of parts) at += out.write(p, at);
  return out;
}

function write(value: unknown, parts: string[]): void {
  if (typeof value === 'string') {
    if (value.length <= PART) parts.push(JSON.stringify(value));
    else writeString([value], parts);
  } else if (value instanceof JoinedText) {
    writeString(value.pieces, parts);
  } else if (Array.isArray(value)) {
    parts.push('[');
    value.forEach((item, i) => {
      if (i) parts.push(',');
      // As JSON.stringify: what JSON cannot hold stands as null in a list.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') parts.push('null');
      else write(item, parts);
    });
    parts.push(']');
  } else if (isPlainObject(value)) {
    parts.push('{');
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      // As JSON.stringify: a member JSON cannot hold is left out.
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      parts.push(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      write(item, parts);
    }
    parts.push('}');
  } else {
    // Numbers, booleans, null, and objects with their own toJSON: JSON.stringify's own answer.
    parts.push(JSON.stringify(value));
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

/** One JSON string made of `pieces`, each escaped in parts that never split a surrogate pair. */
function writeString(pieces: readonly string[], parts: string[]): void {
  parts.push('"');
  for (const piece of pieces) for (const part of textParts(piece)) parts.push(JSON.stringify(part).slice(1, -1));
  parts.push('"');
}

/*
 * Other byte spellings of the same JSON row: every JSON reader takes each of
 * them as the same object as JSON.stringify's spelling. Used to check that
 * the byte paths (json-scan.ts and what builds on it) read rows exactly as
 * JSON.parse does. Seeded, so a failing spelling can be reproduced.
 */

import { mulberry32 } from '../../src/core/score/bootstrap.js';
import { synthRows } from './dataset.js';

export interface RespellOptions {
  /** Put a decoy member with each top-level key before it (the later, real one must win). */
  repeatKeys?: boolean;
  /** Add nested objects holding decoy task/id/turn_idx keys. */
  decoys?: boolean;
}

const WS = [' ', '\t', '\r', '  ', ' \r\t '];

function hex4(n: number, upper: boolean): string {
  const h = n.toString(16).padStart(4, '0');
  return upper ? h.toUpperCase() : h;
}

/** A string token with random characters escaped: \uXXXX (surrogate pairs for astral ones), `\/`, short escapes. */
function stringToken(s: string, r: () => number): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const roll = r();
    if (ch === '"' || ch === '\\') out += roll < 0.5 ? `\\${ch}` : `\\u${hex4(cp, roll < 0.25)}`;
    else if (ch === '/') out += roll < 0.5 ? '\\/' : roll < 0.7 ? `\\u002${roll < 0.6 ? 'f' : 'F'}` : '/';
    else if (cp < 0x20) out += roll < 0.5 ? `\\u${hex4(cp, roll < 0.25)}` : JSON.stringify(ch).slice(1, -1);
    else if (cp > 0xffff) {
      if (roll < 0.6) {
        const hi = 0xd800 + ((cp - 0x10000) >> 10);
        const lo = 0xdc00 + ((cp - 0x10000) & 0x3ff);
        out += `\\u${hex4(hi, roll < 0.3)}\\u${hex4(lo, roll < 0.2)}`;
      } else out += ch;
    } else if (cp > 0x7e) out += roll < 0.6 ? `\\u${hex4(cp, roll < 0.3)}` : ch;
    else out += roll < 0.2 ? `\\u${hex4(cp, roll < 0.1)}` : ch;
  }
  return out + '"';
}

/** Another spelling of a number that JSON.parse reads as the same double. */
function numberToken(n: number, r: () => number): string {
  const roll = r();
  if (Object.is(n, -0)) return '-0';
  // Ids beyond 2^53 are kept by their exact text, which no respelling may change.
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return String(n);
  if (Number.isInteger(n)) {
    if (roll < 0.25) return `${n}.0`;
    if (roll < 0.4) return `${n}e0`;
    if (roll < 0.5) return `${n * 10}E-1`;
    return String(n);
  }
  return roll < 0.4 ? n.toExponential() : roll < 0.5 ? n.toExponential().toUpperCase() : String(n);
}

function ws(r: () => number): string {
  return r() < 0.5 ? '' : WS[Math.floor(r() * WS.length)]!;
}

function shuffled<T>(items: T[], r: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const DECOY = { task: 'agentworld/decoy', id: 987654321, turn_idx: 99 };

function valueToken(v: unknown, r: () => number, opts: RespellOptions, top: boolean): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return numberToken(v, r);
  if (typeof v === 'string') return stringToken(v, r);
  if (Array.isArray(v)) {
    if (!v.length) return `[${ws(r)}]`;
    return `[${ws(r)}${v.map((x) => valueToken(x, r, opts, false)).join(`${ws(r)},${ws(r)}`)}${ws(r)}]`;
  }
  const obj = v as Record<string, unknown>;
  const members: string[] = [];
  const member = (k: string, val: unknown) => `${stringToken(k, r)}${ws(r)}:${ws(r)}${valueToken(val, r, opts, false)}`;
  if (opts.decoys && top) members.push(member('meta', { ...DECOY, nested: { ...DECOY } }));
  for (const k of shuffled(Object.keys(obj), r)) {
    if (opts.repeatKeys && r() < 0.5) members.push(member(k, top ? (DECOY[k as keyof typeof DECOY] ?? 'decoy') : 'decoy'));
    members.push(member(k, obj[k]));
  }
  if (opts.decoys && top) members.push(member('extra', [DECOY, { prompt: ['x'], response: 'y' }]));
  return `{${ws(r)}${members.join(`${ws(r)},${ws(r)}`)}${ws(r)}}`;
}

/** One spelling of `row` as a single JSON line (no line ending). */
export function respell(row: Record<string, unknown>, seed: number, opts: RespellOptions = {}): string {
  const r = mulberry32(seed);
  return `${ws(r)}${valueToken(row, r, opts, true)}${ws(r)}`;
}

/**
 * Fixture-like dataset rows with decoy task/id/turn_idx keys nested inside, non-ASCII and astral text and a
 * path-style task: each as JSON.stringify spells it, and respelled (every third line ending in CR).
 */
export function spelledRows(n = 21): { plainLines: string[]; spelledLines: string[]; spellingOf: (i: number) => RespellOptions } {
  const base = synthRows(n).map((r, i) => ({
    ...r,
    meta: { task: 'web', id: -7, turn_idx: 99, nested: { task: 'os' } },
    system_str: `${r.system_str} 中文 \u2028 😀 a/b`,
    ...(i % 4 === 0 ? { extra: [1, { task: 'mcp' }] } : {}),
  }));
  // The rows carry their own decoy task/id/turn_idx members (meta, extra), so the respelling adds none.
  const spellingOf = (i: number): RespellOptions => ({ repeatKeys: i % 2 === 1 });
  return {
    plainLines: base.map((r) => JSON.stringify(r)),
    spelledLines: base.map((r, i) => respell(r, i + 1, spellingOf(i)) + (i % 3 === 0 ? '\r' : '')),
    spellingOf,
  };
}

/*
 * Bounds on JSON that may come from someone else (a shared file's manifest, a
 * batch state, a judge's reply, a row): JSON.parse takes any depth, but
 * JSON.stringify, zod and every walk over the value recurse, and die with a
 * RangeError somewhere past a few thousand levels. Nothing awb reads or
 * writes needs a tenth of MAX_JSON_DEPTH.
 */

/** The deepest nesting of arrays and objects accepted in JSON from others. */
export const MAX_JSON_DEPTH = 200;

/** The largest JSON file awb keeps beside an output (manifest, batch state) that it reads: its own are kilobytes. */
export const MAX_JSON_FILE_BYTES = 64 * 1024 ** 2;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found in one
 * pass without parsing: brackets inside strings do not count. Text that is not
 * JSON is measured the same way (the parse that follows refuses it).
 */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // the escaped character is skipped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

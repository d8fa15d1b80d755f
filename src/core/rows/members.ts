import { walkMembers, type Slice } from './json-scan.js';

/** One top-level member of an object line: its key as JSON.parse reads it, and where the member and its value are. */
interface Member {
  key: string;
  /** From the key's opening quote to the end of the value. */
  member: Slice;
  value: Slice;
}

/**
 * The top-level members of a line that JSON.parse accepted as an object, in
 * order, repeated keys included (walkMembers, shared with score's byte path).
 * Keys are decoded as JSON.parse reads them, so `"t\u0061sk"` is `task`, and
 * nested objects are skipped whole, so a decoy `task` inside one is never
 * seen. undefined when the bytes do not read as an object; what follows its
 * closing brace is not checked.
 */
export function topLevelMembers(b: Buffer): Member[] | undefined {
  const out: Member[] = [];
  const end = walkMembers(b, (key, value, keyStart) => out.push({ key, member: [keyStart, value[1]], value }));
  return end < 0 ? undefined : out;
}

/** The JSON text of the value JSON.parse keeps for `key` (the last one), or undefined. */
export function lastValueText(b: Buffer, key: string): string | undefined {
  const members = topLevelMembers(b);
  const m = members?.findLast((x) => x.key === key);
  return m && b.toString('utf8', m.value[0], m.value[1]);
}

/**
 * An output line: the input line's own bytes with `fields` added before its
 * closing brace, so every input value survives as it was spelled (ids beyond
 * 2^53, raw U+2028, `1.0`, key order). Members named in `replaced` (results
 * of an earlier run of the same stage) are taken out first, every occurrence
 * of them, so no old result survives beside the new one and a reader that
 * keeps the last of repeated keys sees the new value.
 */
export function outputLine(line: Buffer, fields: Record<string, unknown>, replaced: readonly string[]): Buffer[] {
  const added = Object.keys(fields)
    .filter((k) => fields[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(fields[k])}`);
  const members = topLevelMembers(line);
  if (!members) throw new Error('outputLine: the line is not a JSON object');
  const drop = members.some((m) => replaced.includes(m.key));
  let body: Buffer[];
  if (drop) {
    const kept = members.filter((m) => !replaced.includes(m.key));
    body = [Buffer.from('{')];
    kept.forEach((m, k) => body.push(...(k ? [Buffer.from(',')] : []), line.subarray(m.member[0], m.member[1])));
    if (!kept.length) return [Buffer.from(`{${added.join(',')}}`)];
  } else {
    // Up to the last member's value (whitespace and the closing brace dropped).
    const last = members[members.length - 1];
    if (!last) return [Buffer.from(`{${added.join(',')}}`)];
    body = [line.subarray(0, last.member[1])];
  }
  return [...body, Buffer.from(added.length ? `,${added.join(',')}}` : '}')];
}

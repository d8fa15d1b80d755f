/* Checks that a refused run says so in one line and leaves files as they were. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AwbResult } from './cli.js';
import { errorLines, stackLines } from './dataset.js';

/** Each file's bytes (undefined where there is none), to compare after a run that must leave them alone. */
export async function snapshot(paths: readonly string[]): Promise<Map<string, Buffer | undefined>> {
  return new Map(await Promise.all(paths.map(async (p) => [p, existsSync(p) ? await readFile(p) : undefined] as const)));
}

/**
 * Checks that awb refused in one line: a non-zero exit (`code`, when given),
 * no stack trace, and exactly one `awb:` line on stderr, which it returns.
 */
export function refusalLine(r: AwbResult, code?: number): string {
  if (code === undefined) assert.notEqual(r.code, 0, `awb accepted it:\n${r.stderr}`);
  else assert.equal(r.code, code, r.stderr);
  assert.notEqual(r.code, null, 'awb was killed');
  assert.deepEqual(stackLines(r.stderr + r.stdout), [], r.stderr);
  const lines = errorLines(r.stderr);
  assert.equal(lines.length, 1, r.stderr);
  return lines[0]!;
}

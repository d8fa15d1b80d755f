import { DIMENSIONS, type Dimension, type JudgeRepeat } from '../schemas/index.js';

type RepeatSummary = Record<Dimension, number> & { total_score: number; failed: 0 | 1 };

/**
 * The official fields of a row judged K times (`--repeat K`), so that score
 * and every tool reading judged.jsonl see one judgement per row:
 * - only valid repeats count (`failed` 0);
 * - each dimension: the mean of that dimension over the valid repeats that
 *   gave it a score (non-zero), 0 when none did; zeros mean "no score" here
 *   as everywhere in the aggregation;
 * - total_score: the mean of the valid repeats' total_score (each already the
 *   mean of its own non-zero dimensions), not recomputed from the dimension
 *   means, so a repeat that left a dimension out weighs as much as the others;
 * - failed: 1 only when every repeat failed, and then every score is 0.
 */
export function combineRepeats(repeats: readonly JudgeRepeat[]): RepeatSummary {
  const valid = repeats.filter((r) => r.failed === 0);
  const dims = Object.fromEntries(DIMENSIONS.map((d) => [d, meanNonZero(valid.map((r) => r[d]))])) as Record<Dimension, number>;
  if (valid.length === 0) return { ...dims, total_score: 0, failed: 1 };
  // Summed in sixtieths, exact: a total is the mean of up to five whole grades, so three totals of 2.8 give 2.8, not 2.7999999999999994.
  const sixtieths = valid.reduce((s, r) => s + Math.round(r.total_score * 60), 0);
  return { ...dims, total_score: sixtieths / (60 * valid.length), failed: 0 };
}

function meanNonZero(values: readonly number[]): number {
  const scored = values.filter((v) => v !== 0);
  return scored.length ? scored.reduce((a, b) => a + b, 0) / scored.length : 0;
}

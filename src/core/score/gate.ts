import { domainLabel } from '../domains.js';
import { formatFixed, formatSigned, type Ratio } from './exact.js';
import { deriveSeed, mulberry32 } from './bootstrap.js';
import type { CompareResult, Delta } from './compare.js';

/** The gate's family-wise error rate. */
export const GATE_ALPHA = 0.05;
/** Random sign patterns drawn per gate test when there are too many to enumerate. */
const FLIPS = 9_999;

/** One test of the gate: is the candidate worse by more than the threshold here? */
export interface GateTest {
  /** 'Overall' or a domain label. */
  name: string;
  delta: number;
  /** One-sided p-value of "the drop is no larger than the threshold" (sign-flip randomization test). */
  p: number;
  /** The level Holm's procedure held this test to (undefined after the first test it kept). */
  level: number | undefined;
  rejected: boolean;
}

export interface GateResult {
  /** DELTA from --fail-below, in points (>= 0). */
  threshold: number;
  alpha: number;
  failed: boolean;
  /** The tests, in the order Holm's procedure visits them (smallest p first). */
  tests: GateTest[];
  /** Why the gate failed: regressions, a partial candidate, runs not comparable. */
  reasons: string[];
  /** Domains with too few trajectories for any outcome to be significant, and so not tested. */
  inconclusive: string[];
  /** The candidate's label when it failed rows the baseline has valid and is gated as incomplete: asking them again (--retry-failed) completes it. */
  retry: string | undefined;
}

export interface GateOptions {
  threshold: number;
  /** Let a candidate with rows missing from the baseline pass. */
  allowPartial?: boolean;
  /** Let runs whose judge, rubrics, history protocol or dataset differ pass. */
  allowIncomparable?: boolean;
}

export interface GateContext {
  /** Why the candidate is incomplete (rows of the baseline missing, rows failed where the baseline's are valid, its manifest says unfinished). */
  partial: string[];
  /** The candidate's label, when rows it failed could be asked again: how is said once after the reasons. */
  retry?: string;
  /** Known differences that make the runs not comparable. */
  incomparable: string[];
}

/** A weighted trajectory in a sign-flip test: its shifted sum, scaled to its domain's mean. */
interface Term {
  value: number;
}

/**
 * One-sided sign-flip randomization p-value of "the mean delta >= -threshold".
 * Each trajectory's summed row deltas, shifted by threshold per row, is
 * symmetric about 0 at the null's boundary (exactly so under judge noise
 * alone: two judge passes over the same predictions are exchangeable), so
 * flipping signs at random gives the statistic's null distribution. All
 * 2^G patterns when there are few, else FLIPS random ones (p = (1 + hits) / (1 + FLIPS)).
 */
function signFlipP(terms: readonly Term[], label: string): number {
  const v = Float64Array.from(terms, (t) => t.value);
  const g = v.length;
  const observed = v.reduce((s, x) => s + x, 0);
  const scale = v.reduce((s, x) => s + Math.abs(x), 0);
  if (scale === 0) return 1;
  const bound = observed + 1e-9 * Math.max(1, scale);
  if (2 ** g <= FLIPS + 1) {
    // Every pattern, in Gray-code order: each step flips one sign, so the sum is updated, not recomputed.
    let t = observed;
    let hits = t <= bound ? 1 : 0;
    const signs = new Int8Array(g).fill(1);
    for (let k = 1; k < 2 ** g; k++) {
      const i = 31 - Math.clz32(k & -k);
      t -= 2 * signs[i]! * v[i]!;
      signs[i] = -signs[i]!;
      if (t <= bound) hits++;
    }
    return hits / 2 ** g;
  }
  const rng = mulberry32(deriveSeed(GATE_SEED, label));
  let hits = 0;
  for (let b = 0; b < FLIPS; b++) {
    let t = 0;
    let bits = 0;
    for (let i = 0; i < g; i++) {
      if (i % 32 === 0) bits = (rng() * 4294967296) >>> 0;
      t += bits & (1 << (i % 32)) ? -v[i]! : v[i]!;
    }
    if (t <= bound) hits++;
  }
  return (1 + hits) / (1 + FLIPS);
}

const GATE_SEED = 20260624;

/** A domain's trajectories as test terms: (sum + threshold * n) / N, so they add up to its delta + threshold. */
function termsOf(d: Delta, threshold: number, weight = 1): Term[] {
  const n = d.clusters.reduce((s, c) => s + c.n, 0);
  return d.clusters.map((c) => ({ value: (weight * (c.sum + threshold * c.n)) / n }));
}

/**
 * The regression gate. For Overall (macro) and every domain, a one-sided
 * sign-flip randomization test of "candidate − baseline >= −threshold"
 * over trajectories; Holm's step-down procedure over all of them holds the
 * chance that judge noise alone fails the gate to GATE_ALPHA. A domain with
 * so few trajectories that even all of them moving the same way could not
 * reach the first Holm level (1/2^G > alpha/m) is reported as not tested.
 * A candidate missing rows (or failing them where the baseline has valid
 * ones), or runs known to differ in judge, rubrics, history or dataset,
 * fail too unless allowed.
 */
export function applyGate(result: CompareResult, opts: GateOptions, context: GateContext = { partial: [], incomparable: [] }): GateResult {
  const threshold = opts.threshold;
  const measured = result.domains.filter((d) => d.delta);
  const m = measured.length + 1;
  const inconclusive: string[] = [];
  const tests: GateTest[] = [];
  const test = (name: string, delta: Ratio, terms: Term[]): void => {
    tests.push({ name, delta: delta.toNumber(), p: signFlipP(terms, name), level: undefined, rejected: false });
  };
  const lines: Array<[string, Delta, Term[]]> = [
    ['Overall', result.overall, measured.flatMap((d) => termsOf(d, threshold, 1 / measured.length))],
    ...measured.map((d): [string, Delta, Term[]] => [domainLabel(d.domain), d, termsOf(d, threshold)]),
  ];
  for (const [name, d, terms] of lines) {
    if (!d.delta) continue;
    if (2 ** -d.trajectories > GATE_ALPHA / m) {
      inconclusive.push(
        `${name}: ${d.trajectories} ${d.trajectories === 1 ? 'trajectory' : 'trajectories'}, too few to conclude anything (even all of them moving the same way would not be significant among ${m} tests)`,
      );
      continue;
    }
    test(name, d.delta, terms);
  }
  tests.sort((a, b) => a.p - b.p);
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i]!;
    t.level = GATE_ALPHA / (tests.length - i);
    t.rejected = t.p <= t.level;
    if (!t.rejected) break;
  }
  const reasons = tests
    .filter((t) => t.rejected)
    .map(
      (t) =>
        `${t.name}: ${formatSigned(t.delta)} points, worse by more than ${formatFixed(threshold)} (one-sided p = ${t.p.toPrecision(2)}, at most ${percent(t.level!)} by Holm over ${tests.length === 1 ? 'one test' : `${tests.length} tests`})`,
    );
  const partial = context.partial.length > 0 && !opts.allowPartial;
  if (partial) reasons.push(...context.partial.map((p) => `incomplete candidate: ${p} (--allow-partial to gate on the rows in common)`));
  if (context.incomparable.length && !opts.allowIncomparable) {
    reasons.push(...context.incomparable.map((p) => `${p} (--allow-incomparable to gate anyway)`));
  }
  return {
    threshold,
    alpha: GATE_ALPHA,
    failed: reasons.length > 0,
    tests,
    reasons,
    inconclusive,
    retry: partial ? context.retry : undefined,
  };
}

function percent(x: number): string {
  return `${Number((x * 100).toPrecision(2))}%`;
}

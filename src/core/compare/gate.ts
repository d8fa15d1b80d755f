import { domainLabel } from '../domains.js';
import { deriveSeed, mulberry32, type ComparabilityNote } from '../score/index.js';
import type { CompareResult, Delta } from './compare.js';

/** The gate's family-wise error rate. */
export const GATE_ALPHA = 0.05;
/** Random sign patterns drawn per gate test when there are too many to enumerate. */
const FLIPS = 9_999;

/** Overall's place where a domain's id would be, in tests and reasons. */
export const OVERALL = 'overall';

/** One test of the gate: is the candidate worse by more than the threshold here? */
export interface GateTest {
  /** 'Overall' or a domain label. */
  name: string;
  /** OVERALL or the domain's id. */
  domain: string;
  delta: number;
  /** One-sided p-value of "the drop is no larger than the threshold" (sign-flip randomization test). */
  p: number;
  /** The level Holm's procedure held this test to (undefined after the first test it kept). */
  level: number | undefined;
  rejected: boolean;
}

/** A line the gate could not test: so few trajectories that even all of them moving the same way would not be significant. */
export interface Untested {
  /** OVERALL or the domain's id. */
  domain: string;
  trajectories: number;
  /** The fewest trajectories that could show a drop among this many tests. */
  needed: number;
  /** The tests the level is shared among (Overall and each domain with a delta). */
  tests: number;
}

/** Why the candidate is incomplete: rows missing or failed where the baseline has them, or a run its manifest calls unfinished. */
export type Incomplete =
  | { code: 'incomplete'; cause: 'missing-rows'; rows: number; emptyDomains: string[] }
  | { code: 'incomplete'; cause: 'unfinished' }
  /** Paired rows the candidate has no generation for (its inference failed) where the baseline's are valid. */
  | { code: 'incomplete'; cause: 'no-generation'; domain: string; rows: number; paired: number }
  /**
   * Paired rows the candidate's judge gave no grade where the baseline's are valid: `unreadable`, a reply it could not
   * read (after --parse-attempts); `request-failed`, a request that outlasted its retries (a 500, a timeout).
   */
  | { code: 'judge-failures'; cause: 'unreadable' | 'request-failed'; domain: string; rows: number; paired: number };

/** Why the gate failed, as data (the renderers word each one; JSON carries both). */
export type GateReason =
  | { code: 'regression'; domain: string; delta: number; threshold: number; p: number; level: number; tests: number }
  | ({ code: 'untestable' } & Untested)
  | Incomplete
  /** A known difference (judge, rubrics, history protocol, dataset, mixed settings): the comparability note. */
  | { code: 'incomparable'; note: ComparabilityNote };

/**
 * The gate's outcome, one per exit code: a regression first, then runs not
 * comparable, then an incomplete candidate, then a run too small to test.
 */
export type GateOutcome = 'passed' | 'regression' | 'incomparable' | 'incomplete' | 'untestable';

export interface GateResult {
  /** DELTA from --fail-below, in points (>= 0). */
  threshold: number;
  alpha: number;
  failed: boolean;
  outcome: GateOutcome;
  /** The tests, in the order Holm's procedure visits them (smallest p first). */
  tests: GateTest[];
  /** Why the gate failed, in the order of GateOutcome. */
  reasons: GateReason[];
  /** Domains too small to test: said, not failed (Overall, or a domain asked for, too small fails, as an untestable reason). */
  inconclusive: Untested[];
  /** The domains asked for (--domains); undefined: every domain of the runs. */
  domains: string[] | undefined;
}

export interface GateOptions {
  threshold: number;
  /** Let a candidate with rows missing from the baseline pass. */
  allowPartial?: boolean;
  /** Let runs whose judge, rubrics, history protocol or dataset differ pass. */
  allowIncomparable?: boolean;
  /** The domains asked for (the result holds no others): each must be tested, as Overall must. */
  domains?: string[];
}

export interface GateContext {
  incomplete: Incomplete[];
  /** Known differences that make the runs not comparable (the comparability notes isDifference keeps). */
  incomparable: ComparabilityNote[];
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
 * chance that judge noise alone fails the gate to GATE_ALPHA. A line with
 * so few trajectories that even all of them moving the same way could not
 * reach the first Holm level (1/2^G > alpha/m) is not tested: a domain is
 * said to be so, Overall fails the gate (nothing was tested, so nothing may
 * pass), and so does a domain asked for by name (--domains), with a delta
 * or without one. A candidate missing rows (or failing them where the baseline has
 * valid ones), or runs known to differ in judge, rubrics, history or
 * dataset, fail too unless allowed.
 */
export function applyGate(
  result: CompareResult,
  opts: GateOptions,
  context: GateContext = { incomplete: [], incomparable: [] },
): GateResult {
  const threshold = opts.threshold;
  const measured = result.domains.filter((d) => d.delta);
  const m = measured.length + 1;
  const inconclusive: Untested[] = [];
  const untestable: GateReason[] = [];
  const tests: GateTest[] = [];
  const asked = new Set(opts.domains);
  const mustTest = (domain: string) => domain === OVERALL || asked.has(domain);
  // A domain asked for with no delta (rows on one side only, or none valid on both) has 0 trajectories: untestable too.
  const lines: Array<[string, string, Delta, Term[]]> = [
    [OVERALL, 'Overall', result.overall, measured.flatMap((d) => termsOf(d, threshold, 1 / measured.length))],
    ...result.domains.map((d): [string, string, Delta, Term[]] => [d.domain, domainLabel(d.domain), d, termsOf(d, threshold)]),
  ];
  for (const [domain, name, d, terms] of lines) {
    if (!d.delta && !asked.has(domain)) continue;
    if (!d.delta || 2 ** -d.trajectories > GATE_ALPHA / m) {
      const untested = { domain, trajectories: d.trajectories, needed: Math.ceil(Math.log2(m / GATE_ALPHA)), tests: m };
      if (mustTest(domain)) untestable.push({ code: 'untestable', ...untested });
      else inconclusive.push(untested);
      continue;
    }
    tests.push({ name, domain, delta: d.delta.toNumber(), p: signFlipP(terms, name), level: undefined, rejected: false });
  }
  tests.sort((a, b) => a.p - b.p);
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i]!;
    t.level = GATE_ALPHA / (tests.length - i);
    t.rejected = t.p <= t.level;
    if (!t.rejected) break;
  }
  const regressions = tests
    .filter((t) => t.rejected)
    .map((t): GateReason => ({
      code: 'regression',
      domain: t.domain,
      delta: t.delta,
      threshold,
      p: t.p,
      level: t.level!,
      tests: tests.length,
    }));
  const incomparable = opts.allowIncomparable ? [] : context.incomparable.map((note): GateReason => ({ code: 'incomparable', note }));
  const incomplete = opts.allowPartial ? [] : context.incomplete;
  const reasons = [...regressions, ...incomparable, ...incomplete, ...untestable];
  const first = reasons[0]?.code;
  const outcome: GateOutcome = first === undefined ? 'passed' : first === 'judge-failures' ? 'incomplete' : first;
  return { threshold, alpha: GATE_ALPHA, failed: reasons.length > 0, outcome, tests, reasons, inconclusive, domains: opts.domains };
}

import { sameFile } from '../files.js';
import { comparabilityNotes, labelRuns, readProvenance, type Provenance } from './comparability.js';
import { canonicalDomains, compareDomains, domainLabel } from '../domains.js';
import { fail } from '../errors.js';
import { Ratio, SIXTIETHS, formatFixed, formatSigned, meanOf, normalizedMean } from './exact.js';
import { readJudged, type JudgedRecord } from './judged-reader.js';
import { displayKey, splitKey } from '../rows/index.js';
import { DIMENSIONS } from '../schemas/index.js';
import { studentQuantile } from './student-t.js';
import { deriveSeed, mulberry32, type Cluster, type Interval } from './bootstrap.js';

/** Rows present on one side only. */
export interface Unpaired {
  count: number;
  /** A few of them, readable (domain, id, turn), in key order. */
  examples: string[];
}

/**
 * The delta's sampling spread, from the trajectories: the CR2
 * cluster-robust standard error with Bell-McCaffrey degrees of freedom
 * (Welch-Satterthwaite's for Overall). Undefined with fewer than two
 * trajectories.
 */
export interface Spread {
  se: number;
  df: number;
}

export interface Delta {
  /** Normalized 0-100 scores over the rows used, exact. */
  baseline: Ratio | undefined;
  candidate: Ratio | undefined;
  /** candidate − baseline, in points. */
  delta: Ratio | undefined;
  /** Two-sided 95% t interval of the delta (not adjusted for the number of tests). */
  ci: Interval | undefined;
  spread: Spread | undefined;
  /** Trajectories with at least one used row. */
  trajectories: number;
  /** Those trajectories' summed row deltas (points) and row counts: what the gate's sign-flip test draws on. */
  clusters: readonly Cluster[];
  /** Per dimension (DIMENSIONS order): candidate − baseline on the rows used, zero grades skipped per side. */
  dims: Array<Ratio | undefined>;
}

export interface DomainDelta extends Delta {
  domain: string;
  /** Rows present in both files. */
  paired: number;
  /** Paired rows valid on both sides with a total on both: the rows the delta is measured on. */
  used: number;
  /** Failed rows among the paired ones, per side. */
  baselineFailed: number;
  candidateFailed: number;
  /** Paired rows failed in the candidate whose baseline row is valid: left out of the delta, they make the candidate incomplete. */
  candidateLost: number;
}

/** One paired row's change in total (0-100 points). */
export interface ChangedRow {
  /** `domain/id/turn_idx`, as the HTML report's links and `awb rows` print it. */
  key: string;
  baseline: Ratio;
  candidate: Ratio;
  delta: Ratio;
}

export interface CompareResult {
  onlyBaseline: Unpaired;
  onlyCandidate: Unpaired;
  domains: DomainDelta[];
  /** Macro: the mean over domains with used rows, as the leaderboard's Overall; row counts summed over domains. */
  overall: Delta & Omit<DomainDelta, 'domain' | keyof Delta> & { domains: number };
  /** The rows whose total changed most, largest change first (as many as asked for). */
  changed: ChangedRow[];
}

const EXAMPLES = 5;
/** The gate's family-wise error rate. */
export const GATE_ALPHA = 0.05;
/** Random sign patterns drawn per gate test when there are too many to enumerate. */
const FLIPS = 9_999;

const points = (sixtieths: number): number => (25 * sixtieths) / SIXTIETHS;

/**
 * CR2 spread of a ratio-of-sums mean (a weighted mean over rows, clustered
 * by trajectory): each trajectory's residual sum squared, scaled by
 * 1 / (1 - n_g / N), the leverage correction that keeps it unbiased with
 * few and unequal trajectories. Degrees of freedom by Bell and McCaffrey,
 * (tr B)^2 / tr(B^2) with B_gh = (δ_gh n_g - n_g n_h / N) / sqrt((1 - p_g)(1 - p_h)),
 * p_g = n_g / N: G - 1 for equal trajectories, fewer as sizes spread.
 */
function clusterSpread(clusters: readonly Cluster[]): Spread | undefined {
  const g = clusters.length;
  if (g < 2) return undefined;
  const n = clusters.reduce((s, c) => s + c.n, 0);
  const mean = clusters.reduce((s, c) => s + c.sum, 0) / n;
  const ss = clusters.reduce((s, c) => s + (c.sum - mean * c.n) ** 2 / (1 - c.n / n), 0);
  const w = clusters.map((c) => 1 / Math.sqrt(1 - c.n / n));
  let trace = 0;
  let trace2 = 0;
  for (let i = 0; i < g; i++) {
    for (let j = 0; j < g; j++) {
      const b = ((i === j ? clusters[i]!.n : 0) - (clusters[i]!.n * clusters[j]!.n) / n) * w[i]! * w[j]!;
      if (i === j) trace += b;
      trace2 += b * b;
    }
  }
  return { se: Math.sqrt(ss) / n, df: (trace * trace) / trace2 };
}

/** The spread of a mean of independent domain deltas; Welch–Satterthwaite degrees of freedom. */
function meanSpread(parts: readonly Spread[]): Spread {
  const k = parts.length;
  const v = parts.reduce((s, p) => s + p.se ** 2, 0) / (k * k);
  const denom = parts.reduce((s, p) => s + (p.se ** 2 / (k * k)) ** 2 / p.df, 0);
  // All-zero variances: no spread to speak of; the smallest df keeps the quantile finite and conservative.
  const df = denom > 0 ? (v * v) / denom : Math.min(...parts.map((p) => p.df));
  return { se: Math.sqrt(v), df };
}

function tInterval(delta: number, s: Spread | undefined, level = 0.95): Interval | undefined {
  if (!s) return undefined;
  const half = studentQuantile(1 - (1 - level) / 2, s.df) * s.se;
  return { lo: delta - half, hi: delta + half };
}

interface Side {
  total: number;
  dims: Array<{ sum: number; count: number }>;
}
const emptySide = (): Side => ({ total: 0, dims: DIMENSIONS.map(() => ({ sum: 0, count: 0 })) });

function addSide(side: Side, r: JudgedRecord): void {
  side.total += r.total;
  r.dims.forEach((v, i) => {
    if (v === 0) return;
    side.dims[i]!.sum += v;
    side.dims[i]!.count++;
  });
}

/**
 * Paired comparison. Each side is scored on the same rows (valid on both),
 * so the difference is not blurred by which rows happened to fail; the
 * spread comes from the paired differences, trajectory by trajectory.
 */
export function compareRecords(
  baseline: readonly JudgedRecord[],
  candidate: readonly JudgedRecord[],
  opts: { rows?: number } = {},
): CompareResult {
  const cand = new Map(candidate.map((r) => [r.key, r]));
  const baseKeys = new Set(baseline.map((r) => r.key));
  interface Acc {
    d: DomainDelta;
    base: Side;
    cand: Side;
    clusters: Map<string, Cluster>;
  }
  const acc = new Map<string, Acc>();
  const domainAcc = (domain: string): Acc => {
    let a = acc.get(domain);
    if (!a) {
      a = {
        d: {
          domain,
          paired: 0,
          used: 0,
          baselineFailed: 0,
          candidateFailed: 0,
          candidateLost: 0,
          ...emptyDelta(),
        },
        base: emptySide(),
        cand: emptySide(),
        clusters: new Map(),
      };
      acc.set(domain, a);
    }
    return a;
  };
  const onlyBaseline: string[] = [];
  const changed: ChangedRow[] = [];
  for (const b of baseline) {
    const a = domainAcc(b.domain);
    const c = cand.get(b.key);
    if (!c) {
      onlyBaseline.push(b.key);
      continue;
    }
    a.d.paired++;
    if (b.failed) a.d.baselineFailed++;
    if (c.failed) a.d.candidateFailed++;
    if (c.failed && !b.failed) a.d.candidateLost++;
    if (b.failed || c.failed || b.total === 0 || c.total === 0) continue;
    a.d.used++;
    addSide(a.base, b);
    addSide(a.cand, c);
    let cluster = a.clusters.get(b.cluster);
    if (!cluster) a.clusters.set(b.cluster, (cluster = { sum: 0, n: 0 }));
    cluster.sum += points(c.total - b.total);
    cluster.n++;
    if (opts.rows) changed.push(changedRow(b, c));
  }
  const onlyCandidate = candidate.filter((r) => !baseKeys.has(r.key)).map((r) => r.key);
  for (const r of candidate) domainAcc(r.domain);

  const domains = [...acc.keys()].sort(compareDomains).map((k) => acc.get(k)!);
  const measured = domains.filter((a) => a.d.used > 0);
  for (const a of measured) {
    const d = a.d;
    d.baseline = normalizedMean(a.base.total, d.used);
    d.candidate = normalizedMean(a.cand.total, d.used);
    d.delta = d.candidate!.sub(d.baseline!);
    d.clusters = [...a.clusters.keys()].sort().map((k) => a.clusters.get(k)!);
    d.trajectories = d.clusters.length;
    d.spread = clusterSpread(d.clusters);
    d.ci = tInterval(d.delta.toNumber(), d.spread);
    d.dims = DIMENSIONS.map((_, i) => {
      const [bs, cs] = [a.base.dims[i]!, a.cand.dims[i]!];
      const [bn, cn] = [normalizedMean(bs.sum, bs.count), normalizedMean(cs.sum, cs.count)];
      return bn && cn ? cn.sub(bn) : undefined;
    });
  }
  const mean = (pick: (d: DomainDelta) => Ratio | undefined): Ratio | undefined => {
    const values = measured.map((a) => pick(a.d));
    return values.every((v) => v !== undefined) ? meanOf(values as Ratio[]) : undefined;
  };
  const sum = (pick: (d: DomainDelta) => number): number => domains.reduce((n, a) => n + pick(a.d), 0);
  const spreads = measured.map((a) => a.d.spread);
  const overallSpread = measured.length && spreads.every((s) => s !== undefined) ? meanSpread(spreads as Spread[]) : undefined;
  const overallDelta = mean((d) => d.delta);
  changed.sort((x, y) => Math.abs(y.delta.toNumber()) - Math.abs(x.delta.toNumber()) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return {
    onlyBaseline: unpaired(onlyBaseline),
    onlyCandidate: unpaired(onlyCandidate),
    domains: domains.map((a) => a.d),
    overall: {
      baseline: mean((d) => d.baseline),
      candidate: mean((d) => d.candidate),
      delta: overallDelta,
      spread: overallSpread,
      ci: overallDelta ? tInterval(overallDelta.toNumber(), overallSpread) : undefined,
      trajectories: sum((d) => d.trajectories),
      clusters: [],
      dims: DIMENSIONS.map((_, i) => mean((d) => d.dims[i])),
      domains: measured.length,
      paired: sum((d) => d.paired),
      used: sum((d) => d.used),
      baselineFailed: sum((d) => d.baselineFailed),
      candidateFailed: sum((d) => d.candidateFailed),
      candidateLost: sum((d) => d.candidateLost),
    },
    changed: changed.slice(0, opts.rows ?? 0),
  };
}

function emptyDelta(): Delta {
  return {
    baseline: undefined,
    candidate: undefined,
    delta: undefined,
    ci: undefined,
    spread: undefined,
    trajectories: 0,
    clusters: [],
    dims: DIMENSIONS.map(() => undefined),
  };
}

function changedRow(b: JudgedRecord, c: JudgedRecord): ChangedRow {
  const k = splitKey(b.key);
  const baseline = normalizedMean(b.total, 1)!;
  const candidate = normalizedMean(c.total, 1)!;
  return { key: `${k.domain}/${k.id}/${k.turn}`, baseline, candidate, delta: candidate.sub(baseline) };
}

function unpaired(keys: string[]): Unpaired {
  return { count: keys.length, examples: keys.sort().slice(0, EXAMPLES).map(displayKey) };
}

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

export interface ComparedSide {
  file: string;
  label: string;
  provenance: Provenance;
  rows: number;
}

export interface CompareReport {
  baseline: ComparedSide;
  candidate: ComparedSide;
  result: CompareResult;
  gate: GateResult | undefined;
  notes: string[];
  warnings: string[];
}

export interface CompareOptions {
  /** --fail-below and what the gate may let pass; undefined: no gate. */
  gate: GateOptions | undefined;
  /** How many most-changed rows to list. */
  rows?: number;
}

/** Reads two judged files and compares them: everything `awb compare` prints. */
export async function compareFiles(baselineFile: string, candidateFile: string, opts: CompareOptions): Promise<CompareReport> {
  const [base, cand] = [await readJudged(baselineFile), await readJudged(candidateFile)];
  // Said of the file itself, as score says it, rather than as "no rows in common".
  for (const [file, read] of [
    [baselineFile, base],
    [candidateFile, cand],
  ] as const) {
    if (read.mode === 'turing' || read.mode === 'pairwise') throw fail({ kind: 'choice-file-has-no-grades', file, mode: read.mode });
    if (read.records.length === 0) throw fail({ kind: 'judged-file-empty', file });
  }
  const warnings = [...base.warnings, ...cand.warnings];
  // A CI job wired to the wrong path would otherwise pass its gate for ever.
  if (await sameFile(baselineFile, candidateFile)) {
    warnings.push(`${baselineFile} and ${candidateFile} are the same file: every difference is 0, so the gate cannot fail`);
  }
  const result = compareRecords(base.records, cand.records, { rows: opts.rows });
  const { used, paired, baselineFailed: failedBase, candidateFailed: failedCand } = result.overall;
  if (used === 0) {
    const files = { baseline: baselineFile, candidate: candidateFile };
    throw fail(paired === 0 ? { kind: 'no-rows-in-common', ...files } : { kind: 'no-valid-rows-in-common', ...files, paired });
  }
  const prov = [await readProvenance(baselineFile), await readProvenance(candidateFile)];
  for (const p of prov) warnings.push(...p.warnings);
  const [pb, pc] = [prov[0]!.provenance, prov[1]!.provenance];
  const [lb, lc] = labelRuns([
    { file: baselineFile, model: pb.model, label: pb.label },
    { file: candidateFile, model: pc.model, label: pc.label },
  ]);
  const checked = comparabilityNotes(
    [
      { label: lb!, file: baselineFile, provenance: pb, domains: domainsOf(base.records) },
      { label: lc!, file: candidateFile, provenance: pc, domains: domainsOf(cand.records) },
    ],
    { coverage: false },
  ); // pairing already reports rows present on one side only
  const notes = checked.map((n) => n.text);
  for (const [side, u] of [
    [lb!, result.onlyBaseline],
    [lc!, result.onlyCandidate],
  ] as const) {
    if (u.count) notes.push(`${u.count} row(s) only in ${side}, left out of the deltas (e.g. ${u.examples.join('; ')})`);
  }
  if (failedBase || failedCand) {
    notes.push(
      `failed rows among the paired ones: ${failedBase} in ${lb}, ${failedCand} in ${lc}; deltas use only rows valid on both sides (${paired - used} of ${paired} paired rows left out)`,
    );
  }
  const partial: string[] = [];
  if (result.onlyBaseline.count) {
    const missing = domainsOf(base.records).filter((d) => !cand.records.some((r) => r.domain === d));
    partial.push(
      `${result.onlyBaseline.count} row(s) of the baseline are missing from ${lc}${missing.length ? ` (no rows at all in ${missing.map(domainLabel).join(', ')})` : ''}`,
    );
  }
  if (pc.complete === false) partial.push(`the manifest of ${lc} says the run is unfinished`);
  // Rows the candidate failed (no generation, no parsable judgement) drop out of the pairs: a domain could lose
  // most of them and still pass; with all of them it has no delta that a test could see fall.
  const lost = result.domains.filter((d) => d.candidateLost > 0);
  for (const d of lost) {
    partial.push(`${domainLabel(d.domain)}: ${d.candidateLost} of ${d.paired} candidate rows failed where the baseline's are valid`);
  }

  const incomparable = checked.filter((n) => n.kind === 'differs').map((n) => n.text);
  return {
    baseline: { file: baselineFile, label: lb!, provenance: pb, rows: base.records.length },
    candidate: { file: candidateFile, label: lc!, provenance: pc, rows: cand.records.length },
    result,
    gate: opts.gate && applyGate(result, opts.gate, { partial, retry: lost.length ? lc : undefined, incomparable }),
    notes,
    warnings,
  };
}

function domainsOf(records: readonly JudgedRecord[]): string[] {
  return canonicalDomains(records.map((r) => r.domain));
}

import { realpath } from 'node:fs/promises';
import { comparabilityNotes, labelRuns, readProvenance, type Provenance } from './comparability.js';
import { compareDomains, domainLabel } from '../domains.js';
import { UserError } from '../errors.js';
import { Ratio, SIXTIETHS, formatFixed, formatSigned, meanOf, normalizedMean } from './exact.js';
import { readJudged, type JudgedRecord } from './judged-reader.js';
import { displayKey, splitKey } from '../rows/index.js';
import { DIMENSIONS } from '../schemas/index.js';
import { studentCdf, studentQuantile } from './student-t.js';

/** Rows present on one side only. */
export interface Unpaired {
  count: number;
  /** A few of them, readable (domain, id, turn), in key order. */
  examples: string[];
}

export interface Interval {
  lo: number;
  hi: number;
}

/**
 * The delta's sampling spread, from the trajectories: a cluster-robust
 * standard error with the small-sample factor G/(G-1) and G-1 degrees of
 * freedom (Satterthwaite's for Overall). Undefined with fewer than two
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
/** Fewer trajectories than this leave a domain's delta untested by the gate: two give one degree of freedom. */
export const MIN_TRAJECTORIES = 3;
/** The gate's family-wise error rate. */
export const GATE_ALPHA = 0.05;

interface Cluster {
  /** Sum of the rows' deltas, in points. */
  sum: number;
  n: number;
}

const points = (sixtieths: number): number => (25 * sixtieths) / SIXTIETHS;

/**
 * Cluster-robust spread of a ratio-of-sums mean: the residuals of the
 * trajectory sums about the pooled mean, with the factor G/(G-1).
 */
function clusterSpread(clusters: readonly Cluster[]): Spread | undefined {
  const used = clusters.filter((c) => c.n > 0);
  const g = used.length;
  if (g < 2) return undefined;
  const n = used.reduce((s, c) => s + c.n, 0);
  const mean = used.reduce((s, c) => s + c.sum, 0) / n;
  const ss = used.reduce((s, c) => s + (c.sum - mean * c.n) ** 2, 0);
  return { se: Math.sqrt(((g / (g - 1)) * ss) / (n * n)), df: g - 1 };
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
    d.trajectories = a.clusters.size;
    d.spread = clusterSpread([...a.clusters.values()]);
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
      dims: DIMENSIONS.map((_, i) => mean((d) => d.dims[i])),
      domains: measured.length,
      paired: sum((d) => d.paired),
      used: sum((d) => d.used),
      baselineFailed: sum((d) => d.baselineFailed),
      candidateFailed: sum((d) => d.candidateFailed),
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
  /** One-sided p-value of "the drop is no larger than the threshold". */
  p: number;
  /** The level Holm's procedure held this test to (undefined after the first test it kept). */
  level: number | undefined;
  /** The one-sided upper confidence bound at that level. */
  upper: number | undefined;
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
  /** Domains (or Overall) with too few trajectories to conclude anything, and so not tested. */
  inconclusive: string[];
}

export interface GateOptions {
  threshold: number;
  /** Let a candidate with rows missing from the baseline pass. */
  allowPartial?: boolean;
  /** Let runs whose judge, rubrics, history protocol or dataset differ pass. */
  allowIncomparable?: boolean;
}

export interface GateContext {
  /** Why the candidate is incomplete (rows of the baseline missing, or its manifest says unfinished). */
  partial: string[];
  /** Known differences that make the runs not comparable. */
  incomparable: string[];
}

/**
 * The regression gate. For Overall (macro) and every domain with at least
 * MIN_TRAJECTORIES trajectories, a one-sided t test of "candidate − baseline
 * >= −threshold" from the cluster-robust spread; Holm's step-down procedure
 * holds the chance that judge noise alone fails any of them to GATE_ALPHA.
 * A candidate missing rows, or runs known to differ in judge, rubrics,
 * history or dataset, fail too unless allowed.
 */
export function applyGate(result: CompareResult, opts: GateOptions, context: GateContext = { partial: [], incomparable: [] }): GateResult {
  const threshold = opts.threshold;
  const candidates: Array<{ name: string; d: Delta }> = [
    { name: 'Overall', d: result.overall },
    ...result.domains.map((d) => ({ name: domainLabel(d.domain), d })),
  ];
  const inconclusive: string[] = [];
  const tests: GateTest[] = [];
  for (const { name, d } of candidates) {
    if (!d.delta) continue;
    const isOverall = d === result.overall;
    if (!d.spread || (!isOverall && d.trajectories < MIN_TRAJECTORIES)) {
      inconclusive.push(`${name}: ${d.trajectories} trajectories, too few to conclude anything`);
      continue;
    }
    const delta = d.delta.toNumber();
    const p = d.spread.se > 0 ? studentCdf((delta + threshold) / d.spread.se, d.spread.df) : delta < -threshold ? 0 : 1;
    tests.push({ name, delta, p, level: undefined, upper: undefined, rejected: false });
  }
  tests.sort((a, b) => a.p - b.p);
  const spreadOf = (name: string): Spread => candidates.find((c) => c.name === name)!.d.spread!;
  for (let i = 0; i < tests.length; i++) {
    const t = tests[i]!;
    t.level = GATE_ALPHA / (tests.length - i);
    const s = spreadOf(t.name);
    t.upper = t.delta + studentQuantile(1 - t.level, s.df) * s.se;
    t.rejected = t.p <= t.level;
    if (!t.rejected) break;
  }
  const reasons = tests
    .filter((t) => t.rejected)
    .map(
      (t) =>
        `${t.name}: ${formatSigned(t.delta)} points; its one-sided upper bound ${formatSigned(t.upper)} (at level ${percent(t.level!)}, Holm over ${tests.length} tests) lies below -${formatFixed(threshold)}`,
    );
  if (context.partial.length && !opts.allowPartial) {
    reasons.push(...context.partial.map((p) => `incomplete candidate: ${p} (--allow-partial to gate on the rows in common)`));
  }
  if (context.incomparable.length && !opts.allowIncomparable) {
    reasons.push(...context.incomparable.map((p) => `${p} (--allow-incomparable to gate anyway)`));
  }
  return { threshold, alpha: GATE_ALPHA, failed: reasons.length > 0, tests, reasons, inconclusive };
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
  const warnings = [...base.warnings, ...cand.warnings];
  // A CI job wired to the wrong path would otherwise pass its gate for ever.
  if ((await realpath(baselineFile)) === (await realpath(candidateFile))) {
    warnings.push(`${baselineFile} and ${candidateFile} are the same file: every difference is 0, so the gate cannot fail`);
  }
  const result = compareRecords(base.records, cand.records, { rows: opts.rows });
  const { used, paired, baselineFailed: failedBase, candidateFailed: failedCand } = result.overall;
  if (used === 0) {
    throw new UserError(
      paired === 0
        ? `${baselineFile} and ${candidateFile} have no rows in common (were they made from the same dataset?)`
        : `${baselineFile} and ${candidateFile}: none of the ${paired} rows in common is valid on both sides`,
    );
  }
  const prov = [await readProvenance(baselineFile), await readProvenance(candidateFile)];
  for (const p of prov) warnings.push(...p.warnings);
  const [pb, pc] = [prov[0]!.provenance, prov[1]!.provenance];
  const [lb, lc] = labelRuns([
    { file: baselineFile, model: pb.model },
    { file: candidateFile, model: pc.model },
  ]);
  const checked = comparabilityNotes(
    [
      { label: lb!, provenance: pb, domains: domainsOf(base.records) },
      { label: lc!, provenance: pc, domains: domainsOf(cand.records) },
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
      `failed rows among the paired ones: ${failedBase} in ${lb}, ${failedCand} in ${lc}; deltas use only rows valid on both sides`,
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
  const incomparable = checked.filter((n) => n.kind === 'differs').map((n) => n.text);
  return {
    baseline: { file: baselineFile, label: lb!, provenance: pb, rows: base.records.length },
    candidate: { file: candidateFile, label: lc!, provenance: pc, rows: cand.records.length },
    result,
    gate: opts.gate && applyGate(result, opts.gate, { partial, incomparable }),
    notes,
    warnings,
  };
}

function domainsOf(records: readonly JudgedRecord[]): string[] {
  return [...new Set(records.map((r) => r.domain))].sort(compareDomains);
}

import { realpath } from 'node:fs/promises';
import { bootstrapGroups, percentileInterval, type BootstrapSettings, type Cluster, type Interval } from './bootstrap.js';
import { comparabilityNotes, labelRuns, readProvenance, type Provenance } from './comparability.js';
import { compareDomains, domainLabel } from '../domains.js';
import { UserError } from '../errors.js';
import { Ratio, SIXTIETHS, formatFixed, formatSigned, meanOf, normalizedMean } from './exact.js';
import { readJudged, type JudgedRecord } from './judged-reader.js';
import { displayKey } from '../rows/index.js';

/** Rows present on one side only. */
export interface Unpaired {
  count: number;
  /** A few of them, readable (domain, id, turn), in key order. */
  examples: string[];
}

export interface Delta {
  /** Normalized 0-100 scores over the rows used, exact. */
  baseline: Ratio | undefined;
  candidate: Ratio | undefined;
  /** candidate − baseline, in points. */
  delta: Ratio | undefined;
  /** Paired-bootstrap 95% interval of the delta. */
  ci: Interval | undefined;
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

export interface CompareResult {
  onlyBaseline: Unpaired;
  onlyCandidate: Unpaired;
  domains: DomainDelta[];
  /** Macro: the mean over domains with used rows, as the leaderboard's Overall; row counts summed over domains. */
  overall: Delta & Omit<DomainDelta, 'domain' | keyof Delta> & { domains: number };
}

const EXAMPLES = 5;

/**
 * Paired comparison. Each side is scored on the same rows (valid on both),
 * so the difference is not blurred by which rows happened to fail. The
 * bootstrap draws trajectories and applies each draw to both sides at once.
 */
export function compareRecords(
  baseline: readonly JudgedRecord[],
  candidate: readonly JudgedRecord[],
  settings: BootstrapSettings,
): CompareResult {
  const cand = new Map(candidate.map((r) => [r.key, r]));
  const baseKeys = new Set(baseline.map((r) => r.key));
  interface Acc {
    d: DomainDelta;
    base: number;
    cand: number;
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
          baseline: undefined,
          candidate: undefined,
          delta: undefined,
          ci: undefined,
        },
        base: 0,
        cand: 0,
        clusters: new Map(),
      };
      acc.set(domain, a);
    }
    return a;
  };
  const onlyBaseline: string[] = [];
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
    let cluster = a.clusters.get(b.cluster);
    if (!cluster) a.clusters.set(b.cluster, (cluster = { sum: 0, n: 0 }));
    if (b.failed || c.failed || b.total === 0 || c.total === 0) continue;
    a.d.used++;
    a.base += b.total;
    a.cand += c.total;
    cluster.sum += c.total - b.total;
    cluster.n++;
  }
  const onlyCandidate = candidate.filter((r) => !baseKeys.has(r.key)).map((r) => r.key);
  for (const r of candidate) domainAcc(r.domain);

  const domains = [...acc.keys()].sort(compareDomains).map((k) => acc.get(k)!);
  const measured = domains.filter((a) => a.d.used > 0);
  const groups = new Map(measured.map((a) => [a.d.domain, [...a.clusters.keys()].sort().map((k) => a.clusters.get(k)!)]));
  const samples = bootstrapGroups(groups, settings, pairedDelta);
  for (const a of measured) {
    a.d.baseline = normalizedMean(a.base, a.d.used);
    a.d.candidate = normalizedMean(a.cand, a.d.used);
    a.d.delta = a.d.candidate!.sub(a.d.baseline!);
    a.d.ci = percentileInterval(samples.groups.get(a.d.domain)!);
  }
  const mean = (pick: (d: DomainDelta) => Ratio | undefined): Ratio | undefined => meanOf(measured.map((a) => pick(a.d)!));
  const sum = (pick: (d: DomainDelta) => number): number => domains.reduce((n, a) => n + pick(a.d), 0);
  return {
    onlyBaseline: unpaired(onlyBaseline),
    onlyCandidate: unpaired(onlyCandidate),
    domains: domains.map((a) => a.d),
    overall: {
      baseline: mean((d) => d.baseline),
      candidate: mean((d) => d.candidate),
      delta: mean((d) => d.delta),
      ci: measured.length ? percentileInterval(samples.mean) : undefined,
      domains: measured.length,
      paired: sum((d) => d.paired),
      used: sum((d) => d.used),
      baselineFailed: sum((d) => d.baselineFailed),
      candidateFailed: sum((d) => d.candidateFailed),
    },
  };
}

/** Mean difference in normalized points: the normalization's offset cancels, leaving the scale factor 100/4. */
function pairedDelta(sum: number, n: number): number {
  return n > 0 ? (25 * sum) / (SIXTIETHS * n) : NaN;
}

function unpaired(keys: string[]): Unpaired {
  return { count: keys.length, examples: keys.sort().slice(0, EXAMPLES).map(displayKey) };
}

export interface GateResult {
  /** DELTA from --fail-below, in points (>= 0). */
  threshold: number;
  failed: boolean;
  /** One line per domain (or Overall) that failed the gate. */
  reasons: string[];
}

/**
 * The regression gate: the candidate is significantly worse by more than
 * `threshold` points when the upper bound of the 95% interval of
 * (candidate − baseline) lies below −threshold, for Overall or any domain.
 */
export function applyGate(result: CompareResult, threshold: number): GateResult {
  const reasons: string[] = [];
  const check = (name: string, d: Delta): void => {
    if (d.ci && d.ci.hi < -threshold) {
      reasons.push(
        `${name}: ${formatSigned(d.delta)} points, 95% interval [${formatSigned(d.ci.lo)}, ${formatSigned(d.ci.hi)}] lies below -${formatFixed(threshold)}`,
      );
    }
  };
  check('Overall', result.overall);
  for (const d of result.domains) check(domainLabel(d.domain), d);
  return { threshold, failed: reasons.length > 0, reasons };
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
  bootstrap: BootstrapSettings;
  gate: GateResult | undefined;
  notes: string[];
  warnings: string[];
}

/** Reads two judged files and compares them: everything `awb compare` prints. */
export async function compareFiles(
  baselineFile: string,
  candidateFile: string,
  opts: { bootstrap: BootstrapSettings; failBelow: number | undefined },
): Promise<CompareReport> {
  const [base, cand] = [await readJudged(baselineFile), await readJudged(candidateFile)];
  const warnings = [...base.warnings, ...cand.warnings];
  // A CI job wired to the wrong path would otherwise pass its gate for ever.
  if ((await realpath(baselineFile)) === (await realpath(candidateFile))) {
    warnings.push(`${baselineFile} and ${candidateFile} are the same file: every difference is 0, so the gate cannot fail`);
  }
  const result = compareRecords(base.records, cand.records, opts.bootstrap);
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
  const notes = comparabilityNotes(
    [
      { label: lb!, provenance: pb, domains: domainsOf(base.records) },
      { label: lc!, provenance: pc, domains: domainsOf(cand.records) },
    ],
    { coverage: false },
  ); // pairing already reports rows present on one side only
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
  return {
    baseline: { file: baselineFile, label: lb!, provenance: pb, rows: base.records.length },
    candidate: { file: candidateFile, label: lc!, provenance: pc, rows: cand.records.length },
    result,
    bootstrap: opts.bootstrap,
    gate: opts.failBelow === undefined ? undefined : applyGate(result, opts.failBelow),
    notes,
    warnings,
  };
}

function domainsOf(records: readonly JudgedRecord[]): string[] {
  return [...new Set(records.map((r) => r.domain))].sort(compareDomains);
}

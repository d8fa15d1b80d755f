import {
  bootstrapClusters,
  groupClusters,
  percentileInterval,
  stratifiedIntervals,
  type BootstrapSettings,
  type Cluster,
  type Interval,
} from './bootstrap.js';
import { comparabilityNotes, labelRuns, publishedGaps, readProvenance, type Provenance } from './comparability.js';
import { DOMAINS, compareDomains, domainLabel } from '../domains.js';
import { fail } from '../errors.js';
import { Ratio, SIXTIETHS, doubleUnits, meanOf, normalizedFloat, officialScore } from './exact.js';
import { readJudged, type JudgedRecord, type JudgedVisitor, type TokenUsage } from './judged-reader.js';
import { PUBLISHED, type PublishedRow } from '../dataset/index.js';
import { DIMENSIONS } from '../schemas/index.js';

/** A mean in the making: `sum` sixtieths over `count` non-zero values; `units`, the same values as the official script's doubles (doubleUnits). */
export interface MeanStat {
  sum: number;
  count: number;
  units: bigint;
}

/** The 0-100 score of a mean as the official script prints it; undefined when no value counts. */
export function statScore(stat: MeanStat): Ratio | undefined {
  return officialScore(stat.units, stat.count);
}

export interface ScoreOptions {
  /** Score failed rows as the lowest grade (1 everywhere) instead of leaving them out. */
  failuresAsLowest: boolean;
}

export interface TurnBucket {
  label: string;
  min: number;
  max: number;
}

/** Doubling buckets: early turns one by one, then ever longer histories. */
export const TURN_BUCKETS: readonly TurnBucket[] = [
  { label: '1', min: 1, max: 1 },
  { label: '2', min: 2, max: 2 },
  { label: '3-4', min: 3, max: 4 },
  { label: '5-8', min: 5, max: 8 },
  { label: '9-16', min: 9, max: 16 },
  { label: '17+', min: 17, max: Infinity },
];

export function turnBucket(turn: number): number {
  return TURN_BUCKETS.findIndex((b) => turn >= b.min && turn <= b.max);
}

export interface TurnScore {
  bucket: string;
  rows: number;
  valid: number;
  total: MeanStat;
}

export interface DomainScore {
  domain: string;
  rows: number;
  valid: number;
  failed: number;
  /** In DIMENSIONS order. */
  dims: MeanStat[];
  total: MeanStat;
  /** Normalized 0-100 total as the official script prints it (statScore); undefined when no row counts. */
  score: Ratio | undefined;
  /** Turn buckets that have rows, in TURN_BUCKETS order. */
  turns: TurnScore[];
}

export interface RunScore {
  /** In leaderboard order. */
  domains: DomainScore[];
  rows: number;
  valid: number;
  failed: number;
  /** Mean of the domain scores: the published leaderboard's Overall. */
  macro: Ratio | undefined;
  /** Domains the macro mean averages (those with a score). */
  macroDomains: number;
  /** Mean over all counted rows' totals: the Overall the official script prints. */
  micro: MeanStat;
  /** All domains together, per turn bucket that has rows (micro: rows pooled). */
  turns: TurnScore[];
}

/**
 * The row's grades as they enter the means, or undefined when the row stays
 * out. Zeros inside a valid row mean "no score" and are skipped value by value.
 */
function countedScores(r: JudgedRecord, opts: ScoreOptions): { dims: readonly number[]; total: number } | undefined {
  if (!r.failed) return r;
  return opts.failuresAsLowest ? LOWEST : undefined;
}

const LOWEST = { dims: DIMENSIONS.map(() => SIXTIETHS), total: SIXTIETHS };

function add(stat: MeanStat, value: number): void {
  if (value !== 0) {
    stat.sum += value;
    stat.count += 1;
    stat.units += doubleUnits(value);
  }
}

const emptyStat = (): MeanStat => ({ sum: 0, count: 0, units: 0n });

/** The official aggregation, exactly: per domain, per dimension and total, zeros skipped, failed rows out (or at the lowest grade). */
export function aggregate(records: readonly JudgedRecord[], opts: ScoreOptions): RunScore {
  const byDomain = new Map<string, DomainScore & { buckets: TurnScore[] }>();
  const micro = emptyStat();
  const allBuckets = emptyBuckets();
  for (const r of records) {
    let d = byDomain.get(r.domain);
    if (!d) {
      d = {
        domain: r.domain,
        rows: 0,
        valid: 0,
        failed: 0,
        dims: DIMENSIONS.map(emptyStat),
        total: emptyStat(),
        score: undefined,
        turns: [],
        buckets: emptyBuckets(),
      };
      byDomain.set(r.domain, d);
    }
    const b = turnBucket(r.turn);
    const buckets = [d.buckets[b]!, allBuckets[b]!];
    d.rows++;
    for (const bucket of buckets) bucket.rows++;
    if (r.failed) d.failed++;
    else {
      d.valid++;
      for (const bucket of buckets) bucket.valid++;
    }
    const s = countedScores(r, opts);
    if (!s) continue;
    s.dims.forEach((v, i) => add(d.dims[i]!, v));
    add(d.total, s.total);
    for (const bucket of buckets) add(bucket.total, s.total);
    add(micro, s.total);
  }
  const domains = [...byDomain.values()]
    .sort((a, b) => compareDomains(a.domain, b.domain))
    .map(({ buckets, ...d }) => ({ ...d, score: statScore(d.total), turns: buckets.filter((b) => b.rows > 0) }));
  const scored = domains.flatMap((d) => (d.score ? [d.score] : []));
  return {
    domains,
    rows: records.length,
    valid: domains.reduce((n, d) => n + d.valid, 0),
    failed: domains.reduce((n, d) => n + d.failed, 0),
    macro: meanOf(scored),
    macroDomains: scored.length,
    micro,
    turns: allBuckets.filter((b) => b.rows > 0),
  };
}

const emptyBuckets = (): TurnScore[] => TURN_BUCKETS.map((b) => ({ bucket: b.label, rows: 0, valid: 0, total: emptyStat() }));

/** The key of the all-domains turn row in RunIntervals.turns. */
export const ALL_DOMAINS = '*';

/**
 * Per group (by default the domain), each trajectory's counted totals, in a
 * fixed order (sorted by trajectory) so resamples do not depend on file
 * order. Rows whose group is undefined stay out.
 */
export function clustersByDomain(
  records: readonly JudgedRecord[],
  opts: ScoreOptions,
  groupOf: (r: JudgedRecord) => string | undefined = (r) => r.domain,
): Map<string, Cluster[]> {
  const parts = records.flatMap((r) => {
    const group = groupOf(r);
    if (group === undefined) return [];
    // Trajectories whose rows all stay out are still drawn: they are part of what a rerun could produce.
    const s = countedScores(r, opts);
    const counted = s !== undefined && s.total !== 0;
    return [{ group, cluster: r.cluster, sum: counted ? s.total : 0, n: counted ? 1 : 0 }];
  });
  return groupClusters(parts);
}

export interface RunIntervals {
  domains: Map<string, Interval | undefined>;
  macro: Interval | undefined;
  micro: Interval | undefined;
  /** With --by turn: domain (or ALL_DOMAINS) → turn bucket label → interval. */
  turns: Map<string, Map<string, Interval | undefined>>;
}

/**
 * 95% percentile intervals of the normalized totals, resampling whole
 * trajectories within each domain. Macro: every domain resampled
 * independently, then averaged; micro: trajectories resampled across all
 * domains together, as its point estimate pools them.
 */
export function scoreIntervals(
  records: readonly JudgedRecord[],
  opts: ScoreOptions,
  settings: BootstrapSettings,
  byTurn = false,
): RunIntervals {
  const byDomain = clustersByDomain(records, opts);
  const stratified = stratifiedIntervals(byDomain, settings, normalizedFloat);
  const pooled = [...byDomain.values()].flat();
  return {
    domains: stratified.groups,
    macro: stratified.mean,
    micro: percentileInterval(bootstrapClusters(pooled, settings, 'pooled', normalizedFloat)),
    turns: byTurn ? turnIntervals(records, opts, settings) : new Map(),
  };
}

/**
 * Per domain and turn bucket, and per bucket over all domains: the turns of
 * a bucket resampled by trajectory (a trajectory's turns within the bucket
 * come in or stay out together).
 */
function turnIntervals(records: readonly JudgedRecord[], opts: ScoreOptions, settings: BootstrapSettings): RunIntervals['turns'] {
  const out: RunIntervals['turns'] = new Map();
  const label = (r: JudgedRecord): string => TURN_BUCKETS[turnBucket(r.turn)]!.label;
  const put = (scope: string, bucket: string, clusters: readonly Cluster[]): void => {
    let m = out.get(scope);
    if (!m) out.set(scope, (m = new Map()));
    const samples = bootstrapClusters(clusters, settings, `turn:${scope}:${bucket}`, normalizedFloat);
    m.set(bucket, percentileInterval(samples));
  };
  for (const [group, clusters] of clustersByDomain(records, opts, (r) => `${r.domain}\u0000${label(r)}`)) {
    const [domain, bucket] = group.split('\u0000') as [string, string];
    put(domain, bucket, clusters);
  }
  for (const [bucket, clusters] of clustersByDomain(records, opts, label)) put(ALL_DOMAINS, bucket, clusters);
  return out;
}

export interface UsageTotals extends TokenUsage {
  /** Rows that reported usage. */
  rows: number;
  cached: number;
  /** Rows that reported cached tokens: with none, the cache figures are unknown, not 0. */
  cachedRows: number;
  /** The part of the tokens the Batch API answered (--batch), cached ones included. */
  batch: { prompt: number; completion: number; cached: number };
}

export interface StageUsage {
  infer: UsageTotals;
  judge: UsageTotals;
}

export interface UsageSummary extends StageUsage {
  domains: Map<string, StageUsage>;
}

export interface StagePrices {
  /** USD per million prompt tokens. */
  input: number;
  /** USD per million completion tokens (reasoning tokens are part of them, as OpenAI-style usage counts them). */
  output: number;
  /** USD per million cached prompt tokens; unset, cached tokens cost the input price. */
  cachedInput?: number;
}

/** The world model (infer) and the judge are priced separately. */
export type Prices = Record<keyof StageUsage, StagePrices>;

const emptyUsage = (): UsageTotals => ({
  rows: 0,
  prompt: 0,
  completion: 0,
  reasoning: 0,
  cached: 0,
  cachedRows: 0,
  batch: { prompt: 0, completion: 0, cached: 0 },
});

function addUsage(t: UsageTotals, u: TokenUsage | undefined, batch: TokenUsage | undefined): void {
  if (!u) return;
  t.rows++;
  t.prompt += u.prompt;
  t.completion += u.completion;
  t.reasoning += u.reasoning;
  if (u.cached !== undefined) {
    t.cached += u.cached;
    t.cachedRows++;
  }
  t.batch.prompt += batch?.prompt ?? 0;
  t.batch.completion += batch?.completion ?? 0;
  t.batch.cached += batch?.cached ?? 0;
}

/** Token totals per stage, overall and per domain (every row, failed or not: they were paid for). */
export function usageOf(records: readonly JudgedRecord[]): UsageSummary {
  const summary: UsageSummary = { infer: emptyUsage(), judge: emptyUsage(), domains: new Map() };
  for (const r of records) {
    let d = summary.domains.get(r.domain);
    if (!d) summary.domains.set(r.domain, (d = { infer: emptyUsage(), judge: emptyUsage() }));
    addUsage(summary.infer, r.usage, r.batchUsage);
    addUsage(summary.judge, r.judgeUsage, r.judgeBatchUsage);
    addUsage(d.infer, r.usage, r.batchUsage);
    addUsage(d.judge, r.judgeUsage, r.judgeBatchUsage);
  }
  summary.domains = new Map([...summary.domains].sort(([a], [b]) => compareDomains(a, b)));
  return summary;
}

/** What the Batch API charges, as a share of the online price (OpenAI: half). */
export const BATCH_PRICE = 0.5;

/** Tokens at the stage's prices: cached prompt tokens at the cached price when one is given. */
function priced(prompt: number, cached: number, completion: number, prices: StagePrices): number {
  const atCachedPrice = prices.cachedInput === undefined ? 0 : Math.min(Math.max(cached, 0), prompt);
  return (prompt - atCachedPrice) * prices.input + atCachedPrice * (prices.cachedInput ?? 0) + completion * prices.output;
}

/** The cost of the tokens: the part answered online at the stage's prices, the part answered by the Batch API at its discount. */
export function costOf(t: UsageTotals, prices: StagePrices): number {
  const b = t.batch;
  const online = priced(t.prompt - b.prompt, t.cached - b.cached, t.completion - b.completion, prices);
  return (online + BATCH_PRICE * priced(b.prompt, b.cached, b.completion, prices)) / 1e6;
}

/** Cached prompt tokens over prompt tokens, or undefined when there were none or no row reported cached tokens. */
export function cacheHitRatio(t: UsageTotals): number | undefined {
  return t.prompt > 0 && t.cachedRows > 0 ? t.cached / t.prompt : undefined;
}

export function hasUsage(u: StageUsage): boolean {
  return u.infer.rows > 0 || u.judge.rows > 0;
}

export interface RunReport {
  file: string;
  label: string;
  provenance: Provenance;
  score: RunScore;
  intervals: RunIntervals | undefined;
  usage: UsageSummary;
  /** With --with-published: why the run cannot be compared with the published rows (empty: it can). */
  publishedGaps: string[];
}

export interface ScoreRequest extends ScoreOptions {
  files: readonly string[];
  /** Undefined: no intervals. */
  bootstrap: BootstrapSettings | undefined;
  withPublished: boolean;
  prices: Prices | undefined;
  byTurn: boolean;
}

export interface ScoreReport {
  runs: RunReport[];
  /** Column order: the union of the runs' domains (all seven with published rows), leaderboard order. */
  domains: string[];
  published: readonly PublishedRow[];
  failuresAsLowest: boolean;
  bootstrap: BootstrapSettings | undefined;
  byTurn: boolean;
  prices: Prices | undefined;
  /** Why the runs may not be comparable. */
  notes: string[];
  /** Problems that did not stop scoring (cut last lines, broken manifests). */
  warnings: string[];
}

/**
 * A run with a domain whose rows all failed, or whose valid rows all have a
 * total_score of 0 (hand-made rows): its Overall (macro) leaves that domain out.
 */
function partialOverallNote(r: RunReport): string[] {
  const unscored = r.score.domains.filter((d) => d.score === undefined);
  if (!unscored.length) return [];
  const which = unscored.length === 1 ? 'that domain' : 'those domains';
  // "no valid rows" beside a Valid column that counts some would contradict it.
  const what = unscored.some((d) => d.valid > 0) ? 'no valid rows with a total_score' : 'no valid rows';
  const names = unscored.map((d) => domainLabel(d.domain)).join(', ');
  return [
    `${r.label}: ${what} in ${names}, so its Overall leaves ${which} out (macro: ${r.score.macroDomains} of ${r.score.domains.length} domains)`,
  ];
}

/** Domains that are none of the seven (a typo in a hand-made `task`, say): each is a column, and each Overall averages it with the others. */
function otherDomainsNote(domains: readonly string[]): string[] {
  const others = domains.filter((d) => !(DOMAINS as readonly string[]).includes(d));
  if (!others.length) return [];
  const names = others.map((d) => `"${d}"`).join(', ');
  return [
    `${names} ${others.length === 1 ? 'is not an AgentWorldBench domain' : 'are not AgentWorldBench domains'} (${DOMAINS.join(', ')}), yet ${others.length === 1 ? 'it is' : 'they are'} scored as one and averaged into Overall`,
  ];
}

/**
 * Reads, aggregates and compares judged files: everything `awb score` prints.
 * `visit(i)` sees the records of req.files[i] with their lines as they are read.
 */
export async function scoreFiles(req: ScoreRequest, visit?: (file: number) => JudgedVisitor): Promise<ScoreReport> {
  const warnings: string[] = [];
  const loaded: Array<Omit<RunReport, 'label' | 'publishedGaps'>> = [];
  for (const [i, file] of req.files.entries()) {
    // A file of an earlier stage is refused with what to run next, never scored (not even at the lowest grade).
    const judged = await readJudged(file, visit?.(i));
    warnings.push(...judged.warnings);
    const score = aggregate(judged.records, req);
    const { provenance, warnings: manifestWarnings } = await readProvenance(file);
    // --failures-as-lowest scores failed rows (at the lowest grade): a file of failures then has a figure, 0.
    if (score.valid === 0 && !(req.failuresAsLowest && score.rows > 0)) {
      throw fail({ kind: 'no-valid-judged-rows', file, rows: score.rows });
    }
    warnings.push(...manifestWarnings);
    loaded.push({
      file,
      provenance,
      score,
      intervals: req.bootstrap ? scoreIntervals(judged.records, req, req.bootstrap, req.byTurn) : undefined,
      usage: usageOf(judged.records),
    });
  }
  const labels = labelRuns(loaded.map((r) => ({ file: r.file, model: r.provenance.model, label: r.provenance.label })));
  const compared = loaded.map((r, i) => ({
    label: labels[i]!,
    file: r.file,
    provenance: r.provenance,
    domains: r.score.domains.map((d) => d.domain),
    overall: r.score.domains.flatMap((d) => (d.score === undefined ? [] : [d.domain])),
    rows: Object.fromEntries(r.score.domains.map((d) => [d.domain, d.rows])),
  }));
  const withPublished = req.withPublished;
  const gaps = compared.map((c) => (withPublished ? publishedGaps(c) : []));
  const runs: RunReport[] = loaded.map((r, i) => ({ ...r, label: labels[i]!, publishedGaps: gaps[i]! }));
  const domains = new Set(runs.flatMap((r) => r.score.domains.map((d) => d.domain)));
  const published = withPublished ? PUBLISHED : [];
  if (published.length) for (const d of Object.keys(published[0]!.scores)) domains.add(d);
  const comparability = comparabilityNotes(compared, published.length ? { publishedGaps: gaps } : {});
  // Runs whose Overalls average different sets have the coverage note, which names each set; otherwise a run's own note says what its Overall leaves out.
  const partial = comparability.some((n) => n.kind === 'coverage') ? [] : runs.flatMap(partialOverallNote);
  const notes = [...comparability.map((n) => n.text), ...partial, ...otherDomainsNote([...domains])];
  return {
    runs,
    domains: [...domains].sort(compareDomains),
    published,
    failuresAsLowest: req.failuresAsLowest,
    bootstrap: req.bootstrap,
    byTurn: req.byTurn,
    prices: req.prices,
    notes,
    warnings,
  };
}

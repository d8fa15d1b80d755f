import type { BootstrapSettings } from './bootstrap.js';
import { memberCollector, memberRepeatsProbe, memberRun, type MemberRecords } from './by-judge.js';
import { comparabilityNotes, labelRuns, publishedGaps, readProvenance, type Provenance } from './ranking/index.js';
import { DOMAINS, compareDomains } from '../domains.js';
import type { PublishedGap, ScoreNotice, ScoreWarning } from './faults.js';
import { fail } from '../errors.js';
import { readJudged, type JudgedVisitor } from './readers/index.js';
import { PUBLISHED, type PublishedRow } from '../dataset/index.js';
import { aggregate, scoreIntervals, type RunIntervals, type RunScore, type ScoreOptions } from './aggregate.js';
import { usageOf, type Prices, type UsageSummary } from './usage.js';
import type { ModeScore } from './modes.js';
import { standings, type Standing } from './ranking/index.js';

export interface RunReport {
  file: string;
  label: string;
  provenance: Provenance;
  score: RunScore;
  intervals: RunIntervals | undefined;
  usage: UsageSummary;
  /** With --with-published: why the run cannot be compared with the published rows (empty: it can). */
  publishedGaps: PublishedGap[];
  /** Whether the leaderboard may rank it against the other runs, and why not. */
  standing: Standing;
  /** A panel member's run (--by-judge): the label of its panel's run. */
  memberOf?: string;
  /** --by-judge: each panel member's run, in the panel's order; empty for a file judged by one judge. */
  members?: RunReport[];
  /** --by-judge of a panel's --repeat file: the member's judge noise, as a file of its own --repeat judgements would give it. */
  noise?: ModeScore;
}

export interface ScoreRequest extends ScoreOptions {
  files: readonly string[];
  /** Undefined: no intervals. */
  bootstrap: BootstrapSettings | undefined;
  withPublished: boolean;
  prices: Prices | undefined;
  byTurn: boolean;
  /** Also score each panel member on its own, from the rows' `panel` (RunReport.members). */
  byJudge?: boolean;
}

export interface ScoreReport {
  runs: RunReport[];
  /** Column order: the union of the runs' domains (all seven with published rows), leaderboard order. */
  domains: string[];
  published: readonly PublishedRow[];
  failuresAsLowest: boolean;
  bootstrap: BootstrapSettings | undefined;
  byTurn: boolean;
  byJudge: boolean;
  prices: Prices | undefined;
  /** Why the runs may not be comparable, and what else the leaderboard notes, in the order it says them. */
  notes: ScoreNotice[];
  /** Problems that did not stop scoring (cut last lines, broken manifests). */
  warnings: ScoreWarning[];
}

/**
 * A run with a domain whose rows all failed, or whose valid rows all have a
 * total_score of 0 (hand-made rows): its Overall (macro) leaves that domain out.
 */
function partialOverallNote(r: RunReport): ScoreNotice[] {
  const unscored = r.score.domains.filter((d) => d.score === undefined);
  if (!unscored.length) return [];
  return [
    {
      kind: 'overall-partial',
      run: r.label,
      unscored: unscored.map((d) => d.domain),
      totals: unscored.some((d) => d.valid > 0),
      macroDomains: r.score.macroDomains,
      domains: r.score.domains.length,
    },
  ];
}

/** Domains that are none of the seven (a typo in a hand-made `task`, say): each is a column, and each Overall averages it with the others. */
function otherDomainsNote(domains: readonly string[]): ScoreNotice[] {
  const others = domains.filter((d) => !(DOMAINS as readonly string[]).includes(d));
  return others.length ? [{ kind: 'domains-unknown', domains: others }] : [];
}

/**
 * Reads, aggregates and compares judged files: everything `awb score` prints.
 * `visit(i)` sees the records of req.files[i] with their lines as they are read.
 */
export async function scoreFiles(req: ScoreRequest, visit?: (file: number) => JudgedVisitor): Promise<ScoreReport> {
  const warnings: ScoreWarning[] = [];
  const loaded: Array<Omit<RunReport, 'label' | 'publishedGaps' | 'standing' | 'members'> & { members?: MemberRecords[] }> = [];
  /** Per file, without --by-judge: K when its panel's members were asked K times each (memberRepeatsProbe). */
  const memberRepeats: Array<number | undefined> = [];
  for (const [i, file] of req.files.entries()) {
    const seen = visit?.(i);
    const members = req.byJudge ? memberCollector(file) : undefined;
    // Without --by-judge, one row's panel is read: whether its members were asked K times, for a note.
    const probe = members ? undefined : memberRepeatsProbe();
    const own = members?.visit ?? probe!.visit;
    // A file of an earlier stage is refused with what to run next, never scored (not even at the lowest grade).
    const judged = await readJudged(file, (record, line) => {
      seen?.(record, line);
      own(record, line);
    });
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
      members: members?.members(),
    });
    memberRepeats.push(probe?.repeats());
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
  const standing = standings(compared);
  const runs: RunReport[] = loaded.map(({ members, ...r }, i) => {
    const run = { ...r, label: labels[i]!, publishedGaps: gaps[i]!, standing: standing[i]! };
    const gapsOf = (provenance: Provenance) => (withPublished ? publishedGaps({ ...compared[i]!, provenance }) : []);
    return members ? { ...run, members: members.map((m) => memberRun(run, m, req, gapsOf)) } : run;
  });
  const domains = new Set(runs.flatMap((r) => r.score.domains.map((d) => d.domain)));
  const published = withPublished ? PUBLISHED : [];
  if (published.length) for (const d of Object.keys(published[0]!.scores)) domains.add(d);
  const comparability = comparabilityNotes(compared, published.length ? { publishedGaps: gaps } : {});
  // Runs whose Overalls average different sets have the coverage note, which names each set; otherwise a run's own note says what its Overall leaves out.
  const partial = comparability.some((n) => n.kind === 'domains-differ') ? [] : runs.flatMap(partialOverallNote);
  const repeated = memberRepeats.flatMap((k, i): ScoreNotice[] => (k ? [{ kind: 'member-repeats', run: labels[i]!, repeats: k }] : []));
  const notes = [...comparability, ...partial, ...otherDomainsNote([...domains]), ...repeated];
  return {
    runs,
    domains: [...domains].sort(compareDomains),
    published,
    failuresAsLowest: req.failuresAsLowest,
    bootstrap: req.bootstrap,
    byTurn: req.byTurn,
    byJudge: req.byJudge === true,
    prices: req.prices,
    notes,
    warnings,
  };
}

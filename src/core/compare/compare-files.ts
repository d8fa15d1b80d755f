import { sameFile } from '../files.js';
import { comparabilityNotes, isDifference, labelRuns, readProvenance, standings } from '../score/index.js';
import type { ComparabilityNote, Provenance, ScoreWarning, Standing } from '../score/index.js';
import type { CompareNotice, CompareWarning } from './faults.js';
import { canonicalDomains } from '../domains.js';
import { fail } from '../errors.js';
import { readJudged, type JudgedRecord } from '../score/index.js';
import { compareRecords, type CompareResult } from './compare.js';
import { applyGate, type GateOptions, type GateResult, type Incomplete } from './gate.js';

export interface ComparedSide {
  file: string;
  label: string;
  provenance: Provenance;
  /** Its rows compared: those of the domains asked for, if any. */
  rows: number;
  /** Whether it is complete and judged as the baseline was (the candidate's standing is relative to the baseline's). */
  standing: Standing;
}

export interface CompareReport {
  baseline: ComparedSide;
  candidate: ComparedSide;
  /** The domains asked for (--domains), in leaderboard order; undefined: every domain of the runs. */
  domains: string[] | undefined;
  result: CompareResult;
  gate: GateResult | undefined;
  /** Why the runs may not be comparable, then rows left out of the deltas. */
  notes: Array<ComparabilityNote | CompareNotice>;
  /** Problems that did not stop comparing (cut last lines, broken manifests, a file compared with itself). */
  warnings: Array<ScoreWarning | CompareWarning>;
}

export interface CompareOptions {
  /** --fail-below and what the gate may let pass; undefined: no gate. */
  gate: GateOptions | undefined;
  /** How many most-changed rows to list. */
  rows?: number;
  /** Compare only these domains (canonical, as parseDomainList gives them): the other rows are left out of everything. */
  domains?: string[];
}

/** Reads two judged files and compares them: everything `awb compare` prints. */
export async function compareFiles(baselineFile: string, candidateFile: string, opts: CompareOptions): Promise<CompareReport> {
  const [baseRead, candRead] = [await readJudged(baselineFile), await readJudged(candidateFile)];
  // Said of the file itself, as score says it, rather than as "no rows in common".
  for (const [file, read] of [
    [baselineFile, baseRead],
    [candidateFile, candRead],
  ] as const) {
    if (read.mode === 'turing' || read.mode === 'pairwise') throw fail({ kind: 'choice-file-has-no-grades', file, mode: read.mode });
    if (read.records.length === 0) throw fail({ kind: 'judged-file-empty', file });
  }
  const base = selectDomains(baseRead.records, opts.domains);
  const cand = selectDomains(candRead.records, opts.domains);
  if (opts.domains) {
    const has = domainsOf([...baseRead.records, ...candRead.records]);
    const absent = opts.domains.filter((d) => !has.includes(d));
    if (absent.length)
      throw fail({ kind: 'domains-in-neither-run', domains: absent, baseline: baselineFile, candidate: candidateFile, has });
  }
  const warnings: CompareReport['warnings'] = [...baseRead.warnings, ...candRead.warnings];
  // A CI job wired to the wrong path would otherwise pass its gate for ever.
  if (await sameFile(baselineFile, candidateFile)) {
    warnings.push({ kind: 'compared-with-itself', baseline: baselineFile, candidate: candidateFile });
  }
  const result = compareRecords(base, cand, { rows: opts.rows });
  const { used, paired, baselineFailed: failedBase, candidateFailed: failedCand } = result.overall;
  if (used === 0) {
    const files = { baseline: baselineFile, candidate: candidateFile, domains: opts.domains };
    throw fail(paired === 0 ? { kind: 'no-rows-in-common', ...files } : { kind: 'no-valid-rows-in-common', ...files, paired });
  }
  const prov = [await readProvenance(baselineFile), await readProvenance(candidateFile)];
  for (const p of prov) warnings.push(...p.warnings);
  const [pb, pc] = [prov[0]!.provenance, prov[1]!.provenance];
  const [lb, lc] = labelRuns([
    { file: baselineFile, model: pb.model, label: pb.label },
    { file: candidateFile, model: pc.model, label: pc.label },
  ]);
  const sides = [
    { label: lb!, file: baselineFile, provenance: pb, domains: domainsOf(base), rows: rowsByDomain(base) },
    { label: lc!, file: candidateFile, provenance: pc, domains: domainsOf(cand), rows: rowsByDomain(cand) },
  ];
  // The pairing already reports rows present on one side only.
  const checked = comparabilityNotes(sides, { coverage: false });
  const [sb, sc] = standings(sides);
  const notes: CompareReport['notes'] = [...checked];
  for (const [side, u] of [
    [lb!, result.onlyBaseline],
    [lc!, result.onlyCandidate],
  ] as const) {
    if (u.count) notes.push({ kind: 'rows-only-in', run: side, count: u.count, examples: [...u.examples] });
  }
  if (failedBase || failedCand) {
    const [baseline, candidate] = [
      { run: lb!, failed: failedBase },
      { run: lc!, failed: failedCand },
    ];
    notes.push({ kind: 'paired-rows-failed', baseline, candidate, used, paired });
  }
  const incomplete: Incomplete[] = [];
  if (result.onlyBaseline.count) {
    const emptyDomains = domainsOf(base).filter((d) => !cand.some((r) => r.domain === d));
    incomplete.push({ code: 'incomplete', cause: 'missing-rows', rows: result.onlyBaseline.count, emptyDomains });
  }
  if (pc.complete === false) incomplete.push({ code: 'incomplete', cause: 'unfinished' });
  // Rows the candidate failed (no generation, no parsable judgement) drop out of the pairs: a domain could lose
  // most of them and still pass; with all of them it has no delta that a test could see fall.
  for (const d of result.domains) {
    const unreadable = d.candidateLost - d.candidateUngenerated - d.candidateRequestFailed;
    if (d.candidateUngenerated) {
      incomplete.push({ code: 'incomplete', cause: 'no-generation', domain: d.domain, rows: d.candidateUngenerated, paired: d.paired });
    }
    if (d.candidateRequestFailed) {
      const rows = d.candidateRequestFailed;
      incomplete.push({ code: 'judge-failures', cause: 'request-failed', domain: d.domain, rows, paired: d.paired });
    }
    if (unreadable) incomplete.push({ code: 'judge-failures', cause: 'unreadable', domain: d.domain, rows: unreadable, paired: d.paired });
  }
  const incomparable = checked.filter(isDifference);
  return {
    baseline: { file: baselineFile, label: lb!, provenance: pb, rows: base.length, standing: sb! },
    candidate: { file: candidateFile, label: lc!, provenance: pc, rows: cand.length, standing: sc! },
    domains: opts.domains,
    result,
    gate: opts.gate && applyGate(result, { ...opts.gate, domains: opts.domains }, { incomplete, incomparable }),
    notes,
    warnings,
  };
}

function selectDomains(records: readonly JudgedRecord[], domains: readonly string[] | undefined): readonly JudgedRecord[] {
  if (!domains) return records;
  const keep = new Set(domains);
  return records.filter((r) => keep.has(r.domain));
}

function rowsByDomain(records: readonly JudgedRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) out[r.domain] = (out[r.domain] ?? 0) + 1;
  return out;
}

function domainsOf(records: readonly JudgedRecord[]): string[] {
  return canonicalDomains(records.map((r) => r.domain));
}

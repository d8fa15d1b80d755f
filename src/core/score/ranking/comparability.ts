import { basename, resolve, sep } from 'node:path';
import { DATASET_REPO, DOMAINS, PUBLISHED_ROW_COUNTS } from '../../domains.js';
import { PUBLISHED_JUDGE, sameData } from '../../dataset/index.js';
import { FaultError } from '../../errors.js';
import { readJsonFile } from '../../files.js';
import { loadRubrics } from '../../rubrics/index.js';
import { manifestPathFor, manifestSchema, type Manifest } from '../../schemas/index.js';
import type { CheckedSetting, ComparabilityNote, MixedResume, PublishedGap, ScoreWarning } from '../faults.js';

export type { ComparabilityNote } from '../faults.js';

/** What a judged file's sidecar manifest says produced it; every field is unknown without one. */
export interface Provenance {
  manifest: 'found' | 'missing' | 'invalid';
  /** The world model that wrote the predictions. */
  model?: string;
  /** The run's name (--label) from the judged manifest, else from the predictions'. */
  label?: string;
  judge?: string;
  rubricsSha256?: string;
  /** domain → hash of its rubric (manifests written since rubrics were identified per domain). */
  rubricsByDomain?: Record<string, string>;
  /** 'bundled', or the folder the rubrics came from. */
  rubricsSource?: string;
  rubricsLayout?: 'awb' | 'official';
  judgeTemperature?: number;
  judgeMaxTokens?: number;
  datasetRepo?: string;
  history?: string;
  /** Free-running horizon of the predictions (infer --horizon): '0' for a teacher-forced run with a manifest. */
  horizon?: string;
  datasetCommit?: string;
  /** domain → SHA-256 of the dataset file: the same files from either hub are the same data. */
  datasetSha256?: Record<string, string>;
  datasetRevision?: string;
  /** False when the manifest says the run stopped before every row was done. */
  complete?: boolean;
  /** The rows the run set out to do (the manifests' counts, the predictions' when larger): what an incomplete run is short of. */
  expectedRows?: number;
  /** The same per domain. */
  expectedByDomain?: Record<string, number>;
  /** What differed at each forced resume that mixed runs into the file or its predictions (the manifests' `mixed`). */
  mixed?: MixedResume[];
}

/** Reads `<file>.manifest.json` if there is one; a broken manifest is a warning, never a reason to refuse scoring. */
export async function readProvenance(file: string): Promise<{ provenance: Provenance; warnings: ScoreWarning[] }> {
  const path = manifestPathFor(file);
  let manifest: Manifest | undefined;
  try {
    manifest = await readJsonFile(path, manifestSchema, 'provenance');
  } catch (err) {
    const warning = unreadable(err);
    if (warning !== undefined) return { provenance: { manifest: 'invalid' }, warnings: [warning] };
    throw err;
  }
  if (!manifest) return { provenance: { manifest: 'missing' }, warnings: [] };
  const out = provenanceOf(manifest, path);
  out.provenance.rubricsByDomain ??= await bundledPerDomain(manifest);
  return out;
}

/**
 * Files judged before rubrics were hashed per domain recorded only the set's
 * hash. When that is the hash of the bundled rubrics over the manifest's
 * domains, each domain's rubric is known to be the bundled one.
 */
async function bundledPerDomain(manifest: Manifest): Promise<Record<string, string> | undefined> {
  const r = manifest.stage === 'judge' ? manifest.settings.rubrics : undefined;
  if (r?.source !== 'bundled') return undefined;
  try {
    const bundled = await loadRubrics(undefined, manifest.dataset.domains);
    return bundled.sha256 === r.sha256 ? bundled.perDomain : undefined;
  } catch {
    return undefined; // a domain the bundled set lacks: the recorded set cannot be the bundled one
  }
}

/** What keeps a manifest from being read (readJsonFile's faults), as the warning; undefined for any other error. */
function unreadable(err: unknown): ScoreWarning | undefined {
  const f = err instanceof FaultError ? err.fault : undefined;
  if (f?.kind === 'json-file-not-json') return { kind: 'manifest-not-json', path: f.path };
  if (f?.kind === 'json-file-invalid') return { kind: 'manifest-invalid', path: f.path, field: f.field, problem: f.problem };
  if (f?.kind === 'file-error') return { kind: 'manifest-unreadable', path: f.path, reason: f.code };
  if (f?.kind === 'file-unreadable') return { kind: 'manifest-unreadable', path: f.path, reason: f.reason };
  return undefined;
}

/** The schema's first issue: the field's path ('' for the whole manifest) and its words. */
function issueOf(issue: { path: PropertyKey[]; message: string } | undefined): { field?: string; problem?: string } {
  return issue ? { field: issue.path.map(String).join('.'), problem: issue.message.replace(/^Invalid input: /, '') } : {};
}

/** Provenance from a judged manifest and the predictions manifest it carries as `upstream`. */
function provenanceOf(manifest: Manifest, path: string): { provenance: Provenance; warnings: ScoreWarning[] } {
  const warnings: ScoreWarning[] = [];
  let infer: Manifest | undefined;
  if (manifest.stage === 'infer') {
    warnings.push({ kind: 'manifest-of-predictions', path });
    infer = manifest;
  } else if (manifest.upstream !== undefined) {
    const up = manifestSchema.safeParse(manifest.upstream);
    if (up.success) infer = up.data;
    else warnings.push({ kind: 'manifest-upstream-invalid', path, ...issueOf(up.error.issues[0]) });
  }
  const judged = manifest.stage === 'judge' ? manifest : undefined;
  return {
    provenance: {
      manifest: 'found',
      model: infer?.settings.world_model?.model ?? manifest.settings.world_model?.model,
      label: manifest.label ?? infer?.label,
      judge: judged?.settings.judge?.model,
      rubricsSha256: judged?.settings.rubrics?.sha256,
      rubricsByDomain: judged?.settings.rubrics?.domains,
      rubricsSource: judged?.settings.rubrics?.source,
      rubricsLayout: judged?.settings.rubrics?.layout,
      judgeTemperature: judged?.settings.judge_sampling?.temperature,
      judgeMaxTokens: judged?.settings.judge_sampling?.max_tokens,
      datasetRepo: infer?.dataset.repo ?? manifest.dataset.repo,
      history: infer?.settings.history ?? manifest.settings.history,
      horizon: String(infer?.settings.horizon ?? manifest.settings.horizon ?? 0),
      datasetCommit: infer?.dataset.commit ?? manifest.dataset.commit,
      datasetSha256: infer?.dataset.sha256 ?? manifest.dataset.sha256,
      datasetRevision: infer?.dataset.revision ?? manifest.dataset.revision,
      complete: manifest.complete && (infer?.complete ?? true),
      ...expectedOf(manifest, infer),
      mixed: mixedOf(judged, infer),
    },
    warnings,
  };
}

/** The rows the run set out to do: each manifest's counts, the larger where both (a judge run of unfinished predictions). */
function expectedOf(manifest: Manifest, infer: Manifest | undefined): Pick<Provenance, 'expectedRows' | 'expectedByDomain'> {
  const counts = [manifest.counts, ...(infer && infer !== manifest ? [infer.counts] : [])];
  const byDomain: Record<string, number> = {};
  for (const c of counts) for (const [d, n] of Object.entries(c.per_domain)) byDomain[d] = Math.max(byDomain[d] ?? 0, n.total);
  return { expectedRows: Math.max(...counts.map((c) => c.total)), expectedByDomain: byDomain };
}

function mixedOf(judged: Manifest | undefined, infer: Manifest | undefined): MixedResume[] | undefined {
  const mixed = [
    ...(judged?.mixed ?? []).map((m): MixedResume => ({ stage: 'judge', reason: m.reason })),
    ...(infer?.mixed ?? []).map((m): MixedResume => ({ stage: 'infer', reason: m.reason })),
  ];
  return mixed.length ? mixed : undefined;
}

/**
 * Row labels for a leaderboard: the run's --label, else the world model's
 * name when the manifest has it, else the file name. Equal labels get the shortest trailing part
 * of their paths that tells them apart (runs often all end in judged.jsonl).
 */
export function labelRuns(runs: ReadonlyArray<{ file: string; model?: string; label?: string }>): string[] {
  const base = runs.map((r) => r.label ?? r.model ?? basename(r.file));
  const labels = [...base];
  const groups = new Map<string, number[]>();
  base.forEach((b, i) => groups.set(b, [...(groups.get(b) ?? []), i]));
  for (const [name, members] of groups) {
    if (members.length < 2) continue;
    const parts = members.map((i) => resolve(runs[i]!.file).split(sep).filter(Boolean));
    const longest = Math.max(...parts.map((p) => p.length));
    let suffixes = parts.map((p) => p.join('/'));
    for (let k = 1; k <= longest; k++) {
      const trial = parts.map((p) => p.slice(-k).join('/'));
      if (new Set(trial).size === trial.length) {
        suffixes = trial;
        break;
      }
    }
    const distinct = new Set(suffixes).size === suffixes.length;
    members.forEach((i, j) => {
      const suffix = distinct ? suffixes[j]! : `#${j + 1}`;
      labels[i] = runs[i]!.label === undefined && runs[i]!.model === undefined && distinct ? suffix : `${name} (${suffix})`;
    });
  }
  return labels;
}

export interface ComparedRun {
  label: string;
  /** The judged file, named by the notes about the file itself. */
  file?: string;
  provenance: Provenance;
  /** Domains the run has rows for. */
  domains: readonly string[];
  /** Domains its Overall averages (those with a score); when given, the coverage note compares these. */
  overall?: readonly string[];
  /** Rows per domain (for the published-split check). */
  rows?: Readonly<Record<string, number>>;
}

/** The notes a comparison acts on: a setting known to differ (the gate fails on these, drift refuses nothing). */
export function isDifference(n: ComparabilityNote): boolean {
  return n.kind === 'run-mixes-settings' || n.kind === 'setting-differs' || n.kind === 'rubrics-differ';
}

/** Settings checked one value per run, in the order notes list them; `rubrics` marks where the per-domain rubric check goes. */
const CHECKED: ReadonlyArray<{ field: keyof Provenance; setting: CheckedSetting } | 'rubrics' | 'dataset'> = [
  { field: 'judge', setting: 'judge' },
  'rubrics',
  { field: 'history', setting: 'history' },
  { field: 'horizon', setting: 'horizon' },
  'dataset',
  { field: 'datasetRevision', setting: 'dataset-revision' },
];

/** The published judge's sampling (the official script's defaults). */
const PUBLISHED_SAMPLING = { temperature: 0.6, maxTokens: 32768 };

/**
 * Why numbers side by side may not be comparable, as data. Differences in
 * the world model are the point of a comparison and are not listed;
 * everything else that changes scores is.
 */
export function comparabilityNotes(
  runs: readonly ComparedRun[],
  /** publishedGaps: each run's gaps (publishedGaps), in run order, when compared with the published rows. */
  opts: { publishedGaps?: ReadonlyArray<readonly PublishedGap[]>; coverage?: boolean } = {},
): ComparabilityNote[] {
  const notes: ComparabilityNote[] = [];
  for (const r of runs) {
    if (r.provenance.complete === false) notes.push({ kind: 'run-incomplete', run: r.label });
    if (r.provenance.mixed) {
      const file = r.file !== undefined && r.file !== r.label ? { file: r.file } : {};
      notes.push({ kind: 'run-mixes-settings', run: r.label, ...file, mixed: r.provenance.mixed });
    }
  }
  if (runs.length >= 2) {
    const unknown = runs.filter((r) => r.provenance.manifest !== 'found');
    if (unknown.length) notes.push({ kind: 'provenance-unknown', runs: names(unknown) });
    const known = runs.filter((r) => r.provenance.manifest === 'found');
    for (const c of CHECKED) {
      if (c === 'rubrics') notes.push(...rubricNotes(known));
      else if (c === 'dataset') {
        const setting = known.every((r) => r.provenance.datasetCommit !== undefined) ? 'dataset-commit' : 'dataset-hashes';
        notes.push(...fieldNotes(known, setting, dataGroups(known)));
      }
      // The same data under another branch name (main on Hugging Face, master on ModelScope) is no difference.
      else if (c.field === 'datasetRevision' && new Set(known.map(dataGroups(known))).size === 1) continue;
      else notes.push(...fieldNotes(known, c.setting, (r) => r.provenance[c.field]));
    }
    const coverage = new Map<string, { domains: string[]; runs: ComparedRun[] }>();
    for (const r of opts.coverage === false ? [] : runs) {
      const domains = [...(r.overall ?? r.domains)];
      const k = domainsKey(domains);
      coverage.set(k, { domains, runs: [...(coverage.get(k)?.runs ?? []), r] });
    }
    if (coverage.size > 1) {
      notes.push({ kind: 'domains-differ', sets: [...coverage.values()].map((s) => ({ domains: s.domains, runs: names(s.runs) })) });
    }
  }
  if (opts.publishedGaps) {
    for (const [i, r] of runs.entries()) {
      const gaps = opts.publishedGaps[i]!;
      if (gaps.length) notes.push({ kind: 'published-incomparable', run: r.label, gaps: [...gaps] });
    }
  }
  return notes;
}

/**
 * Each run's data, named by the commit of the first run holding the same
 * data (see sameData), so runs of the same files from either hub count as
 * one value; undefined when neither commit nor hashes are known.
 */
export function dataGroups(runs: readonly ComparedRun[]): (r: ComparedRun) => string | undefined {
  const id = (r: ComparedRun) => ({ commit: r.provenance.datasetCommit, sha256: r.provenance.datasetSha256 });
  const known = runs.filter((r) => r.provenance.datasetCommit !== undefined || r.provenance.datasetSha256 !== undefined);
  return (r) => {
    if (!known.includes(r)) return undefined;
    const first = known.find((k) => sameData(id(k), id(r)))!;
    // Data known only by its hashes (no commit) is named by them: two different sets must not share one name.
    const hashes = first.provenance.datasetSha256!;
    return (
      first.provenance.datasetCommit ??
      Object.keys(hashes)
        .sort()
        .map((d) => hashes[d])
        .join(',')
    );
  };
}

/** Notes for one setting: known values that differ, or runs where it is unknown beside runs where it is known. */
function fieldNotes(runs: readonly ComparedRun[], setting: CheckedSetting, value: (r: ComparedRun) => unknown): ComparabilityNote[] {
  const byValue = new Map<string, ComparedRun[]>();
  for (const r of runs) {
    const v = value(r);
    const k = v === undefined ? '' : String(v);
    byValue.set(k, [...(byValue.get(k) ?? []), r]);
  }
  const values = [...byValue.keys()].filter((k) => k !== '');
  const missing = byValue.get('') ?? [];
  if (values.length >= 2) {
    const all = [...byValue].map(([v, rs]) => ({ ...(v === '' ? {} : { value: v }), runs: names(rs) }));
    return [{ kind: 'setting-differs', setting, values: all }];
  }
  if (values.length === 1 && missing.length) return [{ kind: 'setting-unknown', setting, runs: names(missing) }];
  return [];
}

/**
 * Rubrics compare domain by domain on the domains runs share, so the same
 * rubrics over fewer domains are no difference. A manifest without
 * per-domain hashes (older files) is compared by its set hash, which only
 * means something between runs over the same domains.
 */
function rubricNotes(runs: readonly ComparedRun[]): ComparabilityNote[] {
  const perDomain = runs.filter((r) => r.provenance.rubricsByDomain);
  const setOnly = runs.filter((r) => !r.provenance.rubricsByDomain);
  const notes: ComparabilityNote[] = [];
  const differing: Array<{ domain: string; values: Array<{ hash: string; runs: string[] }> }> = [];
  const domains = [...new Set(perDomain.flatMap((r) => r.domains))].sort();
  for (const d of domains) {
    const sharing = perDomain.filter((r) => r.domains.includes(d) && r.provenance.rubricsByDomain![d] !== undefined);
    const byHash = new Map<string, ComparedRun[]>();
    for (const r of sharing) {
      const h = r.provenance.rubricsByDomain![d]!;
      byHash.set(h, [...(byHash.get(h) ?? []), r]);
    }
    if (byHash.size > 1) differing.push({ domain: d, values: [...byHash].map(([hash, rs]) => ({ hash, runs: names(rs) })) });
  }
  if (differing.length) notes.push({ kind: 'rubrics-differ', domains: differing });
  if (setOnly.length) {
    const sameDomains = new Set(runs.map((r) => domainsKey(r.domains))).size === 1;
    if (sameDomains && !perDomain.length) notes.push(...fieldNotes(setOnly, 'rubrics-set', (r) => r.provenance.rubricsSha256));
    else if (runs.length > setOnly.length || !sameDomains) notes.push({ kind: 'rubrics-per-domain-unknown', runs: names(setOnly) });
  }
  return notes;
}

/**
 * What keeps a run from being compared with the published numbers: the
 * official rubrics, the full published split at a known revision, the
 * published judge and its sampling, and the full-history protocol.
 */
export function publishedGaps(r: ComparedRun): PublishedGap[] {
  const p = r.provenance;
  if (p.manifest !== 'found') return [{ kind: 'no-manifest' }];
  const gaps: PublishedGap[] = [];
  if (p.mixed) gaps.push({ kind: 'mixed-settings' });
  if (p.rubricsLayout !== 'official') {
    gaps.push({
      kind: 'rubrics',
      ...(p.rubricsSource !== undefined ? { source: p.rubricsSource } : {}),
      ...(p.rubricsLayout !== undefined ? { layout: p.rubricsLayout } : {}),
    });
  }
  const rows = r.rows ?? {};
  const short = DOMAINS.filter((d) => (rows[d] ?? 0) !== PUBLISHED_ROW_COUNTS[d]);
  const published = Object.values(PUBLISHED_ROW_COUNTS).reduce((a, b) => a + b, 0);
  const had = DOMAINS.reduce((n, d) => n + (rows[d] ?? 0), 0);
  if (short.length || Object.keys(rows).some((d) => !(DOMAINS as readonly string[]).includes(d)))
    gaps.push({ kind: 'rows', had, published, short });
  if (p.datasetRepo !== DATASET_REPO || !p.datasetCommit)
    gaps.push({ kind: 'dataset-source', ...(p.datasetRepo && p.datasetRepo !== DATASET_REPO ? { repo: p.datasetRepo } : {}) });
  if (p.judge !== PUBLISHED_JUDGE)
    gaps.push({ kind: 'judge', ...(p.judge !== undefined ? { judge: p.judge } : {}), published: PUBLISHED_JUDGE });
  else if (p.judgeTemperature !== PUBLISHED_SAMPLING.temperature || p.judgeMaxTokens !== PUBLISHED_SAMPLING.maxTokens)
    gaps.push({
      kind: 'judge-sampling',
      ...(p.judgeTemperature !== undefined ? { temperature: p.judgeTemperature } : {}),
      ...(p.judgeMaxTokens !== undefined ? { maxTokens: p.judgeMaxTokens } : {}),
      published: PUBLISHED_SAMPLING,
    });
  if (p.history !== 'full') gaps.push({ kind: 'history', ...(p.history !== undefined ? { history: p.history } : {}) });
  if (p.horizon !== undefined && p.horizon !== '0') gaps.push({ kind: 'horizon', horizon: p.horizon });
  return gaps;
}

/** Runs over the same domains share a key: all seven in any order, else the same list. */
function domainsKey(domains: readonly string[]): string {
  return DOMAINS.every((d) => domains.includes(d)) && domains.length === DOMAINS.length ? 'all' : domains.join(',');
}

function names(runs: readonly ComparedRun[]): string[] {
  return runs.map((r) => r.label);
}

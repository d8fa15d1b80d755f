import { readFile } from 'node:fs/promises';
import { basename, resolve, sep } from 'node:path';
import { DOMAINS } from '../domains.js';
import { PUBLISHED_JUDGE } from '../dataset/index.js';
import { manifestPathFor, manifestSchema, type Manifest } from '../schemas/index.js';

/** What a judged file's sidecar manifest says produced it; every field is unknown without one. */
export interface Provenance {
  manifest: 'found' | 'missing' | 'invalid';
  /** The world model that wrote the predictions. */
  model?: string;
  judge?: string;
  rubricsSha256?: string;
  history?: string;
  datasetCommit?: string;
  datasetRevision?: string;
  /** False when the manifest says the run stopped before every row was done. */
  complete?: boolean;
}

/** Reads `<file>.manifest.json` if there is one; a broken manifest is a warning, never a reason to refuse scoring. */
export async function readProvenance(file: string): Promise<{ provenance: Provenance; warnings: string[] }> {
  const path = manifestPathFor(file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { provenance: { manifest: 'missing' }, warnings: [] };
    return invalid(`${path}: cannot be read (${(err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return invalid(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) return invalid(`${path}: ${issueText(parsed.error.issues[0])}`);
  return provenanceOf(parsed.data, path);
}

function invalid(problem: string): { provenance: Provenance; warnings: string[] } {
  return { provenance: { manifest: 'invalid' }, warnings: [`${problem}; its provenance counts as unknown`] };
}

function issueText(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'invalid manifest';
  return `${issue.path.map(String).join('.') || 'manifest'}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/** Provenance from a judged manifest and the predictions manifest it carries as `upstream`. */
function provenanceOf(manifest: Manifest, path = 'manifest'): { provenance: Provenance; warnings: string[] } {
  const warnings: string[] = [];
  let infer: Manifest | undefined;
  if (manifest.stage === 'infer') {
    warnings.push(`${path}: is the manifest of a predictions file (stage "infer"), not of a judged file; judge and rubrics are unknown`);
    infer = manifest;
  } else if (manifest.upstream !== undefined) {
    const up = manifestSchema.safeParse(manifest.upstream);
    if (up.success) infer = up.data;
    else warnings.push(`${path}: upstream: ${issueText(up.error.issues[0])}; the predictions' settings count as unknown`);
  }
  const judged = manifest.stage === 'judge' ? manifest : undefined;
  return {
    provenance: {
      manifest: 'found',
      model: infer?.settings.world_model?.model ?? manifest.settings.world_model?.model,
      judge: judged?.settings.judge?.model,
      rubricsSha256: judged?.settings.rubrics?.sha256,
      history: infer?.settings.history ?? manifest.settings.history,
      datasetCommit: infer?.dataset.commit ?? manifest.dataset.commit,
      datasetRevision: infer?.dataset.revision ?? manifest.dataset.revision,
      complete: manifest.complete && (infer?.complete ?? true),
    },
    warnings,
  };
}

/**
 * Row labels for a leaderboard: the world model's name when the manifest
 * has it, else the file name. Equal labels get the shortest trailing part
 * of their paths that tells them apart (runs often all end in judged.jsonl).
 */
export function labelRuns(runs: ReadonlyArray<{ file: string; model?: string }>): string[] {
  const base = runs.map((r) => r.model ?? basename(r.file));
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
      labels[i] = runs[i]!.model === undefined && distinct ? suffix : `${name} (${suffix})`;
    });
  }
  return labels;
}

export interface ComparedRun {
  label: string;
  provenance: Provenance;
  /** Domains the run has rows for. */
  domains: readonly string[];
}

const CHECKED: ReadonlyArray<{ field: keyof Provenance; what: string }> = [
  { field: 'judge', what: 'judge' },
  { field: 'rubricsSha256', what: 'rubrics (sha256)' },
  { field: 'history', what: 'history protocol' },
  { field: 'datasetCommit', what: 'dataset commit' },
  { field: 'datasetRevision', what: 'dataset revision' },
];

/**
 * Plain-language reasons why numbers side by side may not be comparable.
 * Differences in the world model are the point of a comparison and are not
 * listed; everything else that changes scores is.
 */
export function comparabilityNotes(runs: readonly ComparedRun[], opts: { published?: boolean; coverage?: boolean } = {}): string[] {
  const notes: string[] = [];
  for (const r of runs) {
    if (r.provenance.complete === false)
      notes.push(`${r.label}: the manifest says the run is incomplete; missing rows are not in its scores`);
  }
  if (runs.length >= 2) {
    const unknown = runs.filter((r) => r.provenance.manifest !== 'found');
    if (unknown.length) {
      notes.push(
        `not known to be comparable: no usable manifest for ${names(unknown)} (unknown provenance, e.g. the official script's files), so judge, rubrics, history protocol and dataset cannot be checked`,
      );
    }
    const known = runs.filter((r) => r.provenance.manifest === 'found');
    for (const { field, what } of CHECKED) {
      const byValue = new Map<string, ComparedRun[]>();
      for (const r of known) {
        const v = r.provenance[field];
        const k = v === undefined ? '' : String(v);
        byValue.set(k, [...(byValue.get(k) ?? []), r]);
      }
      const values = [...byValue.keys()].filter((k) => k !== '');
      const missing = byValue.get('') ?? [];
      if (values.length >= 2) {
        const parts = [...byValue].map(([v, rs]) => `${v === '' ? 'unknown' : short(field, v)} in ${names(rs)}`);
        notes.push(`not comparable: ${what} differs (${parts.join('; ')})`);
      } else if (values.length === 1 && missing.length) {
        notes.push(`cannot check ${what}: unknown in ${names(missing)}`);
      }
    }
    const coverage = new Map<string, ComparedRun[]>();
    for (const r of opts.coverage === false ? [] : runs) {
      const k = coverageText(r.domains);
      coverage.set(k, [...(coverage.get(k) ?? []), r]);
    }
    if (coverage.size > 1) {
      const parts = [...coverage].map(([k, rs]) => `${k || 'none'} in ${names(rs)}`);
      notes.push(`not comparable: domains differ, so Overall averages different sets (${parts.join('; ')})`);
    }
  }
  if (opts.published) {
    const byJudge = new Map<string, ComparedRun[]>();
    for (const r of runs) {
      if (r.provenance.judge === PUBLISHED_JUDGE) continue;
      const k = r.provenance.judge ?? 'unknown';
      byJudge.set(k, [...(byJudge.get(k) ?? []), r]);
    }
    if (byJudge.size) {
      const parts = [...byJudge].map(([judge, rs]) => `${judge} in ${names(rs)}`);
      notes.push(`not comparable with the published rows: their judge is ${PUBLISHED_JUDGE}, the runs' judge is ${parts.join('; ')}`);
    }
    const partial = runs.filter((r) => DOMAINS.some((d) => !r.domains.includes(d)));
    if (partial.length) {
      const covered = partial.map((r) => `${r.label} has ${DOMAINS.filter((d) => r.domains.includes(d)).length} of 7`);
      notes.push(`the published Overall averages all seven domains; ${covered.join(', ')}, so its Overall is not comparable with theirs`);
    }
  }
  return notes;
}

function coverageText(domains: readonly string[]): string {
  const all = DOMAINS.every((d) => domains.includes(d)) && domains.length === DOMAINS.length;
  return all ? 'all seven' : domains.join(', ');
}

function names(runs: readonly ComparedRun[]): string {
  return runs.map((r) => r.label).join(', ');
}

function short(field: keyof Provenance, value: string): string {
  return field === 'rubricsSha256' || field === 'datasetCommit' ? value.slice(0, 12) : value;
}

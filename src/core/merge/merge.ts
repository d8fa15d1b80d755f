import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isStream, refuseOverInputs, sameFile, writeAtomically } from '../files.js';
import { fail, fileError } from '../errors.js';
import { readLineBytes, withoutCr } from '../rows/index.js';
import { sameData } from '../dataset/index.js';
import { datasetFiles, isBlank, lineId, planLines, type SelectOptions } from '../rows/index.js';
import { ensureOutputDir, hostless, readManifest, settingsDifferences, writeManifest } from '../output/index.js';
import { splitKey } from '../rows/index.js';
import { readRow } from '../rows/index.js';
import { manifestPathFor, type Manifest } from '../schemas/index.js';
import type { z } from 'zod';
import { datasetRowSchema, inferOutcome, judgedOutcome, judgedRowSchema, type DatasetRow } from '../schemas/index.js';

interface MergeOptions {
  out: string;
  shards: string[];
  /** Input the shards were cut from; default: the source recorded in their manifests. */
  source?: string[];
  allowGaps: boolean;
  force: boolean;
  /** Ctrl-C: the merged file, half written, is dropped (the rejection is the signal's). */
  signal?: AbortSignal;
}

interface MergeReport {
  written: number;
  missing: string[];
  failed: string[];
  manifest: Manifest;
}

const NEWLINE = Buffer.from('\n');

/**
 * Joins shard outputs after checking that they belong together (same stage,
 * settings and data), that none is cut short, and that together they cover
 * the input exactly once. Refuses on any gap unless asked to write what
 * there is; duplicates and mismatches always refuse.
 */
export async function mergeShards(opts: MergeOptions): Promise<MergeReport> {
  await refuseOverInputs(
    [opts.out, manifestPathFor(opts.out)],
    [...opts.shards.flatMap((s) => [s, manifestPathFor(s)]), ...(opts.source ?? [])],
  );
  // A stream (`-o /dev/stdout`) is written into, not over: there is nothing to keep.
  const present = (await isStream(opts.out)) ? undefined : await stat(opts.out).catch(() => undefined);
  if (present?.isDirectory()) throw fail({ kind: 'merge-output-is-folder', out: opts.out });
  // --force overwrites an earlier merged file, never a shard (a merge without -o takes its first file as the merged one).
  const shard = present && (await readManifest(opts.out).catch(() => undefined))?.settings.shard;
  if (shard) throw fail({ kind: 'merge-over-shard', out: opts.out, index: shard.index, count: shard.count });
  if (!opts.force && present) throw fail({ kind: 'merge-output-exists', out: opts.out });
  // A shard that is not there, or a folder, is said so, not reported as a shard without a manifest.
  for (const shard of opts.shards) {
    const st = await stat(shard).catch((err: unknown) => {
      throw fileError(shard, err);
    });
    if (st.isDirectory()) throw fail({ kind: 'shard-is-folder', shard });
  }
  for (const [i, s] of opts.shards.entries()) {
    for (const t of opts.shards.slice(0, i)) if (await sameFile(s, t)) throw fail({ kind: 'shard-given-twice', shard: s, also: t });
  }

  const manifests: Manifest[] = [];
  for (const shard of opts.shards) {
    const m = await readManifest(shard, 'merge');
    if (!m) throw fail({ kind: 'shard-manifest-missing', shard });
    manifests.push(m);
  }
  const first = manifests[0]!;
  const rubrics = joinedRubrics(manifests, opts.shards);
  const common = shardIndependent(first.settings);
  const counts = new Set<number>();
  const shardOwner = new Map<string, string>();
  manifests.forEach((m, i) => {
    const file = opts.shards[i]!;
    if (m.stage !== first.stage)
      throw fail({ kind: 'shard-other-stage', shard: file, stage: m.stage, first: opts.shards[0]!, firstStage: first.stage });
    const shard = m.settings.shard;
    const diffs = settingsDifferences(common, shardIndependent(m.settings));
    if (!sameData(first.dataset, m.dataset))
      diffs.push(`dataset commit: ${first.dataset.commit ?? 'unknown'} vs ${m.dataset.commit ?? 'unknown'}`);
    if (diffs.length) throw fail({ kind: 'shard-other-settings', shard: file, first: opts.shards[0]!, differences: diffs });
    if (!shard) return;
    counts.add(shard.count);
    const which = `${shard.index}/${shard.count}`;
    const owner = shardOwner.get(which);
    if (owner !== undefined) throw fail({ kind: 'shard-twice', first: owner, second: file, shard: which });
    shardOwner.set(which, file);
  });
  if (counts.size > 1) throw fail({ kind: 'shards-other-splits', counts: [...counts] });

  // Judge runs of each infer shard's predictions each read their own file: together they cover those files.
  const source = opts.source ?? [...new Set(manifests.map((m) => m.dataset.source))];
  const expected = await expectedKeys(source, first, opts.source !== undefined, opts.signal);
  const outcome = first.stage === 'infer' ? inferOutcome : judgedOutcome;

  const seen = new Map<string, string>();
  const duplicated: { key: string; first: string; again: string }[] = [];
  const failed: string[] = [];
  const unexpected: string[] = [];
  const schema = first.stage === 'infer' ? datasetRowSchema : judgedRowSchema;
  let written = 0;
  let endedFailed = 0;
  let missing: string[] = [];
  // Made only now: a merge refused for its inputs leaves no new folder behind.
  await ensureOutputDir(opts.out);
  // One pass: each line is checked and copied, as it was (less a CRLF file's \r), to a temporary file that only a clean check renames into place.
  await writeAtomically(
    opts.out,
    async (out) => {
      for (const file of opts.shards) {
        for await (const line of readLineBytes(file)) {
          opts.signal?.throwIfAborted();
          if (isBlank(line.bytes)) continue;
          if (!line.terminated) throw fail({ kind: 'shard-cut-short', shard: file, line: line.lineNo });
          const read = readRow(line.bytes, schema, { file, lineNo: line.lineNo, terminated: true });
          if (!read.ok) throw fail({ kind: 'shard-damaged', problem: read.bad.message });
          const where = `${file}:${line.lineNo}`;
          const before = seen.get(read.key);
          if (before !== undefined) duplicated.push({ key: read.key, first: before, again: where });
          else seen.set(read.key, where);
          if (!expected.has(read.key)) unexpected.push(read.key);
          const o = outcome(read.parsed);
          if (o === 'incomplete') failed.push(read.key);
          if (o === 'failed') endedFailed++;
          await out.writev([withoutCr(line.bytes), NEWLINE]);
          written++;
        }
      }
      missing = [...expected].filter((k) => !seen.has(k));
      if (duplicated.length) throw fail({ kind: 'rows-duplicated', rows: duplicated });
      if (unexpected.length) throw fail({ kind: 'rows-unexpected', source, keys: unexpected });
      if (!opts.allowGaps && (missing.length || failed.length)) throw fail({ kind: 'shards-leave-gaps', missing, failed });
    },
    opts.signal,
  ).catch((err: unknown) => {
    throw fileError(opts.out, err);
  });

  const manifest = mergedManifest(manifests, source, expected, written, { toRetry: failed.length, ended: endedFailed }, missing, rubrics);
  await writeManifest(opts.out, manifest);
  return { written, missing, failed, manifest };
}

/** The keys the shards must cover: a dataset folder's (the first named: shards of one run read the same data), or the rows of the files named. */
async function expectedKeys(source: string[], m: Manifest, given: boolean, signal?: AbortSignal): Promise<Set<string>> {
  const missing = (path: string) => fail({ kind: 'shard-source-missing', path, given });
  const first = await stat(source[0]!).catch(() => undefined);
  if (!first) throw missing(source[0]!);
  const files = first.isDirectory() ? (await datasetFiles(source[0]!, m.settings.domains)).map((f) => f.path) : source;
  for (const s of files) if (!(await exists(s))) throw missing(s);
  return collectKeys(files, datasetRowSchema, { domains: m.settings.domains, limit: m.settings.limit }, signal);
}

function mergedManifest(
  ms: Manifest[],
  source: string[],
  expected: Set<string>,
  written: number,
  /** Rows to retry (their request failed), and rows whose final result is a failure. */
  failures: { toRetry: number; ended: number },
  missing: string[],
  rubrics: Rubrics,
): Manifest {
  const failed = failures.toRetry;
  const first = ms[0]!;
  const { shard: _s, rubrics: _r, ...rest } = first.settings;
  const settings: Manifest['settings'] = { ...rest, ...(rubrics && { rubrics }) };
  const hostsOf = (pick: (m: Manifest) => { hosts: string[] } | undefined) => [...new Set(ms.flatMap((m) => pick(m)?.hosts ?? []))];
  if (settings.world_model) settings.world_model = { ...settings.world_model, hosts: hostsOf((m) => m.settings.world_model) };
  if (settings.judge) settings.judge = { ...settings.judge, hosts: hostsOf((m) => m.settings.judge) };
  const perDomain: Manifest['counts']['per_domain'] = {};
  const usage: Manifest['usage'] & { reasoning_tokens: number } = {
    requests: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    reasoning_tokens: 0,
  };
  const endpoints: NonNullable<Manifest['endpoints']> = {};
  for (const m of ms) {
    for (const [d, c] of Object.entries(m.counts.per_domain)) {
      const t = (perDomain[d] ??= { total: 0, done: 0, failed: 0, to_retry: 0, empty: 0, truncated: 0 });
      t.total += c.total;
      t.done += c.done;
      t.failed += c.failed;
      // A manifest before to_retry counted only these as failed.
      t.to_retry = (t.to_retry ?? 0) + (c.to_retry ?? c.failed);
      if (c.no_output !== undefined) t.no_output = (t.no_output ?? 0) + c.no_output;
      t.empty = (t.empty ?? 0) + (c.empty ?? 0);
      t.truncated = (t.truncated ?? 0) + (c.truncated ?? 0);
    }
    usage.requests += m.usage.requests;
    usage.prompt_tokens += m.usage.prompt_tokens;
    usage.completion_tokens += m.usage.completion_tokens;
    usage.reasoning_tokens += m.usage.reasoning_tokens ?? 0;
    if (m.usage.cached_tokens !== undefined) usage.cached_tokens = (usage.cached_tokens ?? 0) + m.usage.cached_tokens;
    for (const [url, s] of Object.entries(m.endpoints ?? {})) {
      const e = (endpoints[url] ??= { requests: 0, failures: 0 });
      e.requests += s.requests;
      e.failures += s.failures;
    }
  }
  for (const k of missing)
    (perDomain[splitKey(k).domain] ??= { total: 0, done: 0, failed: 0, to_retry: 0, empty: 0, truncated: 0 }).total++;
  const total = Object.values(perDomain).reduce((a, c) => a + c.total, 0);
  // Taken from the input rather than from the shards: a shard need not hold every domain, and a missing one brings none.
  const rows: Record<string, number> = {};
  for (const k of expected) {
    const d = splitKey(k).domain;
    rows[d] = (rows[d] ?? 0) + 1;
  }
  const domains = Object.keys(rows);
  const now = new Date().toISOString();
  const done = written - failed;
  // The shards' own finish times say nothing about whether the merged file is whole.
  const { finished_at: _f, mixed: _m, batches: _b, ...base } = first;
  const mixed = ms.flatMap((m) => m.mixed ?? []);
  // Each shard's rows came from its own batches (--batch); a batch shared by two is listed once.
  const batches = [...new Set(ms.flatMap((m) => m.batches ?? []))];
  return {
    ...base,
    settings,
    // A shard that mixes runs makes the merged file mix them too.
    ...(mixed.length ? { mixed } : {}),
    ...(batches.length ? { batches } : {}),
    // The input the rows were checked against: --data when given, which may have moved since the shards ran.
    dataset: { ...first.dataset, source: source.map((s) => resolve(s)).join(', '), domains, rows },
    started_at: ms.map((m) => m.started_at).sort()[0]!,
    updated_at: now,
    complete: failed === 0 && missing.length === 0,
    ...(failed === 0 && missing.length === 0 ? { finished_at: now } : {}),
    counts: { total, done, failed: failed + failures.ended, to_retry: failed, per_domain: perDomain },
    usage,
    endpoints,
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The settings every shard must share. The shard itself differs by design,
 * and so may the endpoint hosts: N machines or CI jobs each serving the same
 * model behind their own URL is the normal way to run shards.
 */
function shardIndependent(settings: Manifest['settings']): Manifest['settings'] {
  const { shard: _shard, rubrics, ...rest } = hostless(settings);
  // Rubrics recorded domain by domain are checked by joinedRubrics: a shard loads those of its own rows' domains.
  return { ...rest, ...(rubrics && { rubrics: rubrics.domains ? { ...rubrics, sha256: '', domains: {} } : rubrics }) };
}

type Rubrics = Manifest['settings']['rubrics'];

/**
 * The rubrics of the merged run. A judge shard loads the rubrics of the domains its rows hold, so
 * shards of one run record the same rubrics over different domains: they belong together when each
 * domain has one hash in all of them. The record kept is the widest shard's, over every domain.
 */
function joinedRubrics(ms: readonly Manifest[], files: readonly string[]): Rubrics {
  let widest: Rubrics;
  const domains: Record<string, string> = {};
  const from = new Map<string, string>();
  ms.forEach((m, i) => {
    const r = m.settings.rubrics;
    if (!r?.domains) return;
    for (const [domain, sha] of Object.entries(r.domains)) {
      const before = domains[domain];
      if (before !== undefined && before !== sha)
        throw fail({ kind: 'shard-other-rubric', shard: files[i]!, domain, sha, other: from.get(domain)!, otherSha: before });
      domains[domain] = sha;
      if (!from.has(domain)) from.set(domain, files[i]!);
    }
    if (Object.keys(r.domains).length > Object.keys(widest?.domains ?? {}).length) widest = r;
  });
  return widest ? { ...widest, domains } : ms[0]!.settings.rubrics;
}

/**
 * The keys of every good row of the inputs under the same --domains and
 * --limit selection as a run: what a set of shards must cover exactly once.
 */
export async function collectKeys<S extends z.ZodType<DatasetRow>>(
  files: string[],
  schema: S,
  opts: Omit<SelectOptions, 'shard'>,
  signal?: AbortSignal,
): Promise<Set<string>> {
  // Without --domains or --limit every line counts, and the planning scan would be a second read for nothing.
  const lines =
    opts.domains !== undefined || opts.limit !== undefined
      ? new Set((await planLines(files, opts)).lines.map((l) => lineId(l.file, l.lineNo)))
      : undefined;
  const keys = new Set<string>();
  for (let f = 0; f < files.length; f++) {
    for await (const line of readLineBytes(files[f]!)) {
      signal?.throwIfAborted();
      if (isBlank(line.bytes) || (lines && !lines.has(lineId(f, line.lineNo)))) continue;
      const r = readRow(line.bytes, schema, { file: files[f]!, lineNo: line.lineNo, terminated: line.terminated });
      if (r.ok) keys.add(r.key);
    }
  }
  return keys;
}

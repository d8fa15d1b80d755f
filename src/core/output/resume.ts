import { join } from 'node:path';
import { sha256Of } from '../dataset/index.js';
import { canonicalDomains } from '../domains.js';
import { fail } from '../errors.js';
import { manifestPathFor, type Manifest, type ManifestSettings } from '../schemas/index.js';
import { isNonEmptyFile, readManifest, settingsDifferences } from './output-file.js';

type Dataset = Manifest['dataset'];

/**
 * Settings without the endpoint hosts: N machines serving the same model
 * behind their own URLs give the same results (shards of one run, a server
 * moved to another port or pod), a panel's members as one judge.
 */
export function hostless(settings: ManifestSettings): ManifestSettings {
  const { world_model, judge, panel, ...rest } = settings;
  return {
    ...rest,
    ...(world_model ? { world_model: { ...world_model, hosts: [] } } : {}),
    ...(judge ? { judge: { ...judge, hosts: [] } } : {}),
    ...(panel ? { panel: { ...panel, members: panel.members.map((m) => ({ ...m, hosts: [] })) } } : {}),
  };
}

/**
 * The settings that decide a row's result: not where it was sent, nor which rows a run covers (shard,
 * domains, limit), nor the folder its prompts were read from (their hashes decide).
 */
function resultSettings(settings: ManifestSettings): ManifestSettings {
  const { shard: _shard, domains: _domains, limit: _limit, rubrics, mode_prompt, ...rest } = hostless(settings);
  const unsourced = <T extends { source: string }>(x: T | undefined) => x && { ...x, source: '' };
  return { ...rest, rubrics: unsourced(rubrics), mode_prompt: unsourced(mode_prompt) };
}

/** What a resume found in the output it goes on with. */
export interface Resumable {
  /** The output's manifest, when it has a readable one. */
  previous: Manifest | undefined;
  /**
   * What --force overrode: how the settings or data of the rows already there differ from this
   * run's, or why they are unknown. Empty when nothing was overridden (no rows, or the same settings).
   */
  overridden: string[];
  /** The data record this run writes: its own, with what the earlier manifest knew and this run does not. */
  dataset: Dataset;
}

/** A data file whose hash differs from the one the output's manifest records. */
interface DataChange {
  path: string;
  domain: string;
  was: string;
  now: string;
}

/**
 * The files of the data that changed since the rows already there were made. The files' hashes
 * decide where both records have them for a domain (the same files from either hub are the same
 * data, whatever commit each names); without them, the commit does, as `commit` ('' path and
 * domain). A file edited since its download is not the commit's, hashed by the earlier run or not
 * (its domain, '' path).
 */
function dataChanges(before: Dataset, now: Dataset): DataChange[] {
  const [a, b] = [before.sha256 ?? {}, now.sha256 ?? {}];
  const shared = Object.keys(a).filter((d) => b[d] !== undefined);
  const edited = before.commit
    ? (now.edited ?? []).filter((d) => a[d] === undefined).map((domain) => ({ path: '', domain, was: before.commit!, now: 'edited' }))
    : [];
  if (shared.length) {
    const hashed = shared
      .filter((d) => a[d] !== b[d])
      .map((domain) => ({ path: join(now.source, `${domain}_test.jsonl`), domain, was: a[domain]!, now: b[domain]! }));
    return [...hashed, ...edited];
  }
  if (before.commit && now.commit && before.commit !== now.commit) return [{ path: '', domain: '', was: before.commit, now: now.commit }];
  return edited;
}

function changeLine(c: DataChange): string {
  if (c.path) return `dataset ${c.domain}: sha256 was ${c.was}, now ${c.now}`;
  if (c.domain) return `dataset ${c.domain}: was the file of commit ${c.was}, now edited since its download`;
  return `dataset commit: was ${c.was}, now ${c.now}`;
}

/**
 * The provenance a resume records: never less than the earlier manifest's. A resume from a folder
 * that lacks the origin record (a copy, the record removed) keeps the commit and hashes the rows
 * were made from; hashes of domains this run did not read stay too. Where the data itself changed
 * (forced, or no row holds an answer yet), this run's record wins; forced, the manifest's `mixed` says what changed.
 * Rows of a file edited since its download (either run's) leave no commit claimed.
 */
function keptProvenance(before: Dataset, now: Dataset, changed: boolean): Dataset {
  const origin = (d: Dataset) => ({
    ...(d.repo !== undefined && { repo: d.repo }),
    ...(d.revision !== undefined && { revision: d.revision }),
    ...(d.commit !== undefined && { commit: d.commit }),
    ...(d.hub !== undefined && { hub: d.hub }),
  });
  // Rows made from a file edited since its download stay in the output: its domain stays named, and no commit is claimed.
  const edited = [...new Set([...(before.edited ?? []), ...(now.edited ?? [])])];
  const kept = edited.length
    ? {}
    : changed
      ? origin(now)
      : before.commit
        ? { ...origin(now), ...origin(before) }
        : { ...origin(before), ...origin(now) };
  const sha256 = changed ? { ...before.sha256, ...now.sha256 } : { ...now.sha256, ...before.sha256 };
  const { repo: _r, revision: _v, commit: _c, hub: _h, ...rest } = now;
  return { ...rest, ...kept, ...(Object.keys(sha256).length && { sha256 }), ...(edited.length && { edited }) };
}

/**
 * This run's data record with the hashes the earlier one has and it lacks (data read from a folder
 * without its origin record): infer's files hashed now, so changed data is seen even then.
 */
async function withHashesOf(before: Dataset, now: Dataset, stage: Manifest['stage']): Promise<Dataset> {
  const missing = Object.keys(before.sha256 ?? {}).filter((d) => now.sha256?.[d] === undefined && now.domains.includes(d));
  if (stage !== 'infer' || !missing.length) return now;
  const hashed = await Promise.all(missing.map(async (d) => [d, await sha256Of(join(now.source, `${d}_test.jsonl`))] as const));
  const found = hashed.filter((h): h is readonly [string, string] => h[1] !== undefined);
  return found.length ? { ...now, sha256: { ...now.sha256, ...Object.fromEntries(found) } } : now;
}

/**
 * Whether a resume must refuse settings that differ from the output's: only when a row already there
 * holds an answer made with them. Rows whose requests failed hold none and are sent again, so new
 * settings mix nothing (a first run refused for a bad --extra-body field, rerun with it fixed).
 */
export function refusesOtherSettings(differences: readonly string[], answered: boolean): boolean {
  return differences.length > 0 && answered;
}

/**
 * Refuses to mix results made with different settings or data into one file: a resume must use
 * the same model, sampling, protocol, judge, rubrics and data files (wherever the endpoints now
 * are: their hosts are not compared), unless the user says --force; then it says what --force
 * overrode. A data file whose hash changed is named on its own. Other settings and data are taken,
 * and recorded, when no row holds an answer yet (`answered`, asked only then).
 */
export async function checkResumable(
  output: string,
  stage: Manifest['stage'],
  settings: ManifestSettings,
  dataset: Dataset,
  force: boolean,
  answered: () => Promise<boolean>,
): Promise<Resumable> {
  const hasRows = await isNonEmptyFile(output);
  let unreadable = false;
  const previous = await readManifest(output).catch((err: unknown) => {
    if (!force) throw err;
    unreadable = true;
    return undefined;
  });
  if (!hasRows) return { previous, overridden: [], dataset };
  if (!previous) {
    if (!force) throw fail({ kind: 'resume-without-manifest', output, manifest: manifestPathFor(output) });
    const why = `the rows already there have ${unreadable ? 'an unreadable manifest' : 'no manifest'}, so their settings are unknown`;
    return { previous, overridden: [why], dataset };
  }
  if (previous.stage !== stage) {
    if (!force) throw fail({ kind: 'resume-other-stage', output, was: previous.stage, now: stage });
    return { previous, overridden: [`stage: was ${previous.stage}, now ${stage}`], dataset };
  }
  // Rows of two horizons in one file would be scored as one run's: no --force mixes them.
  const [was, now] = [String(previous.settings.horizon ?? 0), String(settings.horizon ?? 0)];
  if (was !== now && (await answered())) throw fail({ kind: 'resume-other-horizon', output, was, now });
  const read = await withHashesOf(previous.dataset, dataset, stage);
  const changes = dataChanges(previous.dataset, read);
  const recorded = keptProvenance(previous.dataset, read, changes.length > 0);
  // Forced on, the file mixes runs only where results may differ: not for the rows a run covers.
  if (force) {
    const overridden = [...differences(previous, settings, resultSettings), ...changes.map(changeLine)];
    return { previous, overridden, dataset: recorded };
  }
  const files = changes.filter((c) => c.path);
  const diffs = [...differences(previous, settings, hostless), ...changes.map(changeLine)];
  if (diffs.length && refusesOtherSettings(diffs, await answered())) {
    if (files.length) throw fail({ kind: 'resume-other-data', output, files: files.map(({ path, was, now }) => ({ path, was, now })) });
    throw fail({ kind: 'resume-other-settings', output, differences: diffs });
  }
  return { previous, overridden: [], dataset: recorded };
}

/**
 * A judge run over more (or other) domains reads more rubrics, not other
 * ones: when each domain both runs cover has the same rubric, `now` gets the
 * earlier per-domain record, so only the selection itself (`domains`) differs.
 */
function rubricsOfShared(before: ManifestSettings, now: ManifestSettings): ManifestSettings {
  const [a, b] = [before.rubrics, now.rubrics];
  if (!a?.domains || !b?.domains || a.layout !== b.layout) return now;
  const other = b.domains;
  if (!Object.entries(a.domains).every(([domain, sha]) => other[domain] === undefined || other[domain] === sha)) return now;
  return { ...now, rubrics: { ...b, sha256: a.sha256, domains: a.domains } };
}

/** How the settings of the rows already there differ from `settings`, both seen through `view`. */
function differences(previous: Manifest, settings: ManifestSettings, view: (s: ManifestSettings) => ManifestSettings): string[] {
  // A manifest written before selections were recorded in one order may list them as typed.
  const before = previous.settings.domains
    ? { ...previous.settings, domains: canonicalDomains(previous.settings.domains) }
    : previous.settings;
  return settingsDifferences(view(before), view(rubricsOfShared(before, settings)));
}

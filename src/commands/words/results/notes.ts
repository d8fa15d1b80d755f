import { DOMAINS, domainLabel } from '../../../core/domains.js';
import type { CompareNotice } from '../../../core/compare/index.js';
import type { DriftNotice } from '../../../core/drift/index.js';
import type { CheckedSetting, ComparabilityNote, MixedResume, PublishedGap, ScoreNotice } from '../../../core/score/index.js';
import type { NoticeWords } from '../words.js';

/*
 * The notes under a leaderboard, a comparison and a drift curve (core returns them as data), and the gaps that keep
 * a run from the published numbers: each kind's sentence, built here once. Renderers and JSON get them through
 * NOTE_WORDS (index.ts); the sentences carry text from files unescaped, each format neutralises it as it writes.
 */

/** Each setting as a note names it; `hash`: its values are shown by their first 12 characters. */
const SETTINGS: Record<CheckedSetting, { what: string; hash: boolean }> = {
  judge: { what: 'judge', hash: false },
  'rubrics-set': { what: 'rubrics (sha256)', hash: true },
  history: { what: 'history protocol', hash: false },
  horizon: { what: 'free-running horizon (awb drift compares horizons)', hash: false },
  'dataset-commit': { what: 'dataset commit', hash: true },
  'dataset-hashes': { what: 'dataset (file hashes)', hash: true },
  'dataset-revision': { what: 'dataset revision', hash: false },
};

const names = (runs: readonly string[]): string => runs.join(', ');
const short = (hash: string): string => hash.slice(0, 12);

/** A set of domains as the coverage note names it: all seven, none, or the list. */
function coverage(domains: readonly string[]): string {
  if (DOMAINS.every((d) => domains.includes(d)) && domains.length === DOMAINS.length) return 'all seven';
  return domains.join(', ') || 'none';
}

const GAP_WORDS: { [K in PublishedGap['kind']]: (gap: Extract<PublishedGap, { kind: K }>) => string } = {
  'no-manifest': () => 'no usable manifest, so rubrics, data, judge and history protocol are all unknown',
  'mixed-settings': () => 'settings: the file mixes runs made under different settings (a resume forced past them)',
  rubrics: (g) =>
    g.source === 'bundled'
      ? "rubrics: awb's bundled rubrics (our own text), not the official ones"
      : g.source === undefined
        ? 'rubrics: unknown'
        : `rubrics: ${g.layout === 'awb' ? 'own {domain}.md files' : 'not recorded as the official layout'} (${g.source}), not the official {domain}/judge_system_prompt.txt`,
  rows: (g) =>
    `data: ${g.had} of the ${g.published} rows of the full published split${g.short.length ? ` (short in ${g.short.map(domainLabel).join(', ')})` : ' (and domains beyond it)'}`,
  'dataset-source': (g) => `data: ${g.repo !== undefined ? `repository ${g.repo}` : 'dataset revision not known (no resolved commit)'}`,
  judge: (g) => `judge: ${g.judge ?? 'unknown'}, the published judge is ${g.published}`,
  'judge-sampling': (g) =>
    `judge sampling: temperature ${g.temperature ?? 'unknown'}, max tokens ${g.maxTokens ?? 'unknown'}; published: ${g.published.temperature}, ${g.published.maxTokens}`,
  history: (g) => `history protocol: ${g.history ?? 'unknown'}, published numbers use the full history`,
  horizon: (g) => `free-running horizon ${g.horizon}: published numbers are teacher-forced`,
  unfinished: () => 'run: unfinished (its manifest says not every row is done)',
};

/** A forced resume that mixed a file, as its note and its JSON provenance name it. */
export function mixedText(m: MixedResume): string {
  return `${m.stage === 'judge' ? 'judgements' : 'predictions'}: ${m.reason}`;
}

/** What keeps a run from the published numbers, as its notes and refusals say it. */
export function gapText(gap: PublishedGap): string {
  return (GAP_WORDS[gap.kind] as (g: PublishedGap) => string)(gap);
}

const COMPARABILITY_NOTICES: NoticeWords<ComparabilityNote> = {
  'run-incomplete': (n) => `${n.run}: the manifest says the run is incomplete; missing rows are not in its scores`,
  'run-mixes-settings': (n) =>
    `not comparable: ${n.run}${n.file !== undefined ? ` (${n.file})` : ''} mixes rows made under different settings: a resume was forced past them (${n.mixed.map(mixedText).join('; ')})`,
  'provenance-unknown': (n) =>
    `not known to be comparable: no usable manifest for ${names(n.runs)} (unknown provenance, e.g. the official script's files), so judge, rubrics, history protocol and dataset cannot be checked`,
  'setting-differs': (n) => {
    const { what, hash } = SETTINGS[n.setting];
    const parts = n.values.map((v) => `${v.value === undefined ? 'unknown' : hash ? short(v.value) : v.value} in ${names(v.runs)}`);
    return `not comparable: ${what} differs (${parts.join('; ')})`;
  },
  'setting-unknown': (n) => `cannot check ${SETTINGS[n.setting].what}: unknown in ${names(n.runs)}`,
  'rubrics-differ': (n) =>
    `not comparable: rubrics differ in ${n.domains.map((d) => `${domainLabel(d.domain)} (${d.values.map((v) => `${short(v.hash)} in ${names(v.runs)}`).join('; ')})`).join(', ')}`,
  'rubrics-per-domain-unknown': (n) =>
    `cannot check rubrics domain by domain: ${names(n.runs)} recorded only a hash of the whole rubric set (made before rubrics were identified per domain)`,
  'domains-differ': (n) =>
    `domains differ, so Overall averages different sets and is not ranked (${n.sets.map((s) => `${coverage(s.domains)} in ${names(s.runs)}`).join('; ')}); the domains they share compare`,
  'published-incomparable': (n) =>
    `${n.run} is not comparable with the published rows (not ranked against them): ${n.gaps.map(gapText).join('; ')}`,
};

export const SCORE_NOTICES: NoticeWords<ScoreNotice> = {
  ...COMPARABILITY_NOTICES,
  'overall-partial': (n) => {
    const which = n.unscored.length === 1 ? 'that domain' : 'those domains';
    // "no valid rows" beside a Valid column that counts some would contradict it.
    const what = n.totals ? 'no valid rows with a total_score' : 'no valid rows';
    return `${n.run}: ${what} in ${n.unscored.map(domainLabel).join(', ')}, so its Overall leaves ${which} out (macro: ${n.macroDomains} of ${n.domains} domains)`;
  },
  'domains-unknown': (n) => {
    const one = n.domains.length === 1;
    return `${n.domains.map((d) => `"${d}"`).join(', ')} ${one ? 'is not an AgentWorldBench domain' : 'are not AgentWorldBench domains'} (${DOMAINS.join(', ')}), yet ${one ? 'it is' : 'they are'} scored as one and averaged into Overall`;
  },
  'member-repeats': (n) =>
    `${n.run}: each member of its panel judged each row ${n.repeats} times (--repeat), kept in the rows' panel; awb score --by-judge shows each member's judge noise`,
};

export const COMPARE_NOTICES: NoticeWords<CompareNotice> = {
  'rows-only-in': (n) => `${n.count} row(s) only in ${n.run}, left out of the deltas (e.g. ${n.examples.join('; ')})`,
  'paired-rows-failed': (n) =>
    `failed rows among the paired ones: ${n.baseline.failed} in ${n.baseline.run}, ${n.candidate.failed} in ${n.candidate.run}; deltas use only rows valid on both sides (${n.paired - n.used} of ${n.paired} paired rows left out)`,
};

export const DRIFT_NOTICES: NoticeWords<DriftNotice> = {
  'drift-models-differ': (n) => `not one model: the runs are of ${n.models.join(', ')}; a drift curve compares one model with itself`,
  'drift-rows-left-out': (n) =>
    `${n.missing + n.failed} row(s) of the teacher-forced run left out: ${n.missing} missing from some run, ${n.failed} failed in some run (every figure uses the ${n.rows} rows valid in all)`,
  'drift-run-incomplete': (n) => `${n.run}: the manifest says the run is incomplete`,
};

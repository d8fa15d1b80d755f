import type { Interval } from '../core/score/index.js';
import type { Provenance } from '../core/score/index.js';
import type { Delta, GateReason } from '../core/compare/index.js';
import {
  ALL_DOMAINS,
  cacheHitRatio,
  costOf,
  type ScoreReport,
  type StagePrices,
  type StageUsage,
  type TurnScore,
  type UsageTotals,
} from '../core/score/index.js';
import { formatFixed, formatSigned, rawMean, statScore, type Ratio } from '../core/score/index.js';
import { PUBLISHED_JUDGE, PUBLISHED_SOURCE } from '../core/dataset/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import type { ComparePage } from './compare-view.js';
import { gateRemedy, reasonText, untestedText } from './gate.js';
import { MACRO, MICRO, leaderboard, methodNotes, type ScoreCell } from './model.js';
import { notesData, type NoteWords } from './view.js';
import { jsonText } from './written.js';

/*
 * One object per command. Numbers are unrounded (exact means converted to
 * doubles); each score also has `text`, the printed figure (two decimals,
 * half to even on ties), so consumers need not re-round.
 */

const num = (v: Ratio | number | undefined): number | null => (v === undefined ? null : typeof v === 'number' ? v : v.toNumber());
const ci = (i: Interval | undefined): { lo: number; hi: number } | null => (i ? { lo: i.lo, hi: i.hi } : null);

function scoreJson(cell: ScoreCell | undefined) {
  if (!cell) return null;
  return { mean: num(cell.mean), score: num(cell.score), text: cell.text, ci: ci(cell.ci), best: cell.best };
}

/**
 * The manifest facts a run was read with, keyed in snake_case as the rest of the document (rubricsSha256 → rubrics_sha256);
 * `mixed` as sentences.
 */
function provenanceJson(p: Provenance, words: NoteWords) {
  const worded = p.mixed ? { ...p, mixed: p.mixed.map(words.mixed) } : p;
  return Object.fromEntries(Object.entries(worded).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
}

function pricesJson(p: StagePrices) {
  return { input: p.input, output: p.output, ...(p.cachedInput !== undefined ? { cached_input: p.cachedInput } : {}) };
}

function stageJson(u: StageUsage, prices: ScoreReport['prices']) {
  const stage = (t: UsageTotals, name: keyof StageUsage) => ({
    rows: t.rows,
    prompt_tokens: t.prompt,
    completion_tokens: t.completion,
    reasoning_tokens: t.reasoning,
    cached_tokens: t.cachedRows ? t.cached : null,
    cache_hit_ratio: cacheHitRatio(t) ?? null,
    batch_prompt_tokens: t.batch.prompt,
    batch_completion_tokens: t.batch.completion,
    cost_usd: prices ? costOf(t, prices[name]) : null,
  });
  return { infer: stage(u.infer, 'infer'), judge: stage(u.judge, 'judge') };
}

/** Turn buckets with their intervals; the run's own `turns` pools every domain. */
function turnsJson(turns: readonly TurnScore[], intervals: ReadonlyMap<string, Interval | undefined> | undefined) {
  return turns.map((t) => {
    const score = statScore(t.total);
    return {
      bucket: t.bucket,
      rows: t.rows,
      valid: t.valid,
      mean: num(rawMean(t.total.sum, t.total.count)),
      score: num(score),
      text: formatFixed(score),
      ci: ci(intervals?.get(t.bucket)),
    };
  });
}

/**
 * `awb score --format json`: one document whatever the inputs, with the
 * judge modes' figures under `modes` when there are mode files (`modes`, as
 * modesJson makes them); without graded files `runs` is empty.
 */
export function renderScoreJson(report: ScoreReport | undefined, words: NoteWords, modes?: unknown, bias?: unknown): string {
  const doc = {
    format: 'agentworldbench-score',
    version: 1,
    ...(report ? scoreDocument(report, words) : { runs: [] }),
    ...(modes ? { modes } : {}),
    ...(bias ? { bias } : {}),
  };
  return jsonText(doc);
}

function scoreDocument(report: ScoreReport, words: NoteWords) {
  const board = leaderboard(report);
  const runs = board.rows
    .filter((r) => r.run)
    .map((row) => {
      const run = row.run!;
      const domains = Object.fromEntries(
        run.score.domains.map((d) => [
          d.domain,
          {
            rows: d.rows,
            valid: d.valid,
            failed: d.failed,
            ...scoreJson(row.cells[d.domain]),
            dimensions: Object.fromEntries(
              DIMENSIONS.map((name, i) => {
                const s = d.dims[i]!;
                const score = statScore(s);
                return [name, { count: s.count, mean: num(rawMean(s.sum, s.count)), score: num(score), text: formatFixed(score) }];
              }),
            ),
            ...(report.byTurn
              ? {
                  turns: turnsJson(d.turns, run.intervals?.turns.get(d.domain)),
                }
              : {}),
          },
        ]),
      );
      return {
        label: row.label,
        file: run.file,
        published: false,
        provenance: provenanceJson(run.provenance, words),
        ...(report.byJudge ? { member_of: run.memberOf ?? null } : {}),
        ranked: !run.memberOf && run.standing.ranked,
        not_ranked: run.memberOf ? [] : run.standing.unranked,
        standing: row.unranked ?? null,
        rows: run.score.rows,
        valid: run.score.valid,
        failed: run.score.failed,
        domains,
        ...(report.byTurn ? { turns: turnsJson(run.score.turns, run.intervals?.turns.get(ALL_DOMAINS)) } : {}),
        ...(report.published.length
          ? {
              published_comparable: run.publishedGaps.length === 0,
              published_gaps: run.publishedGaps.map(words.gap),
              published_gaps_data: run.publishedGaps.map((g) => ({ ...g, message: words.gap(g) })),
            }
          : {}),
        overall: {
          macro: { ...scoreJson(row.cells[MACRO]), domains: run.score.macroDomains },
          micro: { ...scoreJson(row.cells[MICRO]), rows: run.score.micro.count },
        },
        usage: {
          ...stageJson(run.usage, report.prices),
          domains: Object.fromEntries([...run.usage.domains].map(([d, u]) => [d, stageJson(u, report.prices)])),
        },
      };
    });
  const published = board.rows
    .filter((r) => r.published)
    .map((row) => ({
      label: row.label,
      published: true,
      judge: PUBLISHED_JUDGE,
      source: PUBLISHED_SOURCE,
      domains: Object.fromEntries(report.domains.flatMap((d) => (row.cells[d] ? [[d, scoreJson(row.cells[d])]] : []))),
      overall: { macro: scoreJson(row.cells[MACRO]) },
    }));
  return {
    settings: {
      failures_as_lowest: report.failuresAsLowest,
      bootstrap: report.bootstrap
        ? {
            resamples: report.bootstrap.resamples,
            seed: report.bootstrap.seed,
            level: 0.95,
            unit: 'trajectory (domain + id), resampled within each domain',
          }
        : null,
      by: report.byTurn ? 'turn' : null,
      prices_usd_per_million: report.prices ? { infer: pricesJson(report.prices.infer), judge: pricesJson(report.prices.judge) } : null,
    },
    domains: report.domains,
    runs,
    published,
    method: methodNotes(report),
    notes: report.notes.map(words.notice),
    notes_data: notesData(report.notes, words),
    warnings: report.warnings.map(words.notice),
    warnings_data: notesData(report.warnings, words),
  };
}

/** A gate reason's fields; an incomparable one keeps `detail`, its note's sentence (as before notes were data), beside the note. */
function gateReasonJson(r: GateReason, words: NoteWords) {
  return r.code === 'incomparable' ? { code: r.code, detail: words.notice(r.note), note: notesData([r.note], words)[0] } : r;
}

export function renderCompareJson(report: ComparePage): string {
  const delta = (d: Delta) => ({
    baseline: num(d.baseline),
    candidate: num(d.candidate),
    delta: num(d.delta),
    delta_text: formatSigned(d.delta),
    ci: ci(d.ci),
    se: d.spread?.se ?? null,
    df: d.spread?.df ?? null,
    trajectories: d.trajectories,
    dimensions: Object.fromEntries(DIMENSIONS.map((name, i) => [name, num(d.dims[i])])),
  });
  const { result } = report;
  return jsonText({
    format: 'agentworldbench-compare',
    version: 3,
    baseline: { ...report.baseline, provenance: provenanceJson(report.baseline.provenance, report.words) },
    candidate: { ...report.candidate, provenance: provenanceJson(report.candidate.provenance, report.words) },
    intervals: {
      level: 0.95,
      method:
        'cluster-robust t over trajectories (domain + id), paired: CR2 standard error (leverage-corrected), Bell-McCaffrey degrees of freedom; Overall: Welch-Satterthwaite',
    },
    requested_domains: report.domains ?? null,
    only_in_baseline: result.onlyBaseline,
    only_in_candidate: result.onlyCandidate,
    domains: Object.fromEntries(
      result.domains.map((d) => [
        d.domain,
        { paired: d.paired, used: d.used, baseline_failed: d.baselineFailed, candidate_failed: d.candidateFailed, ...delta(d) },
      ]),
    ),
    overall: { ...delta(result.overall), domains: result.overall.domains },
    changed_rows: result.changed.map((r) => ({
      key: r.key,
      baseline: num(r.baseline),
      candidate: num(r.candidate),
      delta: num(r.delta),
    })),
    gate: report.gate
      ? {
          fail_below: report.gate.threshold,
          alpha: report.gate.alpha,
          domains: report.gate.domains ?? null,
          rule: 'fails when a one-sided sign-flip randomization test over trajectories finds candidate - baseline below -fail_below for Overall or a domain (Holm over all tests, family-wise error alpha), when Overall (or a domain of `domains`, when given) has too few trajectories to test, or when the candidate is partial or the runs are not comparable (unless allowed)',
          failed: report.gate.failed,
          outcome: report.gate.outcome,
          reasons: report.gate.reasons.map((r) => ({ ...gateReasonJson(r, report.words), message: reasonText(r, report) })),
          remedy: gateRemedy(report.gate, report) ?? null,
          tests: report.gate.tests,
          not_tested: report.gate.inconclusive.map((u) => ({ ...u, message: untestedText(u) })),
        }
      : null,
    notes: report.notes.map(report.words.notice),
    notes_data: notesData(report.notes, report.words),
    warnings: report.warnings.map(report.words.notice),
    warnings_data: notesData(report.warnings, report.words),
  });
}

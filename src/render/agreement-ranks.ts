import type { RankReport } from '../core/agreement/index.js';
import { domainLabel } from '../core/domains.js';
import { formatFixed, formatSigned } from '../core/score/index.js';
import { decimals } from './agreement.js';
import { csvText, jsonText } from './written.js';
import { left, right, type Cell, type Grid, type View } from './view.js';
import type { LabelWords, NoteWords } from './words.js';

/* `awb agreement --by-model`: a leaderboard per judge side by side, tau between them, and the model pairs' stability. */

const share = (v: number | undefined, words: LabelWords): string => (v === undefined ? words.na : `${formatFixed(v * 100, 1)}%`);

export function rankView(report: RankReport, noteWords: NoteWords): View {
  const { agreement: words, labels } = noteWords;
  const { models, judges } = report;
  const judgeColumns = judges.map(right);
  const leaderboards: Grid = {
    title: 'Leaderboard per judge (Overall, 0-100; rank after it)',
    columns: [left('Model'), ...judgeColumns],
    rows: models.map((m, i) => ({
      cells: [
        { text: m },
        ...judges.map((_, j): Cell => {
          const rank = report.ranks[i]![j];
          return { text: formatFixed(report.scores[i]![j]), ...(rank !== undefined ? { extra: `#${rank}` } : {}) };
        }),
      ],
    })),
  };
  const taus: Grid = {
    title: "Kendall's τ between the judges' leaderboards",
    columns: [left('Judges'), right('Models'), right('τ'), right('95% CI')],
    rows: report.taus.map((t) => ({
      cells: [
        { text: `${judges[t.a]} / ${judges[t.b]}` },
        { text: String(t.models) },
        { text: decimals(t.tau) },
        { text: t.ci ? `[${decimals(t.ci.lo)}, ${decimals(t.ci.hi)}]` : '' },
      ],
    })),
  };
  const pairs: Grid = {
    title: 'Model pairs: first minus second (points), and the share of resamples that swap them',
    columns: [left('Models'), ...judgeColumns, right('Judges disagree')],
    rows: report.pairs.map((p) => ({
      cells: [
        { text: `${models[p.first]} / ${models[p.second]}` },
        ...p.judges.map((j): Cell => ({
          text: formatSigned(j.diff),
          ...(j.swapped !== undefined ? { extra: labels.swaps(share(j.swapped, labels)) } : {}),
        })),
        { text: report.bootstrap ? share(p.disagree, labels) : pointDisagree(p.judges, labels) },
      ],
    })),
  };
  return {
    intro: [],
    grids: [leaderboards, taus, pairs],
    footnotes: [
      words.overall(report.domains.map(domainLabel), report.leftOut.map(domainLabel)),
      words.tau,
      words.disagree,
      words.resamples(report.bootstrap),
    ],
    verdict: [],
  };
}

function pointDisagree(judges: ReadonlyArray<{ diff: number | undefined }>, words: LabelWords): string {
  const signs = new Set(judges.flatMap((j) => (j.diff === undefined ? [] : [Math.sign(j.diff)])));
  return signs.size > 1 ? words.disagree.yes : words.disagree.no;
}

const num = (v: number | undefined): number | null => (v === undefined || Number.isNaN(v) ? null : v);

/** `--by-model --format json`: numbers unrounded, null where undefined. */
export function rankJson(report: RankReport): string {
  const { models, judges } = report;
  const doc = {
    format: 'agentworldbench-rank-stability',
    version: 1,
    bootstrap: report.bootstrap ?? null,
    domains: report.domains,
    left_out: report.leftOut,
    judges,
    leaderboards: Object.fromEntries(
      judges.map((judge, j) => [
        judge,
        models.map((model, i) => ({ model, score: num(report.scores[i]![j]?.toNumber()), rank: report.ranks[i]![j] ?? null })),
      ]),
    ),
    kendall_tau: report.taus.map((t) => ({ a: judges[t.a], b: judges[t.b], models: t.models, tau: num(t.tau), ci: t.ci ?? null })),
    model_pairs: report.pairs.map((p) => ({
      first: models[p.first],
      second: models[p.second],
      judges: Object.fromEntries(p.judges.map((x, j) => [judges[j], { diff: num(x.diff), swapped: num(x.swapped) }])),
      disagree: num(p.disagree),
    })),
  };
  return jsonText(doc);
}

const CSV_COLUMNS = [
  'record',
  'model',
  'judge',
  'score',
  'rank',
  'judge_b',
  'model_b',
  'models',
  'tau',
  'ci_lo',
  'ci_hi',
  'diff',
  'swapped',
  'disagree',
] as const;

/**
 * Long layout, one record kind per row (`record`): `score` (model, judge,
 * score, rank), `tau` (judge and judge_b), `pair` (model and model_b under
 * judge: diff and swapped), `disagree` (model and model_b, every judge).
 */
export function rankCsv(report: RankReport): string {
  const { models, judges } = report;
  const blank = (v: number | undefined) => num(v) ?? '';
  const records: Array<Record<string, string | number>> = [];
  models.forEach((model, i) =>
    judges.forEach((judge, j) =>
      records.push({ record: 'score', model, judge, score: blank(report.scores[i]![j]?.toNumber()), rank: blank(report.ranks[i]![j]) }),
    ),
  );
  for (const t of report.taus)
    records.push({
      record: 'tau',
      judge: judges[t.a]!,
      judge_b: judges[t.b]!,
      models: t.models,
      tau: blank(t.tau),
      ci_lo: blank(t.ci?.lo),
      ci_hi: blank(t.ci?.hi),
    });
  for (const p of report.pairs) {
    const pair = { model: models[p.first]!, model_b: models[p.second]! };
    p.judges.forEach((x, j) =>
      records.push({ record: 'pair', ...pair, judge: judges[j]!, diff: blank(x.diff), swapped: blank(x.swapped) }),
    );
    records.push({ record: 'disagree', ...pair, disagree: blank(p.disagree) });
  }
  return csvText(records, CSV_COLUMNS);
}

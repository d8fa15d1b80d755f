import type { Prices, Ratio, ScoreReport, StageUsage } from '../core/score/index.js';
import { costOf, formatFixed, rawMean, statScore } from '../core/score/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import { MACRO, MICRO, leaderboard, type ScoreCell } from './model.js';
import { csvText } from './written.js';
import type { StandingWords } from './words.js';

/*
 * Long layout: one record per run x domain (plus `overall_macro` and
 * `overall_micro` records, and with --by turn one per domain x turn bucket),
 * so spreadsheets and dataframes can filter and pivot without knowing the
 * set of domains in advance. `bucket` is "all" except on turn records.
 * Numbers are unrounded; `score_text` is the printed two-decimal figure.
 * Token usage per stage sits on the domain records and on `overall_micro`
 * (all rows), so summing a column over the domains gives the total once.
 * Text cells go through csvCell (written.ts): made visible, a would-be formula quoted.
 */
export const CSV_COLUMNS = [
  'run',
  'file',
  'source',
  'judge',
  'domain',
  'bucket',
  'rows',
  'valid',
  'failed',
  'mean',
  'score',
  'score_text',
  'ci_lo',
  'ci_hi',
  'best',
  'ranked',
  'not_ranked',
  'expected_rows',
  ...DIMENSIONS,
  ...usageColumns('infer'),
  ...usageColumns('judge'),
] as const;

function usageColumns<S extends keyof StageUsage>(stage: S) {
  return [
    `${stage}_prompt_tokens`,
    `${stage}_completion_tokens`,
    `${stage}_reasoning_tokens`,
    `${stage}_cached_tokens`,
    `${stage}_cost_usd`,
  ] as const;
}

type Record = Partial<{ [K in (typeof CSV_COLUMNS)[number]]: string | number | boolean }>;

const num = (v: Ratio | number | undefined): number | '' => (v === undefined ? '' : typeof v === 'number' ? v : v.toNumber());

/** A stage's tokens as `awb score -f json` has them: cached blank when no row reported any, cost blank without prices. */
function usageFields(u: StageUsage | undefined, prices: Prices | undefined): Record {
  const out: Record = {};
  for (const stage of ['infer', 'judge'] as const) {
    const t = u?.[stage];
    if (!t?.rows) continue;
    const [prompt, completion, reasoning, cached, cost] = usageColumns(stage);
    Object.assign(out, {
      [prompt]: t.prompt,
      [completion]: t.completion,
      [reasoning]: t.reasoning,
      [cached]: t.cachedRows ? t.cached : '',
      [cost]: prices ? costOf(t, prices[stage]) : '',
    });
  }
  return out;
}

export function renderScoreCsv(report: ScoreReport, words: StandingWords): string {
  const board = leaderboard(report, words);
  const records: Record[] = [];
  for (const row of board.rows) {
    const base: Record = {
      run: row.label,
      file: row.run?.file ?? '',
      source: row.published ? 'published' : row.run?.memberOf ? 'panel-member' : 'run',
      judge: row.judge ?? '',
      ranked: row.run ? !row.run.memberOf && row.run.standing.ranked : '',
      not_ranked: row.unranked ?? '',
    };
    const scoreFields = (cell: ScoreCell): Record => ({
      mean: num(cell.mean),
      score: num(cell.score),
      score_text: cell.text,
      ci_lo: cell.ci?.lo ?? '',
      ci_hi: cell.ci?.hi ?? '',
      best: cell.best,
    });
    for (const column of board.columns) {
      const cell = row.cells[column];
      if (!cell) continue;
      const d = row.run?.score.domains.find((x) => x.domain === column);
      const totals = column === MACRO || column === MICRO ? row.run?.score : d;
      const dims: Record = {};
      if (d) DIMENSIONS.forEach((name, i) => (dims[name] = num(statScore(d.dims[i]!))));
      records.push({
        ...base,
        domain: column,
        bucket: 'all',
        rows: totals?.rows ?? '',
        expected_rows: cell.expected ?? '',
        valid: totals?.valid ?? '',
        failed: totals?.failed ?? '',
        ...scoreFields(cell),
        ...dims,
        ...usageFields(
          column === MICRO ? row.run?.usage : column === MACRO ? undefined : row.run?.usage.domains.get(column),
          report.prices,
        ),
      });
      if (report.byTurn && d) {
        for (const t of d.turns) {
          const score = statScore(t.total);
          records.push({
            ...base,
            domain: column,
            bucket: t.bucket,
            rows: t.rows,
            valid: t.valid,
            failed: t.rows - t.valid,
            mean: num(rawMean(t.total.sum, t.total.count)),
            score: num(score),
            score_text: formatFixed(score),
            ci_lo: row.run?.intervals?.turns.get(column)?.get(t.bucket)?.lo ?? '',
            ci_hi: row.run?.intervals?.turns.get(column)?.get(t.bucket)?.hi ?? '',
            best: false,
          });
        }
      }
    }
  }
  return csvText(records, CSV_COLUMNS);
}

import {
  AGREEMENT_DIMENSIONS,
  ALL,
  type AgreementDimension,
  type AgreementReport,
  type DimensionAgreement,
} from '../core/agreement/index.js';
import { domainLabel } from '../core/domains.js';
import { formatFixed, formatSigned, type Interval } from '../core/score/index.js';
import { left, right, type Cell, type Grid, type View } from './view.js';
import type { LabelWords, NoteWords } from './words.js';
import { csvText, jsonText } from './written.js';

/*
 * `awb agreement`: the view the table and markdown renderers lay out (per
 * pair of judges, totals by domain and grades by dimension over all domains;
 * alpha over all judges), and JSON and CSV with every domain × dimension.
 */

const DIMENSION_TITLES: Record<AgreementDimension, string> = {
  format: 'Format',
  factuality: 'Factuality',
  consistency: 'Consistency',
  realism: 'Realism',
  quality: 'Quality',
  total: 'Total',
};

const domainTitle = (d: string, words: LabelWords): string => (d === ALL ? words.allDomains : domainLabel(d));
/** A figure to three decimals, "n/a" where undefined (NaN). */
export const decimals = (v: number, digits = 3): string => formatFixed(v, digits);
const percent = (v: number, words: LabelWords): string => (Number.isNaN(v) ? words.na : `${formatFixed(v * 100, 1)}%`);
const bracket = (ci: Interval | undefined): string | undefined => ci && `[${formatSigned(ci.lo)}, ${formatSigned(ci.hi)}]`;

const FIGURE_COLUMNS = [right('Rows'), right('Exact'), right('κw'), right('α'), right('r'), right('Mean A − B')];

function figureCells(d: DimensionAgreement, labels: LabelWords): Cell[] {
  const extra = bracket(d.ci);
  return [
    { text: String(d.rows) },
    { text: percent(d.exact, labels) },
    { text: decimals(d.kappa) },
    { text: decimals(d.alpha) },
    { text: decimals(d.r) },
    { text: formatSigned(d.meanDiff), ...(extra ? { extra } : {}) },
  ];
}

/** `more`: whether to say where every domain × dimension is (`awb agreement`'s other formats); the report page has no such formats. */
export function agreementView(report: AgreementReport, noteWords: NoteWords, more = true): View {
  const { agreement: words, labels } = noteWords;
  const name = (j: number) => report.judges[j]!.label;
  const grids: Grid[] = report.pairs.flatMap((p): Grid[] => {
    const all = p.domains.find((d) => d.domain === ALL)!;
    return [
      {
        title: `A = ${name(p.a)}, B = ${name(p.b)}: totals by domain`,
        columns: [left('Domain'), right('Matched'), right('Failed A/B'), ...FIGURE_COLUMNS],
        rows: p.domains.map((d) => ({
          cells: [
            { text: domainTitle(d.domain, labels) },
            { text: String(d.matched) },
            { text: `${d.failedA}/${d.failedB}` },
            ...figureCells(d.dims.total, labels),
          ],
        })),
      },
      {
        title: `A = ${name(p.a)}, B = ${name(p.b)}: grades by dimension, all domains`,
        columns: [left('Dimension'), ...FIGURE_COLUMNS],
        rows: AGREEMENT_DIMENSIONS.map((dim) => ({ cells: [{ text: DIMENSION_TITLES[dim] }, ...figureCells(all.dims[dim], labels)] })),
      },
    ];
  });
  if (report.panel)
    grids.push({
      title: `Krippendorff's α (ordinal), all ${report.judges.length} judges`,
      columns: [left('Domain'), right('Rows'), ...AGREEMENT_DIMENSIONS.map((d) => right(DIMENSION_TITLES[d]))],
      rows: report.panel.map((p) => ({
        cells: [
          { text: domainTitle(p.domain, labels) },
          { text: String(p.units) },
          ...AGREEMENT_DIMENSIONS.map((d) => ({ text: decimals(p.alpha[d]) })),
        ],
      })),
    });
  const unpaired = report.pairs.flatMap((p) => (p.onlyA || p.onlyB ? [words.unpaired(name(p.a), name(p.b), p.onlyA, p.onlyB)] : []));
  return {
    intro: report.judges.map((j) => words.judge(j.label, j.file, j.rows, j.failed)),
    grids,
    footnotes: [words.rows, words.figures, words.meanDiff(report.bootstrap), ...unpaired, ...(more ? [words.more] : [])],
    verdict: [],
  };
}

const num = (v: number): number | null => (Number.isNaN(v) ? null : v);

function figureJson(d: DimensionAgreement) {
  return {
    rows: d.rows,
    exact: num(d.exact),
    kappa: num(d.kappa),
    alpha: num(d.alpha),
    r: num(d.r),
    mean_diff: num(d.meanDiff),
    ci: d.ci ? { lo: d.ci.lo, hi: d.ci.hi } : null,
  };
}

/** `--format json`: numbers unrounded, null where undefined; domains keyed by name, `all` over every domain. */
export function agreementJson(report: AgreementReport): string {
  const name = (j: number) => report.judges[j]!.label;
  const doc = {
    format: 'agentworldbench-agreement',
    version: 1,
    bootstrap: report.bootstrap ?? null,
    judges: report.judges,
    pairs: report.pairs.map((p) => ({
      a: name(p.a),
      b: name(p.b),
      only_a: p.onlyA,
      only_b: p.onlyB,
      different_gen: p.differentGen,
      domains: Object.fromEntries(
        p.domains.map((d) => [
          d.domain,
          {
            matched: d.matched,
            failed_a: d.failedA,
            failed_b: d.failedB,
            dimensions: Object.fromEntries(AGREEMENT_DIMENSIONS.map((dim) => [dim, figureJson(d.dims[dim])])),
          },
        ]),
      ),
    })),
    panel: report.panel
      ? Object.fromEntries(
          report.panel.map((p) => [
            p.domain,
            { rows: p.units, alpha: Object.fromEntries(AGREEMENT_DIMENSIONS.map((d) => [d, num(p.alpha[d])])) },
          ]),
        )
      : null,
  };
  return jsonText(doc);
}

const CSV_COLUMNS = [
  'judges',
  'judge_a',
  'judge_b',
  'domain',
  'dimension',
  'matched',
  'failed_a',
  'failed_b',
  'rows',
  'exact',
  'kappa',
  'alpha',
  'r',
  'mean_diff',
  'ci_lo',
  'ci_hi',
] as const;

/** Long layout: a record per pair × domain × dimension, then (three judges or more) the all-judges alpha with judges "all". */
export function agreementCsv(report: AgreementReport): string {
  const name = (j: number) => report.judges[j]!.label;
  const blank = (v: number | null | undefined) => v ?? '';
  const records: Array<Record<string, string | number>> = [];
  for (const p of report.pairs)
    for (const d of p.domains)
      for (const dim of AGREEMENT_DIMENSIONS) {
        const f = figureJson(d.dims[dim]);
        records.push({
          judges: 'pair',
          judge_a: name(p.a),
          judge_b: name(p.b),
          domain: d.domain,
          dimension: dim,
          matched: d.matched,
          failed_a: d.failedA,
          failed_b: d.failedB,
          rows: f.rows,
          exact: blank(f.exact),
          kappa: blank(f.kappa),
          alpha: blank(f.alpha),
          r: blank(f.r),
          mean_diff: blank(f.mean_diff),
          ci_lo: blank(f.ci?.lo),
          ci_hi: blank(f.ci?.hi),
        });
      }
  for (const p of report.panel ?? [])
    for (const dim of AGREEMENT_DIMENSIONS)
      records.push({ judges: 'all', domain: p.domain, dimension: dim, rows: p.units, alpha: blank(num(p.alpha[dim])) });
  return csvText(records, CSV_COLUMNS);
}

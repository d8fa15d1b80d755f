import { domainLabel } from '../core/domains.js';
import { formatFixed, formatSigned, type Interval } from '../core/score/index.js';
import type { RunBias } from '../core/bias/index.js';
import { left, right, type Cell, type Grid, type View } from './view.js';
import type { BiasWords, NoteWords } from './words.js';
import { csvText } from './written.js';

/** `awb score --bias`: the bias checks beside the leaderboard, in every format. */

/** The CSV's scope of the Overall row: a value of the data, as `awb drift`'s CSV has it. */
const OVERALL = 'Overall (macro)';

function ciText(ci: Interval | undefined, signed = false): string | undefined {
  const f = signed ? formatSigned : formatFixed;
  return ci ? `[${f(ci.lo)}, ${f(ci.hi)}]` : undefined;
}

function cell(value: number | undefined, ci: Interval | undefined, signed = false): Cell {
  const extra = ciText(ci, signed);
  return { text: signed ? formatSigned(value) : formatFixed(value), ...(extra ? { extra } : {}) };
}

/** The runs whose judge favours longer (or shorter) predictions in some domain: the slope's interval excludes 0. */
function lengthFlags(b: RunBias, words: BiasWords): string[] {
  const flagged = b.length.domains.filter((d) => d.biased);
  if (!flagged.length) return [];
  return [
    words.lengthBias(
      b.label,
      flagged.map((d) => ({ domain: domainLabel(d.domain), slope: formatSigned(d.fit!.slope) })),
    ),
  ];
}

export function biasView(runs: readonly RunBias[], noteWords: NoteWords): View {
  const { bias: words, labels } = noteWords;
  const grids: Grid[] = runs.map((b) => ({
    title: `${b.label}: length bias (total 0-100 on log2 of prediction/truth length)`,
    columns: [
      left('Domain'),
      right('Rows'),
      right('Median length ratio'),
      right('Mean'),
      right('Slope per doubling'),
      right('LC score'),
      left('Flag'),
    ],
    rows: [
      ...b.length.domains.map((d) => ({
        cells: [
          { text: domainLabel(d.domain) },
          { text: String(d.rows) },
          { text: `${formatFixed(d.medianRatio)}x` },
          { text: formatFixed(d.mean) },
          cell(d.fit?.slope, d.slopeCi, true),
          cell(d.fit?.intercept, d.lcCi),
          d.biased ? { text: labels.lengthBias, tone: 'bad' as const } : { text: '' },
        ],
      })),
      {
        cells: [
          { text: labels.overallMacro },
          { text: String(b.length.domains.reduce((n, d) => n + d.rows, 0)) },
          { text: '' },
          { text: formatFixed(b.length.mean) },
          { text: '' },
          cell(b.length.lc, b.length.lcCi),
          { text: '' },
        ],
      },
    ],
  }));
  const unmeasured = runs.filter((b) => b.unmeasured > 0).map((b) => words.unmeasured(b.label, b.unmeasured));
  return {
    intro: [words.heading, ...runs.map(words.selfPreference), ...runs.flatMap((b) => lengthFlags(b, words)), ...unmeasured],
    grids,
    footnotes: [...words.footnotes],
    verdict: [],
  };
}

const ci = (i: Interval | undefined) => (i ? [i.lo, i.hi] : null);

/** What `--format json` carries under `bias`. */
export function biasJson(runs: readonly RunBias[]) {
  return runs.map((b) => ({
    label: b.label,
    model: b.model ?? null,
    judge: b.judge ?? null,
    model_family: b.modelFamily ?? null,
    judge_family: b.judgeFamily ?? null,
    self_preference: b.selfPreference,
    unmeasured_rows: b.unmeasured,
    length: {
      domains: Object.fromEntries(
        b.length.domains.map((d) => [
          d.domain,
          {
            rows: d.rows,
            median_length_ratio: d.medianRatio,
            mean: d.mean,
            slope_per_doubling: d.fit?.slope ?? null,
            slope_ci95: ci(d.slopeCi),
            lc_score: d.fit?.intercept ?? null,
            lc_ci95: ci(d.lcCi),
            length_bias: d.biased,
          },
        ]),
      ),
      overall: { mean: b.length.mean ?? null, lc_score: b.length.lc ?? null, lc_ci95: ci(b.length.lcCi) },
    },
  }));
}

/** One line per run and domain (and its Overall); self-preference on every line of the run. */
export function biasCsv(runs: readonly RunBias[]): string {
  const rows: Array<Array<string | number | boolean | null>> = [
    [
      'run',
      'judge_family',
      'model_family',
      'self_preference',
      'domain',
      'rows',
      'median_length_ratio',
      'mean',
      'slope_per_doubling',
      'slope_ci_low',
      'slope_ci_high',
      'lc_score',
      'lc_ci_low',
      'lc_ci_high',
      'length_bias',
    ],
  ];
  for (const b of runs) {
    const run = [b.label, b.judgeFamily ?? null, b.modelFamily ?? null, b.selfPreference] as const;
    for (const d of b.length.domains)
      rows.push([
        ...run,
        d.domain,
        d.rows,
        d.medianRatio,
        d.mean,
        d.fit?.slope ?? null,
        d.slopeCi?.lo ?? null,
        d.slopeCi?.hi ?? null,
        d.fit?.intercept ?? null,
        d.lcCi?.lo ?? null,
        d.lcCi?.hi ?? null,
        d.biased,
      ]);
    const l = b.length;
    rows.push([
      ...run,
      OVERALL,
      l.domains.reduce((n, d) => n + d.rows, 0),
      null,
      l.mean ?? null,
      null,
      null,
      null,
      l.lc ?? null,
      l.lcCi?.lo ?? null,
      l.lcCi?.hi ?? null,
      l.domains.some((d) => d.biased),
    ]);
  }
  return csvText(rows);
}

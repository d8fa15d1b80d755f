import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { compareDomains, domainLabel } from '../../core/domains.js';
import type { CollectedReport, Kept, PanelAgreement, ReportDrift, ReportRow, RunPair } from '../../core/report/index.js';
import { firstText, scopeName } from '../drift.js';
import { agreementView } from '../agreement.js';
import { DIMENSIONS } from '../../core/schemas/index.js';
import { TURN_BUCKETS, formatFixed, formatSigned, statScore, type Ratio, type ScoreReport } from '../../core/score/index.js';
import { VERSION } from '../../version.js';
import { scoreView } from '../model.js';
import type { LabelWords, NoteWords } from '../words.js';
import { FIGURES, modesJson, modesView } from '../modes.js';
import { comparisonJson } from './comparison.js';

/*
 * The report page: one HTML file with its script, style and data inline.
 * Nothing from the data is ever written as markup: it travels as JSON in a
 * data block and the page's script puts it on screen as text nodes. The
 * Content-Security-Policy lets only this script and style run and forbids
 * every network request.
 */

/** The page's script and style, shipped as plain files beside the package (see package.json "files"). */
const asset = (name: string): string => readFileSync(new URL(`../../../assets/report/${name}`, import.meta.url), 'utf8');

const num = (r: Ratio | undefined): number | null => (r === undefined ? null : r.toNumber());

/** The figures the charts draw, straight from the score report. */
function charts(report: ScoreReport | undefined) {
  return {
    dimensions: DIMENSIONS,
    buckets: TURN_BUCKETS.map((b) => b.label),
    runs: (report?.runs ?? []).map((run) => ({
      label: run.label,
      domains: run.score.domains.map((d) => {
        const ci = run.intervals?.domains.get(d.domain);
        return {
          domain: d.domain,
          score: num(d.score),
          text: formatFixed(d.score),
          ci: ci ? [ci.lo, ci.hi] : null,
          dims: d.dims.map((s) => num(statScore(s))),
          rows: d.rows,
          valid: d.valid,
          failed: d.failed,
          turns: d.turns.map((t) => ({ bucket: t.bucket, rows: t.rows, score: num(statScore(t.total)) })),
        };
      }),
    })),
  };
}

const kept = (k: Kept): string | [string, number] => (typeof k === 'string' ? k : [k.head, k.length]);

function rowJson(r: ReportRow) {
  return {
    run: r.run,
    d: r.domain,
    id: r.id,
    t: r.turn,
    ref: r.ref,
    key: r.key,
    line: r.line,
    g: r.grades,
    tot: r.total,
    s: r.score ?? null,
    st: r.scoreText,
    f: r.failed ? 1 : 0,
    a: kept(r.action),
    p: kept(r.prediction),
    gt: kept(r.truth),
    sw: r.strengths.map(kept),
    wk: r.weaknesses.map(kept),
    j: kept(r.judge),
    e: kept(r.error),
    ...(r.choice
      ? {
          c: {
            m: r.choice.mode,
            o: r.choice.orders.map((o) => ({
              ...(o.judge !== undefined && { j: o.judge }),
              at: o.at,
              ch: o.choice,
              h: o.hit,
              raw: kept(o.raw),
              e: kept(o.error),
            })),
            ref: kept(r.choice.reference),
          },
        }
      : {}),
    ...(r.repeats ? { rp: r.repeats.map((x) => ({ t: x.total, f: x.failed ? 1 : 0, raw: kept(x.raw) })) } : {}),
    ...(r.rollout ? { ro: r.rollout.map((x) => [x.turn, kept(x.generated), kept(x.real)]), roN: r.rolloutTurns } : {}),
  };
}

/** The drift curves as the page draws them: a line per domain and Overall over the horizons, the drops with intervals. */
function driftJson(drift: ReportDrift, files: CollectedReport['files'], words: LabelWords) {
  const ci = (i: { lo: number; hi: number } | undefined) => (i ? [i.lo, i.hi] : null);
  return {
    horizons: drift.horizons.map(words.horizon),
    hs: drift.horizons,
    runs: drift.runs.map((run) => files[run]!.label),
    rows: drift.rows,
    curves: drift.curves.map((c) => ({
      label: scopeName(c.scope, words),
      rows: c.rows,
      first: firstText(c, drift.intervals, words),
      points: c.points.map((p) => ({
        s: num(p.score),
        sci: ci(p.scoreCi),
        d: num(p.drop),
        dt: formatSigned(p.drop),
        dci: ci(p.dropCi),
        sig: p.significant,
      })),
    })),
  };
}

export interface PageInput {
  collected: CollectedReport;
  /** When the report was made, shown on the page. */
  generated: Date;
  /** Ordered pairs of graded runs, for the comparison view (none: no view). */
  pairs?: readonly RunPair[];
  /** Files judged by a panel: how far its members agree (none: no agreement section). */
  panels?: readonly PanelAgreement[];
  /** A teacher-forced run and free-running ones: their drift curves (none: no drift chart). */
  drift?: ReportDrift;
  /** The words of the leaderboard's notes (src/commands/words/). */
  words: NoteWords;
}

/** Per file judged by a panel, the tables `awb agreement` prints, its members as the judges. */
function agreementJson(panels: readonly PanelAgreement[], files: CollectedReport['files'], words: NoteWords) {
  return panels.map((p) => {
    const view = agreementView(p.agreement, words, false);
    return {
      run: p.run,
      label: files[p.run]!.label,
      judges: p.agreement.judges.map((j) => j.label),
      grids: view.grids,
      footnotes: view.footnotes,
    };
  });
}

/** JSON that can sit inside a <script> element: no `<` survives, so neither `</script>` nor `<!--` can end or bend the block. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * The rows as gzipped JSON in base64, unpacked by the page with the
 * browser's own DecompressionStream. Browsers tokenize a data block
 * character by character, and the full data's texts made that the whole of
 * the load time; packed, the block is a fraction of the size. Base64 has no
 * `<` at all, so nothing in it can close the block.
 */
export function packedJson(value: unknown): string {
  return gzipSync(JSON.stringify(value), { level: 6 }).toString('base64');
}

/** Characters of packed rows per data block: the browser's parser can pause (and paint) between blocks, never inside one. */
const BLOCK = 1 << 18;

function blocks(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += BLOCK) out.push(text.slice(at, at + BLOCK));
  return out.length ? out : [''];
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** What the page's scripts say: theirs, and the labels and marks they share with the grids. */
function pageWords(words: NoteWords) {
  const { na, overall, overallMacro } = words.labels;
  return { ...words.page, na, overall, overallMacro, best: words.best.bold };
}

/** Our own words in the page's markup (its title, the no-script line), escaped as text. */
const markupText = (text: string): string => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The whole page. */
export function renderReportHtml(input: PageInput): string {
  const page = input.words.page;
  const { report, rows, modes, files } = input.collected;
  const view = report && scoreView(report, input.words);
  const modeView = modes.length ? modesView(modes, input.words) : undefined;
  const domains = [...new Set([...(report?.domains ?? []), ...modes.flatMap((m) => m.score.domains.map((d) => d.domain))])].sort(
    compareDomains,
  );
  const data = {
    tool: `agentworldbench ${VERSION}`,
    generated: input.generated.toISOString(),
    limit: rows.limit,
    cutTexts: rows.cutTexts,
    domains: domains.map((d) => ({ id: d, label: domainLabel(d) })),
    runs: files.map((f) => ({ label: f.label, file: f.path, mode: f.mode })),
    view: view ? { grids: view.grids, footnotes: view.footnotes, marksBest: view.marksBest !== undefined } : undefined,
    // The judge modes as `awb score` shows them: its grids, and its JSON figures for the charts.
    modes: modeView ? { grids: modeView.grids, footnotes: modeView.footnotes, figures: modesJson(modes), names: FIGURES } : undefined,
    warnings: input.collected.warnings.map(input.words.notice),
    charts: charts(report),
    compare: input.pairs?.length ? comparisonJson(input.pairs, input.words.labels) : undefined,
    agreement: input.panels?.length ? agreementJson(input.panels, files, input.words) : undefined,
    drift: input.drift ? driftJson(input.drift, files, input.words.labels) : undefined,
    words: pageWords(input.words),
  };
  const script = `${asset('page.js')}\n${asset('compare.js')}`;
  const style = `${asset('page.css')}\n${asset('compare.css')}`;
  // Inlined as they are: text that would end their element early is a bug of ours.
  if (/<\/script|<!--/i.test(script) || /<\/style/i.test(style)) throw new Error('report assets must not hold </script, <!-- or </style');
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    "img-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${markupText(page.title)}</title>`,
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    `<noscript>${markupText(page.noscript).replace('{command}', '<code>awb score</code>')}</noscript>`,
    '<main id="app"></main>',
    // The leaderboard's data and the script come before the rows' data: the
    // page shows the leaderboard and charts while the browser still reads the rows.
    `<script type="application/json" id="awb-data">${scriptSafeJson(data)}</script>`,
    `<script>${script}</script>`,
    ...blocks(packedJson(rows.rows.map(rowJson))).map((b) => `<script type="application/octet-stream" class="awb-rows">${b}</script>`),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

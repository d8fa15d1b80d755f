import type { ScoreReport } from '../core/score/index.js';
import { compareView, type ComparePage } from './compare-view.js';
import { scoreView } from './model.js';
import { visibleView, type Cell, type Grid, type View } from './view.js';
import type { NoteWords } from './words.js';

/** GitHub-flavoured markdown: a heading and a table per grid, footnotes as a list. */
export function renderScoreMarkdown(report: ScoreReport, words: NoteWords): string {
  return renderView(scoreView(report, words));
}

/** Also what `--summary` appends to $GITHUB_STEP_SUMMARY, so it starts with its own heading. */
export function renderCompareMarkdown(report: ComparePage): string {
  return renderView(compareView(report), '## awb compare');
}

export function renderView(raw: View, heading?: string): string {
  const view = visibleView(raw);
  const out: string[] = [];
  if (heading) out.push(heading, '');
  // The verdict comes first: a CI summary is read from the top.
  const [verdict, ...reasons] = view.verdict;
  if (verdict) out.push(`**${escape(verdict)}**`, '');
  if (reasons.length) out.push(...reasons.map((l) => `- ${escape(l.trim())}`), '');
  if (view.intro.length) out.push(...view.intro.map((l) => `${escape(l)}  `), '');
  for (const g of view.grids) out.push(`### ${escape(g.title)}`, '', ...renderGrid(g), '');
  const footnotes = view.marksBest ? [...view.footnotes, view.marksBest.bold] : view.footnotes;
  if (footnotes.length) out.push(...footnotes.map((f) => `- ${escape(f)}`), '');
  return out.join('\n');
}

function renderGrid(g: Grid): string[] {
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    row(g.columns.map((c) => escape(c.title))),
    row(g.columns.map((c) => (c.align === 'right' ? '---:' : ':---'))),
    ...g.rows.map((r) => row(g.columns.map((_, i) => cellText(r.cells[i] ?? { text: '' })))),
  ];
}

function cellText(cell: Cell): string {
  let s = escape(cell.text);
  if (cell.best && s) s = `**${s}**`;
  if (cell.extra) s += ` ${escape(cell.extra)}`;
  if (cell.sub) s += ` (${escape(cell.sub)})`;
  return s;
}

/**
 * Pipes would split cells; stars and underscores in file names would turn into emphasis; `<` would open HTML;
 * `!`, brackets and parentheses would let a label plant a link or an image that loads as the summary is read.
 */
function escape(s: string): string {
  return s.replace(/([\\|*_`<>![\]()])/g, '\\$1');
}

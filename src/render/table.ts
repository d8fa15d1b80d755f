import { Chalk, type ChalkInstance, type ColorSupportLevel } from 'chalk';
import type { ScoreReport } from '../core/score/index.js';
import { compareView, type ComparePage } from './compare-view.js';
import { scoreView } from './model.js';
import { visibleView, type Cell, type Grid, type View } from './view.js';
import type { NoteWords } from './words.js';

export function renderScoreTable(report: ScoreReport, words: NoteWords, level: ColorSupportLevel = 0): string {
  return renderView(scoreView(report, words), new Chalk({ level }));
}

export function renderCompareTable(report: ComparePage, level: ColorSupportLevel = 0): string {
  return renderView(compareView(report), new Chalk({ level }));
}

/** Any view (the judge modes' figures) on a terminal. */
export function renderViewTable(view: View, level: ColorSupportLevel = 0): string {
  return renderView(view, new Chalk({ level }));
}

function renderView(raw: View, c: ChalkInstance): string {
  const view = visibleView(raw);
  const out: string[] = [...view.intro];
  for (const g of view.grids) {
    if (out.length) out.push('');
    out.push(c.bold(g.title), ...renderGrid(g, c));
  }
  const footnotes = view.marksBest ? [...view.footnotes, c.level ? view.marksBest.bold : view.marksBest.star] : view.footnotes;
  if (footnotes.length) out.push('', ...footnotes.map((f) => c.dim(f)));
  if (view.verdict.length) out.push('', ...view.verdict);
  return out.join('\n') + '\n';
}

/** Without colours, best cells keep a visible mark. */
function plainMain(cell: Cell, c: ChalkInstance): string {
  return cell.best && c.level === 0 ? `${cell.text}*` : cell.text;
}

function renderGrid(g: Grid, c: ChalkInstance): string[] {
  // Widths are measured on the plain text; styling is applied after padding.
  const plain = (cell: Cell): string => [plainMain(cell, c), cell.extra].filter(Boolean).join(' ');
  const widths = g.columns.map((col, i) =>
    Math.max(col.title.length, ...g.rows.map((r) => Math.max(plain(r.cells[i] ?? { text: '' }).length, (r.cells[i]?.sub ?? '').length))),
  );
  const pad = (s: string, width: number, align: 'left' | 'right'): string => {
    const gap = ' '.repeat(Math.max(0, width - s.length));
    return align === 'right' ? gap + s : s + gap;
  };
  const join = (parts: string[]): string => parts.join('  ').trimEnd();
  const lines = [join(g.columns.map((col, i) => pad(col.title, widths[i]!, col.align))), join(widths.map((w) => '-'.repeat(w)))];
  for (const row of g.rows) {
    const styled = g.columns.map((col, i) => {
      const cell = row.cells[i] ?? { text: '' };
      const width = widths[i]!;
      const text = plain(cell);
      const gap = ' '.repeat(Math.max(0, width - text.length));
      let main = plainMain(cell, c);
      if (cell.best) main = c.bold(main);
      if (cell.tone) main = cell.tone === 'good' ? c.green(main) : c.red(main);
      const body = cell.extra ? `${main} ${c.dim(cell.extra)}` : main;
      const laid = col.align === 'right' ? gap + body : body + gap;
      return row.muted ? c.dim(laid) : laid;
    });
    lines.push(join(styled));
    if (row.cells.some((cell) => cell.sub)) {
      lines.push(join(g.columns.map((col, i) => c.dim(pad(row.cells[i]?.sub ?? '', widths[i]!, col.align)))));
    }
  }
  return lines;
}

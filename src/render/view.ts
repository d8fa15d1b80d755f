import type { Notice } from '../core/errors.js';
import type { MixedResume, PublishedGap } from '../core/score/index.js';
import { visible } from '../core/shown.js';

/*
 * A format-neutral view: titled grids of cells plus footnotes and a verdict,
 * which the terminal and markdown renderers lay out.
 */

export type Align = 'left' | 'right';

export interface Cell {
  /** The value; what is bolded when best. */
  text: string;
  /** Shown after the value, never bolded (the ± half-width). */
  extra?: string;
  /** Secondary line (terminal) or parenthesis (markdown): counts such as valid/total. */
  sub?: string;
  best?: boolean;
  tone?: 'good' | 'bad';
}

/** A column of text read from the left (names). */
export const left = (title: string): { title: string; align: Align } => ({ title, align: 'left' });
/** A column of figures, aligned on the right. */
export const right = (title: string): { title: string; align: Align } => ({ title, align: 'right' });

export interface Grid {
  title: string;
  columns: Array<{ title: string; align: Align }>;
  rows: Array<{ cells: Cell[]; muted?: boolean }>;
}

export interface View {
  /** Lines before the tables. */
  intro: string[];
  grids: Grid[];
  footnotes: string[];
  /** The gate's verdict: first in markdown (the CI summary), last on a terminal. */
  verdict: string[];
  /** Some cells carry best-in-column marks; each renderer explains its own way of showing them. */
  marksBest?: boolean;
}

/**
 * Core's notes and published gaps as the user reads them. They are worded in src/commands/words/ (NOTE_WORDS), which
 * render cannot import (commands import render): each command hands them to the renderers it calls.
 */
export interface NoteWords {
  notice: (n: Notice) => string;
  gap: (g: PublishedGap) => string;
  /** A forced resume that mixed a run's file (its provenance's `mixed`). */
  mixed: (m: MixedResume) => string;
}

/** A value's object keys in snake_case, as JSON documents key them (macroDomains → macro_domains). */
function snakeKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snakeKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeKeys(x)]));
}

/**
 * Notes as JSON carries them beside their sentences (`notes`): each note's kind and fields, and its `message`; a
 * published-incomparable note's gaps and a run-mixes-settings note's forced resumes each with theirs.
 */
export function notesData(notes: readonly Notice[], words: NoteWords): unknown[] {
  return notes.map((n) => {
    const parts =
      n.kind === 'published-incomparable'
        ? { gaps: n.gaps.map((g) => ({ ...g, message: words.gap(g) })) }
        : n.kind === 'run-mixes-settings'
          ? { mixed: n.mixed.map((m) => ({ ...m, message: words.mixed(m) })) }
          : {};
    return snakeKeys({ ...n, ...parts, message: words.notice(n) });
  });
}

/** The view with every text made visible: labels, tasks, judges and file names come from files. */
export function visibleView(view: View): View {
  const cell = (c: Cell): Cell => ({
    ...c,
    text: visible(c.text),
    ...(c.extra !== undefined ? { extra: visible(c.extra) } : {}),
    ...(c.sub !== undefined ? { sub: visible(c.sub) } : {}),
  });
  return {
    ...view,
    intro: view.intro.map(visible),
    grids: view.grids.map((g) => ({
      ...g,
      title: visible(g.title),
      columns: g.columns.map((c) => ({ ...c, title: visible(c.title) })),
      rows: g.rows.map((r) => ({ ...r, cells: r.cells.map(cell) })),
    })),
    footnotes: view.footnotes.map(visible),
    verdict: view.verdict.map(visible),
  };
}

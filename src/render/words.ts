import type { Notice } from '../core/errors.js';
import type { GateReason, GateResult, Untested } from '../core/compare/index.js';
import type { MixedResume, PublishedGap, Unranked } from '../core/score/index.js';
import type { RunBias } from '../core/bias/index.js';
import type { BestMarks } from './view.js';
import type { Horizon } from '../core/schemas/index.js';

/** A bootstrap's settings, as the footnotes name them. */
interface Bootstrap {
  resamples: number;
  seed: number;
}

/*
 * The sentences renderers show, as the shapes they are handed in. They are worded in src/commands/words/
 * (NOTE_WORDS), which render cannot import (commands import render): each command hands them to the renderers it
 * calls. Render decides which sentence a report needs; the words decide how it reads.
 */

/** How to complete a candidate whose failed rows can be asked again: generate and judge them anew, or judge them anew. */
export type GateRemedy = 'infer-and-judge' | 'judge';

/** The compare gate's lines: the terminal, the markdown summary and JSON's `message` carry them. */
export interface GateWords {
  /** The verdict's first line: failed, or passed with what was tested. */
  head: (g: GateResult) => string;
  /** Why the gate failed, one reason; `candidate` is the candidate run's label. */
  reason: (r: GateReason, candidate: string) => string;
  /** How to complete the candidate, when the gate failed on its failed rows; `awb`: how the user started awb. */
  remedy: (remedy: GateRemedy, candidate: string, awb: string) => string;
  /** A domain too small to test, said without failing the gate (JSON's `message`). */
  untested: (u: Untested) => string;
  /** The same as a line under the verdict. */
  notTested: (u: Untested) => string;
  /** JSON's `rule`: when the gate fails, in terms of its fields. */
  rule: string;
  /** The footnote that says how the gate tests. */
  method: (g: GateResult) => string;
}

/** What `awb compare` says around its tables: the runs compared, and the footnotes. */
export interface CompareWords {
  /** The lines above the tables: each side (`about`: its file, rows and standing), and the domains asked for. */
  baseline: (label: string, about: string) => string;
  candidate: (label: string, about: string) => string;
  domains: (labels: readonly string[]) => string;
  /** A side's file and rows, and what keeps it from a like-for-like comparison (`standing`: "40 of 198 judged", "other judge"). */
  about: (file: string, rows: number, standing: readonly string[]) => string;
  /** How the intervals and the Verdict column are made. */
  intervals: string;
  /** JSON's `intervals.method`: the intervals' method, briefly. */
  intervalsMethod: string;
  verdict: string;
  /** The title of the table of the rows that changed most. */
  changedTitle: (rows: number) => string;
  /** The command that shows the rows that changed most, ready to paste. */
  rowsCommand: (command: string) => string;
}

/** The footnotes under a leaderboard that say how it was made (`method` in JSON); render picks which apply. */
export interface MethodWords {
  scores: string;
  failuresAsLowest: string;
  bootstrap: (resamples: number, seed: number) => string;
  byTurnIntervals: string;
  oneTrajectory: string;
  best: string;
  notRanked: string;
  /** --by-judge: what a panel member's row is. */
  panelMember: string;
  /** --by-judge on a run judged by one judge. */
  singleJudge: (label: string, judge: string | undefined) => string;
  published: string;
  /** The usage table's title: with each stage's prices ("$1/$4"), or how to give them. */
  usageTitle: (prices: { infer: string; judge: string } | undefined) => string;
}

/** What `awb drift` says around its tables. */
export interface DriftWords {
  /** The first line: the runs' labels. */
  title: (labels: readonly string[]) => string;
  /** A run: its horizon as the tables name it, its label and file. */
  run: (horizon: string, label: string, file: string) => string;
  horizon: string;
  intervals: (resamples: number, seed: number) => string;
  noIntervals: string;
  rows: string;
}

/** `awb score`'s judge-mode figures: their footnotes. */
export interface ModesWords {
  footnotes: readonly string[];
}

/** `awb score --bias`: the checks' lines above the tables, and the footnotes. */
export interface BiasWords {
  heading: string;
  /** A run's judge and world model, and whether they are of one family. */
  selfPreference: (b: RunBias) => string;
  /** A run whose judge favours longer (or shorter) predictions: each flagged domain's label and slope as printed. */
  lengthBias: (label: string, flagged: ReadonlyArray<{ domain: string; slope: string }>) => string;
  /** Counted rows the length fit leaves out. */
  unmeasured: (label: string, rows: number) => string;
  footnotes: readonly string[];
}

/** `awb agreement`: the judges compared, and the footnotes; `--by-model`'s footnotes. */
export interface AgreementWords {
  judge: (label: string, file: string, rows: number, failed: number) => string;
  rows: string;
  figures: string;
  meanDiff: (bootstrap: Bootstrap | undefined) => string;
  /** Rows one judge's file has and the other's lacks. */
  unpaired: (a: string, b: string, onlyA: number, onlyB: number) => string;
  /** Where every domain × dimension is (the command's other formats; the report page has none). */
  more: string;
  /** --by-model: the domains Overall averages (labels), and those left out. */
  overall: (domains: readonly string[], leftOut: readonly string[]) => string;
  tau: string;
  disagree: string;
  resamples: (bootstrap: Bootstrap | undefined) => string;
}

/** Why a run is not ranked, as its leaderboard row and compare's first lines say it. */
export interface StandingWords {
  /** One reason, in a few words ("40 of 198 judged", "other judge"). */
  reason: (u: Unranked) => string;
  /** The row's note: every reason. */
  notRanked: (reasons: readonly string[]) => string;
}

/**
 * The short labels of cells and rows in the views and on the page (column headers and grid titles stay with the
 * grids; CSV and JSON carry data, never these).
 */
export interface LabelWords {
  /** A figure that cannot be had (no interval, no pair). */
  na: string;
  /** A score's ± with no interval to show (one trajectory). */
  noHalfWidth: string;
  overall: string;
  overallMacro: string;
  overallMicro: string;
  allDomains: string;
  /** Compare's Verdict column: the interval below 0, above it, or across it. */
  verdict: { worse: string; better: string; unclear: string };
  /** Bias's Flag column. */
  lengthBias: string;
  /** Whether the judges order a pair of models differently (--by-model without intervals), and the share of resamples that swap it. */
  disagree: { yes: string; no: string };
  swaps: (share: string) => string;
  /** A drift run's horizon (0: teacher-forced). */
  horizon: (h: Horizon) => string;
  /** Drift's first significant drop: none, or none called without intervals. */
  noDrop: string;
  noDropCalled: string;
}

/** `awb rows`' blocks: a row's status and action, the two sides' headings, the judge's lists, what a cut leaves out. */
export interface RowWords {
  failed: (error: string | undefined) => string;
  total: (grade: string) => string;
  action: (text: string) => string;
  prediction: string;
  groundTruth: (index: number) => string;
  /** A free-running row's history: turn `turn`'s generated observation beside the real one (`index` in response). */
  generated: (turn: number) => string;
  real: (turn: number, index: number) => string;
  strengths: string;
  weaknesses: string;
  empty: string;
  moreLines: (n: number) => string;
}

/**
 * What the report page says: its scripts' words are carried in the page's data: `{name}` is filled in by the page, a pair is [one,
 * many] (picked by `{n}`).
 */
export interface PageWords {
  /** The page's title, and the line shown without scripts (`{command}`: the command that prints the numbers). */
  readonly title: string;
  readonly noscript: string;
  readonly [key: string]: string | readonly [string, string];
}

/** Every sentence a renderer is handed: core's notes and published gaps, the gate's lines and the footnotes. */
export interface NoteWords {
  notice: (n: Notice) => string;
  gap: (g: PublishedGap) => string;
  /** A forced resume that mixed a run's file (its provenance's `mixed`). */
  mixed: (m: MixedResume) => string;
  /** A note's line under a table ("Note: …"). */
  note: (sentence: string) => string;
  gate: GateWords;
  compare: CompareWords;
  method: MethodWords;
  standing: StandingWords;
  /** What the leaderboard's best-in-column marks mean. */
  best: BestMarks;
  drift: DriftWords;
  modes: ModesWords;
  bias: BiasWords;
  agreement: AgreementWords;
  labels: LabelWords;
  rows: RowWords;
  page: PageWords;
}

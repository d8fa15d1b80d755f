import { FaultError, UserError, type Fault, type Notice } from '../../core/errors.js';
import { AGREEMENT_WORDS } from './results/agreement.js';
import { COMPARE_WORDS } from './results/compare.js';
import { DOWNLOAD_WORDS } from './data/download.js';
import { DRIFT_WORDS } from './results/drift.js';
import { COMPARE_LINES, gateWords } from './results/gate.js';
import { BEST_MARKS, METHOD_WORDS, STANDING_WORDS } from './results/method.js';
import { AGREEMENT_LINES, BIAS_LINES, DRIFT_LINES, MODES_LINES } from './results/views.js';
import { LABELS, ROW_WORDS } from './results/labels.js';
import { PAGE_WORDS } from './results/page.js';
import { ENDPOINT_NOTICES, ENDPOINT_WORDS } from './stage/endpoints.js';
import { JUDGE_WORDS } from './stage/judge.js';
import { MERGE_WORDS } from './results/merge.js';
import { COMPARE_NOTICES, DRIFT_NOTICES, SCORE_NOTICES, gapText, mixedText } from './results/notes.js';
import { OUTPUT_WORDS } from './data/output.js';
import { PUBLISH_WORDS } from './results/publish.js';
import { ROWS_WORDS } from './data/rows.js';
import { RUBRICS_NOTICES, RUBRICS_WORDS } from './data/rubrics.js';
import { RUNNER_WORDS } from './stage/runner.js';
import { SCORE_WORDS } from './results/score.js';
import { STAGE_WORDS } from './stage/stage.js';
import { TOP_WORDS } from './data/top.js';
import { AGREEMENT_WARNINGS, COMPARE_WARNINGS, SCORE_WARNINGS } from './results/warnings.js';
import { thisInvocation } from '../shared/invocation.js';
import type { NoticeWords, Words } from './words.js';
import type { NoteWords } from '../../render/words.js';

/*
 * The one place where core's faults become sentences: each kind's message,
 * the flag that fixes it, and its exit code. The table is typed by kind, so a
 * fault without words does not compile.
 */
const WORDS: Words<Fault> = {
  ...AGREEMENT_WORDS,
  ...COMPARE_WORDS,
  ...DOWNLOAD_WORDS,
  ...DRIFT_WORDS,
  ...ENDPOINT_WORDS,
  ...JUDGE_WORDS,
  ...MERGE_WORDS,
  ...OUTPUT_WORDS,
  ...PUBLISH_WORDS,
  ...ROWS_WORDS,
  ...RUBRICS_WORDS,
  ...RUNNER_WORDS,
  ...SCORE_WORDS,
  ...STAGE_WORDS,
  ...TOP_WORDS,
};

/**
 * The fault as the user reads it: one line (newlines allowed only where a command is quoted) and an exit code.
 * `awb`: how the user started awb, for the commands the message names (this process's, unless told).
 */
export function worded(fault: Fault, awb = thisInvocation()): UserError {
  const word = WORDS[fault.kind as keyof typeof WORDS] as (f: Fault, awb: string) => ReturnType<Words<Fault>[keyof Words<Fault>]>;
  const said = word(fault, awb);
  return typeof said === 'string' ? new UserError(said) : new UserError(said.message, said.exit);
}

/** What core tells without stopping (a notice), one table per subsystem as for faults. */
const NOTICES: NoticeWords<Notice> = {
  ...AGREEMENT_WARNINGS,
  ...COMPARE_NOTICES,
  ...COMPARE_WARNINGS,
  ...DRIFT_NOTICES,
  ...ENDPOINT_NOTICES,
  ...RUBRICS_NOTICES,
  ...SCORE_NOTICES,
  ...SCORE_WARNINGS,
};

/** A notice as the warning line the user reads (printWarnings). */
export function noticed(notice: Notice): string {
  return (NOTICES[notice.kind as keyof typeof NOTICES] as (n: Notice) => string)(notice);
}

/** The sentences renderers show: core's notes and published gaps, the gate's lines, the footnotes (render imports no command: the commands hand them over). */
export const NOTE_WORDS: NoteWords = {
  notice: noticed,
  gap: gapText,
  mixed: mixedText,
  note: (sentence) => `Note: ${sentence}`,
  gate: gateWords(noticed),
  compare: COMPARE_LINES,
  method: METHOD_WORDS,
  standing: STANDING_WORDS,
  best: BEST_MARKS,
  drift: DRIFT_LINES,
  modes: MODES_LINES,
  bias: BIAS_LINES,
  agreement: AGREEMENT_LINES,
  labels: LABELS,
  rows: ROW_WORDS,
  page: PAGE_WORDS,
};

/** A fault thrown by core, worded; any other error unchanged. */
export function toUserError(err: unknown): unknown {
  return err instanceof FaultError ? worded(err.fault) : err;
}

export { EXIT, GATE_OUTCOMES } from './words.js';
export type { NoticeWords, Said, Words } from './words.js';

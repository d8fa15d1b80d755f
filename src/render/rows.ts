import type { RowView } from '../core/score/index.js';
import { DIMENSIONS } from '../core/schemas/index.js';
import { visible, visibleLines } from '../core/shown.js';
import type { RowWords } from './words.js';

/*
 * `awb rows`: a block per row for the terminal, or JSON objects. Every
 * text from the file goes through visible/visibleLines, so a prediction
 * holding escape sequences cannot act on the terminal.
 */

/** Lines of prediction and ground truth shown per row before the rest is counted. */
const MAX_LINES = 20;
/** Lines of each turn of a free-running row's rollout. */
const ROLLOUT_LINES = 6;
const CUT = '…';

/** The row as one JSON object: the judged row's own fields plus the cleaned texts. */
export function rowJson(r: RowView): Record<string, unknown> {
  return {
    key: r.key,
    fingerprint: r.fingerprint,
    task: r.task,
    id: r.id,
    turn_idx: r.turn_idx,
    total_score: r.total_score,
    ...r.grades,
    failed: r.failed,
    current_action: r.action,
    prediction: r.prediction,
    ground_truth: r.groundTruth,
    strengths: r.strengths,
    weaknesses: r.weaknesses,
    ...(r.error !== undefined ? { error_message: r.error } : {}),
    ...(r.rollout ? { rollout: r.rollout } : {}),
  };
}

/** One row for a terminal `width` columns wide: prediction and ground truth side by side, each line cut with a mark. */
export function renderRowBlock(r: RowView, width: number, words: RowWords): string {
  const w = Math.max(40, width);
  const grades = DIMENSIONS.map((d) => `${d} ${r.grades[d]}`).join(' · ');
  const status = r.failed ? words.failed(r.error === undefined ? undefined : visible(r.error)) : words.total(formatGrade(r.total_score));
  const out = [cut(`── ${visible(r.key)} ── ${status} · ${grades}`, w), cut(words.action(visible(oneLine(r.action))), w)];
  const col = Math.floor((w - 3) / 2);
  out.push(`${pad(words.prediction, col)} │ ${words.groundTruth(r.turn_idx - 1)}`);
  out.push(...sideBySide(textLines(r.prediction, words), textLines(r.groundTruth, words), col, MAX_LINES, words));
  // A free-running row: the history the model was given, its own observations beside the real ones.
  for (const step of r.rollout ?? []) {
    out.push(`${pad(words.generated(step.turn), col)} │ ${words.real(step.turn, step.turn - 1)}`);
    out.push(...sideBySide(textLines(step.generated, words), textLines(step.real, words), col, ROLLOUT_LINES, words));
  }
  for (const [name, items] of [
    [words.strengths, r.strengths],
    [words.weaknesses, r.weaknesses],
  ] as const) {
    if (items.length) out.push(name, ...items.map((s) => cut(`  - ${visible(oneLine(s))}`, w)));
  }
  return out.join('\n') + '\n';
}

/** Two texts in columns `col` wide, at most `max` lines each, what is left counted. */
function sideBySide(left: string[], right: string[], col: number, max: number, words: RowWords): string[] {
  const out: string[] = [];
  const shown = Math.min(max, Math.max(left.length, right.length));
  for (let i = 0; i < shown; i++) out.push(`${pad(cut(left[i] ?? '', col), col)} │ ${cut(right[i] ?? '', col)}`.trimEnd());
  const more = (lines: string[]): string => (lines.length > max ? `${CUT} ${words.moreLines(lines.length - max)}` : '');
  if (left.length > max || right.length > max) out.push(`${pad(more(left), col)} │ ${more(right)}`.trimEnd());
  return out;
}

function formatGrade(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

/** Multi-line text made safe, tabs expanded so widths hold; an empty text shows as such. */
function textLines(text: string, words: RowWords): string[] {
  if (text === '') return [words.empty];
  return visibleLines(text).replace(/\t/g, '  ').replace(/\r\n?/g, '\n').split('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** At most `width` characters (code points), the cut marked with an ellipsis. */
function cut(text: string, width: number): string {
  const chars = [...text];
  return chars.length > width ? chars.slice(0, width - 1).join('') + CUT : text;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
}

import { judgedTexts } from '../rubrics/index.js';
import { decodeLine, fieldScan, scanFields, splitKey, type LineBytes } from '../rows/index.js';
import { choiceHits, type ChoicePanelEntry, type PairwiseResult, type TuringResult } from '../schemas/index.js';
import {
  SIXTIETHS,
  formatFixed,
  normalizedMean,
  scoreInputs,
  type ChoiceRecord,
  type JudgeMode,
  type JudgedRecord,
  type JudgedVisitor,
  type ModeScore,
  type ScoreReport,
  type ScoreRequest,
  type ScoreWarning,
} from '../score/index.js';
import { MAX_TEXT, MIN_TEXT, cut, fitLimit, keptLength, recut, type Kept } from './cut.js';
import { rowRef } from './row-ref.js';

/** One order of a choice-mode row (turing, pairwise): where the subject was shown and what the judge chose. */
export interface ChoiceOrder {
  /** The panel member that judged this order; undefined for a row of one judge. */
  judge?: string;
  /** Where the subject (turing: the real observation; pairwise: this file's prediction) was shown. */
  at: 'A' | 'B';
  choice: 'A' | 'B' | null;
  /** turing: the judge took the prediction for the real observation; pairwise: it preferred the candidate. null: no choice. */
  hit: boolean | null;
  raw: Kept;
  error: Kept;
}

/** What a row of a turing or pairwise file adds. */
export interface ChoiceView {
  mode: 'turing' | 'pairwise';
  orders: ChoiceOrder[];
  /** pairwise: the reference prediction as the judge saw it. */
  reference: Kept;
}

/** What the page shows of one judged row. */
export interface ReportRow {
  /** Index of the file (run) among the inputs. */
  run: number;
  domain: string;
  /** The id's exact text. */
  id: string;
  turn: number;
  /** domain/id/turn_idx: the link name (two rows may share it). */
  ref: string;
  /** The full row key (with its fingerprint): unique within a run; empty for rows of the choice modes, which are read without it. */
  key: string;
  line: number;
  /** Grades 1-5 in DIMENSIONS order, 0 = no score, as the scorer read them (all 0 in a choice-mode row). */
  grades: number[];
  /** total_score as a mean grade 1-5, 0 = no score. */
  total: number;
  /** The total on the leaderboard's 0-100 scale; undefined without a score. */
  score: number | undefined;
  /** The score as printed; a choice-mode row's verdict. */
  scoreText: string;
  /** As the scorer counts it: flagged failed, or no score at all (total and every dimension 0); a choice-mode row: an order without a choice. */
  failed: boolean;
  action: Kept;
  /** The generation as the judge saw it: think blocks and the observation wrapper removed. */
  prediction: Kept;
  /** response[turn_idx-1], with the same unwrapping the judge applies. */
  truth: Kept;
  strengths: Kept[];
  weaknesses: Kept[];
  judge: Kept;
  error: Kept;
  choice?: ChoiceView;
  /** A --repeat row: each of its K judgements. */
  repeats?: RepeatView[];
  /** A free-running row (infer --horizon): its last generated observations (ROLLOUT_TURNS), each beside the real one of its turn. */
  rollout?: RolloutView[];
  /** How many observations its rollout generated in all. */
  rolloutTurns?: number;
}

/** One turn of a free-running row's rollout. */
export interface RolloutView {
  turn: number;
  generated: Kept;
  real: Kept;
}

/** One judgement of a row judged K times (--repeat). */
export interface RepeatView {
  /** total_score, 1-5 (0: no score). */
  total: number;
  failed: boolean;
  raw: Kept;
}

export interface CollectedRows {
  rows: ReportRow[];
  /** The length (characters) every text was cut at. */
  limit: number;
  /** Texts that were cut. */
  cutTexts: number;
}

/** An input file, in input order, with how it was judged and its name on the page. */
export interface ReportFile {
  path: string;
  mode: JudgeMode;
  label: string;
}

export interface CollectedReport {
  files: ReportFile[];
  /** The leaderboard of the rubric and --repeat files; undefined when every file is of a choice mode. */
  report: ScoreReport | undefined;
  /** The figures of the judge-mode files (turing, pairwise, --repeat), in input order, as `awb score` computes them. */
  modes: Array<{ path: string; score: ModeScore }>;
  rows: CollectedRows;
  warnings: ScoreWarning[];
}

/**
 * Everything the report shows, reading each file once (after a look at its
 * first row for its mode) as `awb score` does (scoreInputs), and the texts
 * of each row from the same lines as its readers pass them, cut at MAX_TEXT
 * as they are read and then at a common lower limit when they would make the
 * page too large together.
 */
export async function collectReport(req: ScoreRequest, visit?: (run: number) => JudgedVisitor): Promise<CollectedReport> {
  const rows: ReportRow[] = [];
  const scored = await scoreInputs(req, {
    choice: (run, mode) => (record, line) => rows.push(choiceRowOf(run, mode, record as ChoiceRecord, line)),
    graded: (run) => {
      const seen = visit?.(run);
      return (record, line) => {
        seen?.(record, line);
        rows.push(rowOf(run, record, line));
      };
    },
  });
  const { report, graded } = scored;
  const files = req.files.map((path, run) => {
    const at = graded.indexOf(run);
    const mode = scored.modes[run]!;
    return { path, mode, label: at >= 0 ? report!.runs[at]!.label : `${path} (${mode})` };
  });
  rows.sort((a, b) => a.run - b.run || a.line - b.line);
  return { files, report, modes: scored.figures, rows: fitRows(rows), warnings: scored.warnings };
}

function textsOf(r: ReportRow): Kept[] {
  const choice = r.choice ? [r.choice.reference, ...r.choice.orders.flatMap((o) => [o.raw, o.error])] : [];
  const repeats = r.repeats?.map((x) => x.raw) ?? [];
  const rollout = r.rollout?.flatMap((x) => [x.generated, x.real]) ?? [];
  return [r.action, r.prediction, r.truth, r.judge, r.error, ...r.strengths, ...r.weaknesses, ...choice, ...repeats, ...rollout];
}

/** Every text cut again at the one limit at which all of them fit the page's budget. */
function fitRows(rows: ReportRow[]): CollectedRows {
  const limit = fitLimit(rows.flatMap((r) => textsOf(r).map(keptLength)));
  let cutTexts = 0;
  const again = (k: Kept): Kept => {
    const out = recut(k, limit);
    if (typeof out !== 'string') cutTexts++;
    return out;
  };
  for (const r of rows) {
    Object.assign(r, {
      action: again(r.action),
      prediction: again(r.prediction),
      truth: again(r.truth),
      judge: again(r.judge),
      error: again(r.error),
      strengths: r.strengths.map(again),
      weaknesses: r.weaknesses.map(again),
    });
    if (r.choice) {
      r.choice.reference = again(r.choice.reference);
      for (const o of r.choice.orders) Object.assign(o, { raw: again(o.raw), error: again(o.error) });
    }
    for (const x of r.repeats ?? []) x.raw = again(x.raw);
    for (const x of r.rollout ?? []) Object.assign(x, { generated: again(x.generated), real: again(x.real) });
  }
  return { rows, limit, cutTexts };
}

const keep = (v: unknown): Kept => cut(textOf(v), MAX_TEXT);

/** What every row shows, from its line's fields. */
function textsOfRow(f: Fields) {
  const { action, prediction, truth } = judgedTexts(f);
  return {
    action: cut(action, MAX_TEXT),
    prediction: cut(prediction, MAX_TEXT),
    truth: cut(truth, MAX_TEXT),
    strengths: listOf(f.strengths).map(keep),
    weaknesses: listOf(f.weaknesses).map(keep),
    judge: keep(f.judge_raw_output),
    error: keep(f.error_message),
  };
}

/** A function of its own so that the parsed line does not outlive it (see judged-reader.ts). */
function rowOf(run: number, record: JudgedRecord, line: LineBytes): ReportRow {
  const k = splitKey(record.key);
  // A total of 0 means no score, as in the means.
  const score = record.total ? normalizedMean(record.total, 1) : undefined;
  const f = fieldsOf(line, record.turn);
  // The score reader has checked the row; judge_repeats only as far as the page needs it.
  const repeats = Array.isArray(f.judge_repeats)
    ? (f.judge_repeats as Array<{ total_score?: unknown; failed?: unknown; judge_raw_output?: unknown }>).map((x) => ({
        total: typeof x.total_score === 'number' ? x.total_score : 0,
        failed: x.failed !== 0,
        raw: keep(x.judge_raw_output),
      }))
    : undefined;
  return {
    run,
    domain: record.domain,
    id: k.id,
    turn: record.turn,
    ref: rowRef(record.domain, k.id, record.turn),
    key: record.key,
    line: record.lineNo,
    grades: record.dims.map((d) => d / SIXTIETHS),
    total: record.total / SIXTIETHS,
    score: score?.toNumber(),
    scoreText: formatFixed(score),
    failed: record.failed,
    ...textsOfRow(f),
    ...(repeats ? { repeats } : {}),
    ...(Array.isArray(f.rollout) && f.rollout.length ? rolloutOf(f.rollout, line) : {}),
  };
}

/** Turns of a free-running row's rollout the page shows: the last ones, nearest the turn judged. */
const ROLLOUT_TURNS = 3;

/**
 * A free-running row's last generated observations (ROLLOUT_TURNS), each beside the real one of its turn, cut
 * at MIN_TEXT as they are read: a row at a late turn of `--horizon all` holds dozens, and the page's budget is
 * for the texts judged. The real ones are read from the whole line (the scan keeps only the row's own turn),
 * one row at a time.
 */
function rolloutOf(rollout: unknown[], line: LineBytes): { rollout: RolloutView[]; rolloutTurns: number } {
  const row = JSON.parse(decodeLine(line.bytes)) as { response?: unknown };
  const response = Array.isArray(row.response) ? row.response : [];
  const steps = rollout.filter((x): x is { turn: number; gen?: unknown } => typeof (x as { turn?: unknown }).turn === 'number');
  const shown = steps.slice(-ROLLOUT_TURNS).map((step) => ({
    turn: step.turn,
    generated: cut(judgedTexts({ gen: step.gen }).prediction, MIN_TEXT),
    real: cut(judgedTexts({ response: response[step.turn - 1] }).truth, MIN_TEXT),
  }));
  return { rollout: shown, rolloutTurns: steps.length };
}

interface OrderFields {
  real_at?: 'A' | 'B';
  candidate_at?: 'A' | 'B';
  choice: 'A' | 'B' | null;
  raw?: string;
  error?: string;
}

/** A row of a turing or pairwise file: its texts, and per order where the subject was and what the judge chose. */
function choiceRowOf(run: number, mode: 'turing' | 'pairwise', record: ChoiceRecord, line: LineBytes): ReportRow {
  const f = fieldsOf(line, record.turn);
  // The modes' reader has checked these objects against their schemas; a panel's orders are its members'.
  const result = (mode === 'turing' ? f.turing : f.pairwise) as { orders?: OrderFields[]; reference_output?: string };
  const judgements = result.orders
    ? [{ orders: result.orders, hits: record.hits! }]
    : ((f.panel ?? []) as ChoicePanelEntry[]).flatMap((e) => {
        const own: TuringResult | PairwiseResult | undefined = e[mode];
        return own ? [{ judge: e.judge, orders: own.orders as OrderFields[], hits: choiceHits(own) }] : [];
      });
  const orders = judgements.flatMap((j) =>
    j.orders.map((o, i) => ({
      ...('judge' in j && { judge: j.judge }),
      at: (o.real_at ?? o.candidate_at)!,
      choice: o.choice,
      hit: j.hits[i]!,
      raw: keep(o.raw),
      error: keep(o.error),
    })),
  );
  const verb = mode === 'turing' ? 'fooled' : 'won';
  const answered = record.figures !== undefined;
  const counted = record.hits ? `${record.hits.filter(Boolean).length}/2` : `${formatFixed(100 * record.figures!.rate)}% (panel)`;
  return {
    run,
    domain: record.domain,
    id: record.id,
    turn: record.turn,
    ref: rowRef(record.domain, record.id, record.turn),
    key: '',
    line: record.lineNo,
    grades: [0, 0, 0, 0, 0],
    total: 0,
    score: undefined,
    scoreText: answered ? `${verb} ${counted}` : 'no choice',
    failed: !answered,
    ...textsOfRow(f),
    choice: { mode, orders, reference: keep(result.reference_output) },
  };
}

interface Fields {
  gen?: unknown;
  current_prompt?: unknown;
  /** prompt[turn_idx-1] */
  prompt?: unknown;
  /** response[turn_idx-1] */
  response?: unknown;
  strengths?: unknown;
  weaknesses?: unknown;
  judge_raw_output?: unknown;
  error_message?: unknown;
  extracted_output?: unknown;
  turing?: unknown;
  pairwise?: unknown;
  judge_repeats?: unknown;
  panel?: unknown;
  rollout?: unknown;
}

const SCALARS = [
  'gen',
  'current_prompt',
  'strengths',
  'weaknesses',
  'judge_raw_output',
  'error_message',
  'extracted_output',
  'turing',
  'pairwise',
  'judge_repeats',
  'panel',
  'rollout',
] as const;
const SCAN = fieldScan(SCALARS, { turnLists: ['prompt', 'response'] });

/**
 * The fields the page shows, found in the line's bytes without decoding the
 * histories; a line the scan is unsure of is parsed whole (the reader has
 * already checked that it is valid).
 */
function fieldsOf(line: LineBytes, turn: number): Fields {
  const row = scanFields(line, SCAN)?.fields ?? (JSON.parse(decodeLine(line.bytes)) as Record<string, unknown>);
  const at = (v: unknown): unknown => (Array.isArray(v) ? v[turn - 1] : v);
  return { ...row, prompt: at(row.prompt), response: at(row.response) };
}

function textOf(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function listOf(v: unknown): unknown[] {
  if (v === undefined || v === null || v === '') return [];
  return Array.isArray(v) ? v : [v];
}

import { extractPrediction, cleanGroundTruth } from '../judge/index.js';
import { arrayElement, decodeLine, parseSlice, readLineBytes, splitKey, topLevelValues, type LineBytes } from '../rows/index.js';
import { formatFixed, normalizedMean, readJudged, type JudgedRecord } from '../score/index.js';
import { MAX_TEXT, cut, fitLimit, keptLength, recut, type Kept } from './cut.js';
import { rowRef } from './row-ref.js';

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
  /** The full row key (with its fingerprint): unique within a run. */
  key: string;
  line: number;
  /** Grades 1-5 in DIMENSIONS order, 0 = no score, as the scorer read them. */
  grades: number[];
  /** total_score as a mean grade 1-5, 0 = no score. */
  total: number;
  /** The total on the leaderboard's 0-100 scale, and as printed; undefined without a score. */
  score: number | undefined;
  scoreText: string;
  /** As the scorer counts it: flagged failed, or every dimension 0. */
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
}

export interface CollectedRows {
  rows: ReportRow[];
  /** The length (characters) every text was cut at. */
  limit: number;
  /** Texts that were cut. */
  cutTexts: number;
  warnings: string[];
}

/**
 * Reads the judged files for the page, one row at a time: the grades as
 * `score` reads them (its own reader), and the texts from each line, cut at
 * MAX_TEXT as they are read and then at a common lower limit when they would
 * make the page too large together.
 */
export async function collectRows(files: readonly string[]): Promise<CollectedRows> {
  const rows: ReportRow[] = [];
  const warnings: string[] = [];
  for (const [run, file] of files.entries()) {
    const judged = await readJudged(file);
    warnings.push(...judged.warnings);
    const byLine = new Map(judged.records.map((r) => [r.lineNo, r]));
    for await (const line of readLineBytes(file)) {
      const record = byLine.get(line.lineNo);
      if (record) rows.push(rowOf(run, record, line));
    }
  }
  const texts = (r: ReportRow): Kept[] => [r.action, r.prediction, r.truth, r.judge, r.error, ...r.strengths, ...r.weaknesses];
  const limit = fitLimit(rows.flatMap((r) => texts(r).map(keptLength)));
  let cutTexts = 0;
  for (const r of rows) {
    const again = (k: Kept): Kept => {
      const out = recut(k, limit);
      if (typeof out !== 'string') cutTexts++;
      return out;
    };
    Object.assign(r, {
      action: again(r.action),
      prediction: again(r.prediction),
      truth: again(r.truth),
      judge: again(r.judge),
      error: again(r.error),
      strengths: r.strengths.map(again),
      weaknesses: r.weaknesses.map(again),
    });
  }
  return { rows, limit, cutTexts, warnings };
}

const SIXTIETHS = 60;

/** A function of its own so that the parsed line does not outlive it (see judged-reader.ts). */
function rowOf(run: number, record: JudgedRecord, line: LineBytes): ReportRow {
  const f = fieldsOf(line, record.turn);
  const k = splitKey(record.key);
  // A total of 0 means no score, as in the means.
  const score = record.total ? normalizedMean(record.total, 1) : undefined;
  const keep = (v: unknown): Kept => cut(textOf(v), MAX_TEXT);
  const action = typeof f.current_prompt === 'string' && f.current_prompt !== '' ? f.current_prompt : f.prompt;
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
    action: keep(action),
    prediction: cut(typeof f.gen === 'string' ? extractPrediction(f.gen) : '', MAX_TEXT),
    truth: cut(typeof f.response === 'string' ? cleanGroundTruth(f.response) : '', MAX_TEXT),
    strengths: listOf(f.strengths).map(keep),
    weaknesses: listOf(f.weaknesses).map(keep),
    judge: keep(f.judge_raw_output),
    error: keep(f.error_message),
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
}

const SCALARS = ['gen', 'current_prompt', 'strengths', 'weaknesses', 'judge_raw_output', 'error_message'] as const;
const WANTED = new Set<string>([...SCALARS, 'prompt', 'response']);

/**
 * The fields the page shows, found in the line's bytes without decoding the
 * histories; a line the scan is unsure of is parsed whole (the reader has
 * already checked that it is valid).
 */
function fieldsOf(line: LineBytes, turn: number): Fields {
  const b = line.bytes;
  try {
    const at = topLevelValues(b, WANTED);
    if (at) {
      const out: Fields = {};
      for (const name of SCALARS) out[name] = parseSlice(b, at.get(name));
      for (const name of ['prompt', 'response'] as const) {
        const slice = at.get(name);
        if (slice && b[slice[0]] === 0x5b) out[name] = parseSlice(b, arrayElement(b, slice, turn - 1));
        else out[name] = parseSlice(b, slice);
      }
      return out;
    }
  } catch {
    // parsed whole below
  }
  const row = JSON.parse(decodeLine(b)) as Record<string, unknown>;
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

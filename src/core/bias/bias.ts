import { decodeLine, fieldScan, scanFields, type LineBytes } from '../rows/index.js';
import { judgedTexts } from '../rubrics/index.js';
import type { RunReport, ScoreRequest } from '../score/index.js';
import type { JudgedRecord } from '../score/index.js';
import { lengthBias, logLengthRatio, type LengthBias, type LengthPoint } from './length-bias.js';
import { modelFamily } from './model-family.js';
import { normalizedMean } from '../score/index.js';
import { scoreInputs, type ScoredInputs } from '../score/index.js';

/** The bias checks of one graded run (`awb score --bias`). */
export interface RunBias {
  label: string;
  model: string | undefined;
  judge: string | undefined;
  modelFamily: string | undefined;
  judgeFamily: string | undefined;
  /** The judge is of the world model's family: it may prefer its own kind of answer. */
  selfPreference: boolean;
  length: LengthBias;
  /** Counted rows left out of the length fit: an empty prediction or truth has no relative length. */
  unmeasured: number;
}

/** Self-preference from the model ids the manifests name. */
export function selfPreference(
  model: string | undefined,
  judge: string | undefined,
): Pick<RunBias, 'modelFamily' | 'judgeFamily' | 'selfPreference'> {
  const m = modelFamily(model);
  const j = modelFamily(judge);
  return { modelFamily: m, judgeFamily: j, selfPreference: m !== undefined && m === j };
}

const SCAN = fieldScan(['gen', 'extracted_output'], { turnLists: ['response'] });

/** Characters (code points) of the prediction and the truth as the judge was shown them. */
function lengthsOf(record: JudgedRecord, line: LineBytes): { prediction: number; truth: number } {
  const row = scanFields(line, SCAN)?.fields ?? (JSON.parse(decodeLine(line.bytes)) as Record<string, unknown>);
  const response = Array.isArray(row.response) ? (row.response[record.turn - 1] as unknown) : row.response;
  const { prediction, truth } = judgedTexts({ gen: row.gen, extracted_output: row.extracted_output, response });
  const chars = (s: string) => {
    let n = 0;
    for (const _ of s) n++;
    return n;
  };
  return { prediction: chars(prediction), truth: chars(truth) };
}

export interface ScoredWithBias extends ScoredInputs {
  /** One per graded run, in the order of report.runs. */
  bias: RunBias[];
}

/**
 * Scores the inputs as scoreInputs does, and from the same pass the bias
 * checks: each counted row's length relative to its truth (failed rows are
 * no judgement of length and stay out, also with --failures-as-lowest).
 */
export async function scoreWithBias(req: ScoreRequest): Promise<ScoredWithBias> {
  const points = new Map<number, LengthPoint[]>();
  const unmeasured = new Map<number, number>();
  const scored = await scoreInputs(req, {
    graded: (run) => {
      const mine: LengthPoint[] = [];
      points.set(run, mine);
      unmeasured.set(run, 0);
      return (record, line) => {
        if (record.failed || record.total === 0) return;
        const len = lengthsOf(record, line);
        const logRatio = logLengthRatio(len.prediction, len.truth);
        if (logRatio === undefined) unmeasured.set(run, unmeasured.get(run)! + 1);
        else mine.push({ domain: record.domain, cluster: record.cluster, total: normalizedMean(record.total, 1)!.toNumber(), logRatio });
      };
    },
  });
  const runs: readonly RunReport[] = scored.report?.runs ?? [];
  const bias = runs.map((r, i) => {
    const run = scored.graded[i]!;
    return {
      label: r.label,
      model: r.provenance.model,
      judge: r.provenance.judge,
      ...selfPreference(r.provenance.model, r.provenance.judge),
      length: lengthBias(points.get(run) ?? [], req.bootstrap),
      unmeasured: unmeasured.get(run) ?? 0,
    };
  });
  return { ...scored, bias };
}

import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { fail } from '../errors.js';
import { topLevelValues } from '../rows/index.js';
import { labelRuns, scoreFiles, type BootstrapSettings, type Provenance, type Ratio, type ScoreWarning } from '../score/index.js';
import { gradedRow, type GradedRow } from './match.js';
import { agreementOf, type AgreementReport } from './pairs.js';
import { rankStability, type RankReport } from './ranks.js';

/** A judged file as given: `path`, or `label=path` (a file of that very name wins). */
export interface RunArg {
  file: string;
  label?: string;
}

/** Reads `label=path` arguments; an argument naming an existing file is that file, `=` and all. */
export async function runArgs(args: readonly string[]): Promise<RunArg[]> {
  const out: RunArg[] = [];
  for (const arg of args) {
    const at = arg.indexOf('=');
    // A file whose very name holds '=' is that file.
    const labelled = at >= 0 && !(await isThere(arg));
    if (!labelled) {
      out.push({ file: arg });
      continue;
    }
    if (at === 0) throw fail({ kind: 'agreement-empty-label', arg });
    out.push({ label: arg.slice(0, at), file: arg.slice(at + 1) });
  }
  return out;
}

const isThere = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

export interface AgreementRequest {
  args: readonly RunArg[];
  bootstrap: BootstrapSettings | undefined;
}

interface LoadedRun {
  arg: RunArg;
  provenance: Provenance;
  rows: GradedRow[];
  domainScores: Map<string, Ratio | undefined>;
}

const GEN = new Set(['gen']);

/** Reads each file once, as score reads it (same checks, same warnings), keeping the grades and a hash of each prediction. */
async function loadRuns(req: AgreementRequest): Promise<{ runs: LoadedRun[]; warnings: ScoreWarning[] }> {
  const rows: GradedRow[][] = req.args.map(() => []);
  const report = await scoreFiles(
    {
      files: req.args.map((a) => a.file),
      failuresAsLowest: false,
      bootstrap: undefined,
      withPublished: false,
      prices: undefined,
      byTurn: false,
    },
    (i) => (record, line) => {
      if (record.mode === 'turing' || record.mode === 'pairwise')
        throw fail({ kind: 'agreement-choice-file', path: req.args[i]!.file, mode: record.mode });
      const gen = topLevelValues(line.bytes, GEN)?.get('gen');
      rows[i]!.push(gradedRow(record, gen && createHash('sha1').update(line.bytes.subarray(gen[0], gen[1])).digest('hex').slice(0, 16)));
    },
  );
  const runs = report.runs.map((run, i) => ({
    arg: req.args[i]!,
    provenance: run.provenance,
    rows: rows[i]!,
    domainScores: new Map(run.score.domains.map((d) => [d.domain, d.score])),
  }));
  // score's comparability notes say the judges differ: here that is the point, so only the reading's warnings are kept.
  return { runs, warnings: report.warnings };
}

/**
 * `awb agreement`: the same predictions judged by several judges (or one
 * judge twice), every pair compared. Each judge is named by its label, else
 * its manifest's judge, else its file.
 */
export async function agreementFiles(req: AgreementRequest): Promise<AgreementReport> {
  if (req.args.length < 2) throw fail({ kind: 'agreement-too-few-files', files: req.args.map((a) => a.file) });
  const { runs, warnings } = await loadRuns(req);
  const labels = labelRuns(runs.map((r) => ({ file: r.arg.file, model: r.provenance.judge, label: r.arg.label })));
  const report = agreementOf(
    runs.map((r, i) => ({ file: r.arg.file, label: labels[i]!, rows: r.rows })),
    req.bootstrap,
  );
  return { ...report, warnings: [...warnings, ...report.warnings] };
}

/**
 * `awb agreement --by-model`: several models, each judged by several judges.
 * A run's model is the `model` of a `model@judge=path` or `model=path`
 * label, else its manifest's label or world model; its judge the label's
 * `judge`, else the manifest's.
 */
export async function rankFiles(req: AgreementRequest): Promise<RankReport & { warnings: ScoreWarning[] }> {
  const { runs, warnings } = await loadRuns(req);
  const ranked = runs.map((r) => {
    const label = r.arg.label ?? '';
    const split = label.lastIndexOf('@');
    const named = split < 0 ? { model: label, judge: '' } : { model: label.slice(0, split), judge: label.slice(split + 1) };
    const model = named.model || r.provenance.label || r.provenance.model;
    const judge = named.judge || r.provenance.judge;
    if (!model) throw fail({ kind: 'agreement-unlabelled', path: r.arg.file, missing: 'model' });
    if (!judge) throw fail({ kind: 'agreement-unlabelled', path: r.arg.file, missing: 'judge' });
    return { file: r.arg.file, model, judge, rows: r.rows, domainScores: r.domainScores };
  });
  return { ...rankStability(ranked, req.bootstrap), warnings };
}

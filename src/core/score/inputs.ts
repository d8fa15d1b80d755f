import { sameFile } from '../files.js';
import type { Notice } from '../errors.js';
import type { ScoreWarning } from './faults.js';
import { manifestPathFor } from '../schemas/index.js';
import { scoreFiles, type ScoreReport, type ScoreRequest } from './score-files.js';
import type { JudgedVisitor } from './readers/index.js';
import { scoreChoiceRows, scoreModeFile, scoreRepeatRows, type ModeScore } from './modes.js';
import { choiceMemberCollector } from './by-judge.js';
import { judgeModeOf, modeRecordOf, type JudgeMode, type ModeVisitor, type RepeatRecord } from './readers/index.js';

/** What a caller takes from each line of input `run` in the same pass (the report, its texts). */
export interface InputVisitors {
  choice?: (run: number, mode: 'turing' | 'pairwise') => ModeVisitor;
  graded?: (run: number) => JudgedVisitor;
}

export interface ScoredInputs {
  /** Each input's mode, in input order. */
  modes: JudgeMode[];
  /** The leaderboard of the rubric and --repeat files; undefined when every file is of a choice mode. */
  report: ScoreReport | undefined;
  /** The input index of each of report.runs. */
  graded: number[];
  /**
   * The figures of the judge-mode files (turing, pairwise, --repeat), in input order; with
   * --by-judge, a choice file judged by a panel is followed by each member's (`judge`), and a
   * panel's --repeat file has each member's judge noise.
   */
  figures: Array<{ path: string; score: ModeScore; judge?: string }>;
  warnings: ScoreWarning[];
  /** What the inputs tell without stopping: each graded file's rows judged as "No output". */
  notices: Notice[];
}

/**
 * Scores judged files of every mode, reading each once after a look at its
 * first row: turing and pairwise files get their figures, rubric and
 * --repeat files the leaderboard, and a --repeat file its judge noise from
 * the same pass as its leaderboard row.
 */
export async function scoreInputs(req: ScoreRequest, visit: InputVisitors = {}): Promise<ScoredInputs> {
  const warnings = await repeatedFiles(req.files);
  const modes: JudgeMode[] = [];
  for (const file of req.files) modes.push(await judgeModeOf(file));

  const choiceScores = new Map<number, ScoredInputs['figures']>();
  for (const [run, path] of req.files.entries()) {
    const mode = modes[run]!;
    if (mode !== 'turing' && mode !== 'pairwise') continue;
    const seen = visit.choice?.(run, mode);
    const members = req.byJudge ? choiceMemberCollector(path, mode) : undefined;
    const scored = await scoreModeFile(
      path,
      req.bootstrap,
      members
        ? (record, line) => {
            seen?.(record, line);
            members.visit(record, line);
          }
        : seen,
    );
    warnings.push(...scored!.warnings);
    if (req.prices) {
      warnings.push({ kind: 'choice-file-unpriced', file: path, mode, manifest: manifestPathFor(path) });
    }
    const own = (members?.members() ?? []).map((m) => ({ path, judge: m.judge, score: scoreChoiceRows(mode, m.records, req.bootstrap) }));
    if (members && !own.length) warnings.push({ kind: 'choice-file-no-panel', file: path, mode });
    choiceScores.set(run, [{ path, score: scored!.score }, ...own]);
  }

  const graded = req.files.flatMap((_, run) => (modes[run] === 'turing' || modes[run] === 'pairwise' ? [] : [run]));
  const repeats = new Map<number, RepeatRecord[]>(graded.filter((run) => modes[run] === 'repeat').map((run) => [run, []]));
  const noOutput = new Map<number, { rows: number; of: number }>();
  const report = graded.length
    ? await scoreFiles({ ...req, files: graded.map((run) => req.files[run]!) }, (i) => {
        const run = graded[i]!;
        const path = req.files[run]!;
        const repeated = repeats.get(run);
        const seen = visit.graded?.(run);
        const none = { rows: 0, of: 0 };
        noOutput.set(run, none);
        return (record, line) => {
          seen?.(record, line);
          none.of++;
          if (record.noOutput) none.rows++;
          const r = repeated && modeRecordOf(path, line, 'repeat');
          if (r) repeated!.push(r as RepeatRecord);
        };
      })
    : undefined;
  if (report) warnings.push(...report.warnings);

  const figures = req.files.flatMap((path, run) => {
    const records = repeats.get(run);
    if (records) return [{ path, score: scoreRepeatRows(records, req.bootstrap) }];
    // --by-judge of a panel's --repeat file: each member's judge noise, as its own --repeat file would show it.
    const at = graded.indexOf(run);
    const members = at < 0 ? [] : (report!.runs[at]!.members ?? []);
    return choiceScores.get(run) ?? members.flatMap((m) => (m.noise ? [{ path, judge: m.provenance.judge!, score: m.noise }] : []));
  });
  const notices = [...noOutput].flatMap(([run, n]): Notice[] =>
    n.rows ? [{ kind: 'predictions-without-output', stage: 'score', file: req.files[run]!, ...n }] : [],
  );
  return { modes, report, graded, figures, warnings, notices };
}

/** A file given twice, under any name: its run is shown twice, as two runs that agree would be. */
async function repeatedFiles(files: readonly string[]): Promise<ScoreWarning[]> {
  const out: ScoreWarning[] = [];
  for (const [i, file] of files.entries()) {
    for (const earlier of files.slice(0, i)) {
      if (await sameFile(earlier, file)) {
        out.push({ kind: 'file-given-twice', file, earlier });
        break;
      }
    }
  }
  return out;
}

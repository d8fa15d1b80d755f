import { appendText, refuseOverInputs, refuseOverJson } from '../../core/files.js';
import { fileError } from '../../core/errors.js';
import { ensureOutputDir } from '../../core/output/index.js';
import { brief } from '../../core/shown.js';
import type { StageNotice } from '../../core/stage/index.js';
import { left, right, type View } from '../../render/view.js';
import { interruptibly } from '../shared/interrupt.js';
import { noticed } from '../words/index.js';
import { exitCodes } from '../words/words.js';
import { RESULTS_WORDS } from '../words/results/lines.js';
import { RUN_WORDS } from '../words/stage/run.js';
import { summaryTable, type SummaryColumn } from './run-ui.js';

/*
 * `--summary FILE` of infer and judge: the run's summary appended as markdown under its own heading (`## awb judge`),
 * as compare --summary appends its verdict, so a CI job's step summary ($GITHUB_STEP_SUMMARY) shows each step.
 */

type Finished = Extract<StageNotice, { type: 'finished' }>;

/** Checked before the run, as compare checks its summary: not an input, not a JSON file, its folder made. */
export async function checkSummaryPath(path: string, inputs: string[]): Promise<void> {
  await refuseOverInputs([path], inputs);
  await refuseOverJson(path, 'summary');
  await ensureOutputDir(path, '--summary');
}

/** The finished run as markdown: the verdict with its exit code, the table per domain, the top failure reasons and the notices. */
export async function stepSummary(
  e: Finished,
  columns: SummaryColumn[],
  reasons: Array<{ reason: string; count: number }>,
  exitCode: number,
): Promise<string> {
  const { header, rows } = summaryTable(e.result, columns);
  const all = rows.at(-1)!;
  const { stopped, remaining, failed, capped } = e.ending;
  const said = RUN_WORDS.stepMeaning;
  const meaning = capped
    ? said.capped
    : stopped
      ? said.interrupted
      : remaining > 0
        ? said.left(remaining)
        : failed > 0
          ? said.failed(failed)
          : exitCodes().find((c) => c.code === exitCode)?.meaning;
  const view: View = {
    verdict: [RUN_WORDS.stepVerdict(e.stage, { rows: all[1]!, done: all[2]!, failed: all[3]!, retry: all[4]! }, exitCode, meaning)],
    intro: [RUN_WORDS.stepOutput(e.output)],
    grids: [
      {
        title: RUN_WORDS.summaryTitle(e.stage),
        columns: header.map((h, i) => (i === 0 ? left(h) : right(h))),
        rows: rows.map((r) => ({ cells: r.map((text) => ({ text })) })),
      },
    ],
    footnotes: [
      ...reasons.map((r) => RUN_WORDS.stepFailure(r.count, brief(r.reason, [], 300))),
      ...e.notices.map((n) => RUN_WORDS.stepWarning(noticed(n))),
    ],
  };
  return `${(await import('../../render/markdown.js')).renderView(view, RUN_WORDS.stepHeading(e.stage))}\n`;
}

/** Appends `text` to the summary file; a FIFO nobody reads is waited on until a signal ends the wait. */
export async function appendSummary(path: string, text: string, stage: string): Promise<void> {
  await interruptibly(
    (signal) =>
      appendText(path, text, signal).catch((err: unknown) => {
        throw fileError(path, err);
      }),
    RESULTS_WORDS.interrupted(stage, path),
  );
}

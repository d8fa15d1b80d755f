import { appendText, refuseOverInputs, refuseOverJson } from '../../core/files.js';
import { fileError } from '../../core/errors.js';
import { ensureOutputDir } from '../../core/output/index.js';
import { brief, counted } from '../../core/shown.js';
import type { StageNotice } from '../../core/stage/index.js';
import { left, right, type View } from '../../render/view.js';
import { interruptibly } from '../shared/interrupt.js';
import { noticed } from '../words/index.js';
import { exitCodes } from '../words/words.js';
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
  const meaning = capped
    ? 'stopped at the --max-cost cap'
    : stopped
      ? 'interrupted'
      : remaining > 0
        ? `${counted(remaining, 'row')} left: the same command run again does them`
        : failed > 0
          ? `${counted(failed, 'row')} ended failed: --retry-failed asks them again`
          : exitCodes().find((c) => c.code === exitCode)?.meaning;
  const view: View = {
    verdict: [
      `${e.stage}: ${all[2]} of ${all[1]} rows done, ${all[3]} failed (${all[4]} to retry); exit ${exitCode}${meaning ? `: ${meaning}` : ''}`,
    ],
    intro: [`output: ${e.output}`],
    grids: [
      {
        title: `${e.stage} summary`,
        columns: header.map((h, i) => (i === 0 ? left(h) : right(h))),
        rows: rows.map((r) => ({ cells: r.map((text) => ({ text })) })),
      },
    ],
    footnotes: [
      ...reasons.map((r) => `failed ${r.count} × ${brief(r.reason, [], 300)}`),
      ...e.notices.map((n) => `warning: ${noticed(n)}`),
    ],
  };
  return `${(await import('../../render/markdown.js')).renderView(view, `## awb ${e.stage}`)}\n`;
}

/** Appends `text` to the summary file; a FIFO nobody reads is waited on until a signal ends the wait. */
export async function appendSummary(path: string, text: string, stage: string): Promise<void> {
  await interruptibly(
    (signal) =>
      appendText(path, text, signal).catch((err: unknown) => {
        throw fileError(path, err);
      }),
    `${stage} interrupted; nothing was written to ${path}`,
  );
}

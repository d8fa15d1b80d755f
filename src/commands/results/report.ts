import { refuseOverInputs, refuseOverJson, writeAtomically } from '../../core/files.js';
import { ensureOutputDir } from '../../core/output/index.js';
import { collectWithPairs } from '../../core/report/index.js';
import { renderReportHtml } from '../../render/html/report.js';
import type { Parsed } from '../shared/option-table.js';
import type { REPORT_OPTIONS } from './results-options.js';
import { scoreRequest } from './score.js';
import { printWarnings } from '../shared/notes.js';
import { interruptibly } from '../shared/interrupt.js';
import { terminal } from '../shared/terminal.js';
import { fileError } from '../../core/errors.js';
import { RESULTS_WORDS } from '../words/results/lines.js';
import { NOTE_WORDS } from '../words/index.js';

export async function run(files: string[], opts: Parsed<typeof REPORT_OPTIONS>): Promise<void> {
  const request = scoreRequest(files, opts, false);
  await refuseOverInputs([opts.output], files);
  // Any file is replaced but one that opens like JSON: a judged or predictions file named by mistake.
  await refuseOverJson(opts.output, 'report');
  const started = performance.now();
  const { collected, pairs, panels, drift } = await collectWithPairs(request);
  printWarnings(collected.warnings);
  const html = renderReportHtml({ collected, generated: new Date(), pairs, panels, ...(drift ? { drift } : {}), words: NOTE_WORDS });
  // Made only now: a report refused for its inputs leaves no new folder behind.
  await ensureOutputDir(opts.output);
  // A FIFO that nobody reads is waited on until a signal ends the wait (exit 130).
  await interruptibly(
    (signal) =>
      writeAtomically(opts.output, html, signal).catch((err: unknown) => {
        throw fileError(opts.output, err);
      }),
    RESULTS_WORDS.interrupted('report', opts.output),
  );
  const size = Buffer.byteLength(html);
  const { rows } = collected;
  const cut = rows.cutTexts ? { texts: rows.cutTexts, limit: rows.limit } : undefined;
  const seconds = (performance.now() - started) / 1000;
  terminal().stderr.write(`${RESULTS_WORDS.reportWritten(opts.output, rows.rows.length, size, seconds, cut)}\n`);
}

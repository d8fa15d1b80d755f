import { compareFiles } from '../../core/compare/index.js';
import { GATE_OUTCOMES, NOTE_WORDS } from '../words/index.js';
import type { ComparePage } from '../../render/compare-view.js';
import { appendText, refuseOverInputs, refuseOverJson } from '../../core/files.js';
import { ensureOutputDir } from '../../core/output/index.js';
import { fileError, UserError } from '../../core/errors.js';
import type { Parsed } from '../shared/option-table.js';
import type { COMPARE_OPTIONS } from './results-options.js';
import { printWarnings } from '../shared/notes.js';
import { interruptibly } from '../shared/interrupt.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';
import { terminal } from '../shared/terminal.js';
import { RESULTS_WORDS } from '../words/results/lines.js';

/**
 * compare, and with --fail-below DELTA its gate: the candidate significantly worse by more than DELTA points for
 * Overall (macro) or any domain (Holm over one-sided sign-flip tests, family-wise error 5%), runs known not to be
 * comparable, a candidate lacking rows, or too few trajectories to test. Each outcome's exit code is GATE_OUTCOMES'.
 */
export async function run(baseline: string, candidate: string, opts: Parsed<typeof COMPARE_OPTIONS>): Promise<void> {
  const { format, failBelow, rows, domains } = opts;
  if (failBelow === undefined && (opts.allowPartial || opts.allowIncomparable)) {
    throw new UserError(RESULTS_WORDS.gateOptionsAlone);
  }
  const gate =
    failBelow === undefined
      ? undefined
      : { threshold: failBelow, allowPartial: opts.allowPartial, allowIncomparable: opts.allowIncomparable };
  // Refused before anything is read or printed: a report on stdout followed by a refusal reads as a run that half worked.
  if (opts.summary) {
    await refuseOverInputs([opts.summary], [baseline, candidate]);
    // A step summary is markdown: one that opens like JSON is a judged file or a manifest named by mistake.
    await refuseOverJson(opts.summary, 'summary');
    // As report -o and merge -o: a summary in a folder not made yet (out/summary.md) gets it, rather than "no such file".
    await ensureOutputDir(opts.summary, '--summary');
  }
  const compared = await compareFiles(baseline, candidate, { gate, rows, domains });
  const invocation = thisInvocation();
  const changed = compared.result.changed.map((r) => shellWord(r.key));
  const rowsCommand = changed.length ? [invocation, 'rows', shellWord(candidate), ...changed].join(' ') : undefined;
  const report: ComparePage = { ...compared, invocation, words: NOTE_WORDS, ...(rowsCommand && { rowsCommand }) };
  printWarnings(report.warnings);
  const out = await render(format, report);
  // The verdict and the summary come before stdout: a reader of it that stops early (`| head`) ends awb there.
  if (report.gate && report.gate.outcome !== 'passed') terminal().exitCode = GATE_OUTCOMES[report.gate.outcome].exit;
  if (opts.summary) {
    const summary = opts.summary;
    const text = (format === 'markdown' ? out : await render('markdown', report)) + '\n';
    // A FIFO that nobody reads is waited on until a signal ends the wait (exit 130).
    await interruptibly(
      (signal) =>
        appendText(summary, text, signal).catch((err: unknown) => {
          throw fileError(summary, err);
        }),
      RESULTS_WORDS.interrupted('compare', summary),
    );
  }
  terminal().stdout.write(out);
}

/** Only the renderer wanted is loaded, as for score: the two judged files stream through first. */
async function render(format: 'table' | 'markdown' | 'json', report: ComparePage): Promise<string> {
  switch (format) {
    case 'json':
      return (await import('../../render/json.js')).renderCompareJson(report);
    case 'markdown':
      return (await import('../../render/markdown.js')).renderCompareMarkdown(report);
    case 'table': {
      const { renderCompareTable } = await import('../../render/table.js');
      return renderCompareTable(report, terminal().outLevel);
    }
  }
}

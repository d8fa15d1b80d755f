import { appendFile } from 'node:fs/promises';
import { compareFiles, type CompareReport } from '../core/score/index.js';
import { fileError } from '../core/rows/index.js';
import { refuseOverInputs } from '../core/files.js';
import { choiceOption, numberOption } from './options.js';
import { bootstrapOptions, printWarnings } from './score.js';

export interface CompareOpts {
  failBelow?: string;
  format: string;
  bootstrap: string;
  seed: string;
  summary?: string;
}

/**
 * Gate rule (--fail-below DELTA): exit 1 when the candidate is significantly
 * worse by more than DELTA points, i.e. the upper bound of the 95% paired
 * bootstrap interval of (candidate - baseline) is below -DELTA, for Overall
 * (macro) or any single domain. Exit 0 otherwise.
 */
export async function run(baseline: string, candidate: string, opts: CompareOpts): Promise<void> {
  const format = choiceOption('format', opts.format, ['table', 'markdown', 'json'] as const);
  const failBelow = numberOption('fail-below', opts.failBelow, 0, 100);
  const report = await compareFiles(baseline, candidate, { bootstrap: bootstrapOptions(opts), failBelow });
  printWarnings(report.warnings);
  const out = await render(format, report);
  process.stdout.write(out);
  if (opts.summary) {
    await refuseOverInputs([opts.summary], [baseline, candidate]);
    try {
      await appendFile(opts.summary, (format === 'markdown' ? out : await render('markdown', report)) + '\n');
    } catch (err) {
      throw fileError(opts.summary, err);
    }
  }
  if (report.gate?.failed) process.exitCode = 1;
}

/** Only the renderer wanted is loaded, as for score: the two judged files stream through first. */
async function render(format: 'table' | 'markdown' | 'json', report: CompareReport): Promise<string> {
  switch (format) {
    case 'json':
      return (await import('../render/json.js')).renderCompareJson(report);
    case 'markdown':
      return (await import('../render/markdown.js')).renderCompareMarkdown(report);
    case 'table': {
      const { renderCompareTable, terminalColorLevel } = await import('../render/table.js');
      return renderCompareTable(report, terminalColorLevel());
    }
  }
}

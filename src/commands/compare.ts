import { appendFile } from 'node:fs/promises';
import { compareFiles } from '../core/compare.js';
import { fileError } from '../core/jsonl.js';
import { renderCompareJson } from '../render/json.js';
import { renderCompareMarkdown } from '../render/markdown.js';
import { renderCompareTable, terminalColorLevel } from '../render/table.js';
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
  const out =
    format === 'json' ? renderCompareJson(report) : format === 'markdown' ? renderCompareMarkdown(report) : renderCompareTable(report, terminalColorLevel());
  process.stdout.write(out);
  if (opts.summary) {
    try {
      await appendFile(opts.summary, renderCompareMarkdown(report) + '\n');
    } catch (err) {
      throw fileError(opts.summary, err);
    }
  }
  if (report.gate?.failed) process.exitCode = 1;
}

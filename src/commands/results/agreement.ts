import { agreementFiles, rankFiles, runArgs } from '../../core/agreement/index.js';
import type { Parsed } from '../shared/option-table.js';
import type { AGREEMENT_OPTIONS } from './results-options.js';
import { printWarnings } from '../shared/notes.js';
import { terminal } from '../shared/terminal.js';
import { NOTE_WORDS } from '../words/index.js';

/** `awb agreement`: how far judges agree on the same predictions, or (--by-model) on the order of several models. */
export async function run(files: string[], opts: Parsed<typeof AGREEMENT_OPTIONS>): Promise<void> {
  const { format } = opts;
  const bootstrap = opts.ci ? { resamples: opts.bootstrap, seed: opts.seed } : undefined;
  const request = { args: await runArgs(files), bootstrap };
  if (opts.byModel) {
    const report = await rankFiles(request);
    printWarnings(report.warnings);
    const r = await import('../../render/agreement-ranks.js');
    terminal().stdout.write(format === 'json' ? r.rankJson(report) : format === 'csv' ? r.rankCsv(report) : await laid(format, r.rankView(report, NOTE_WORDS)));
    return;
  }
  const report = await agreementFiles(request);
  printWarnings(report.warnings);
  const r = await import('../../render/agreement.js');
  terminal().stdout.write(
    format === 'json' ? r.agreementJson(report) : format === 'csv' ? r.agreementCsv(report) : await laid(format, r.agreementView(report, NOTE_WORDS)),
  );
}

async function laid(format: 'table' | 'markdown', view: import('../../render/view.js').View): Promise<string> {
  if (format === 'markdown') return (await import('../../render/markdown.js')).renderView(view);
  const { renderViewTable } = await import('../../render/table.js');
  return renderViewTable(view, terminal().outLevel);
}

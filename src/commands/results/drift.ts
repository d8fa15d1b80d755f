import { driftFiles, type DriftReport } from '../../core/drift/index.js';
import { visible } from '../../core/shown.js';
import { printWarnings } from '../shared/notes.js';
import type { Parsed } from '../shared/option-table.js';
import type { DRIFT_OPTIONS } from './results-options.js';
import { terminal } from '../shared/terminal.js';
import { NOTE_WORDS } from '../words/index.js';
import { PREFIX } from '../words/process.js';

/** `awb drift`: a teacher-forced judged run and free-running ones of the same model, drawn as score against horizon. */
export async function run(files: string[], opts: Parsed<typeof DRIFT_OPTIONS>): Promise<void> {
  const report = await driftFiles(files, {
    bootstrap: opts.ci ? { resamples: opts.bootstrap, seed: opts.seed } : undefined,
    domains: opts.domains,
  });
  printWarnings(report.warnings);
  // CSV has no place for the notes: they go to stderr, never lost.
  if (opts.format === 'csv') for (const n of report.notes) terminal().stderr.write(`${PREFIX.note(visible(NOTE_WORDS.notice(n)))}\n`);
  terminal().stdout.write(await render(opts.format, report));
}

async function render(format: 'table' | 'markdown' | 'csv' | 'json', report: DriftReport): Promise<string> {
  const { driftView, renderDriftCsv, renderDriftJson } = await import('../../render/drift.js');
  switch (format) {
    case 'json':
      return renderDriftJson(report, NOTE_WORDS);
    case 'csv':
      return renderDriftCsv(report);
    case 'markdown':
      return (await import('../../render/markdown.js')).renderView(driftView(report, NOTE_WORDS));
    case 'table':
      return (await import('../../render/table.js')).renderViewTable(driftView(report, NOTE_WORDS), terminal().outLevel);
  }
}

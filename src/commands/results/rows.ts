import { judgedRows, judgeModeOf, type RowQuery } from '../../core/score/index.js';
import { UserError, fail } from '../../core/errors.js';
import type { Parsed } from '../shared/option-table.js';
import type { ROWS_OPTIONS } from './results-options.js';
import { printWarnings } from '../shared/notes.js';
import { terminal } from '../shared/terminal.js';

/** `awb rows FILE`: the rows streamed to stdout as they are selected. */
export async function run(file: string, opts: Parsed<typeof ROWS_OPTIONS>): Promise<void> {
  const t = terminal();
  const { format, worst, best } = opts;
  if (worst !== undefined && best !== undefined) throw new UserError('--worst and --best exclude each other: pick one');
  const query: RowQuery = {
    domain: opts.domain,
    pick: worst !== undefined ? { order: 'worst', n: worst } : best !== undefined ? { order: 'best', n: best } : undefined,
    failed: opts.failed,
  };
  // Its rows hold choices: shown as grades of 0 they would read as judged and graded.
  const mode = await judgeModeOf(file);
  if (mode === 'turing' || mode === 'pairwise') throw fail({ kind: 'choice-file-has-no-grades', file, mode });
  const [{ renderRowBlock, rowJson }, { jsonLine }] = await Promise.all([import('../../render/rows.js'), import('../../render/written.js')]);
  const width = t.stdout.columns || 120;
  let count = 0;
  const warnings: string[] = [];
  for await (const row of judgedRows(file, query, warnings)) {
    const text =
      format === 'json' ? `${count ? ',' : '['}\n${jsonLine(rowJson(row))}` : `${count ? '\n' : ''}${renderRowBlock(row, width)}`;
    count++;
    if (!t.stdout.write(text)) await new Promise((resolve) => t.stdout.once('drain', resolve));
  }
  if (format === 'json') t.stdout.write(count ? '\n]\n' : '[]\n');
  else if (count === 0) t.stderr.write('awb: no rows match\n');
  printWarnings(warnings);
}

import { judgedRows, judgeModeOf, type RowQuery } from '../../core/score/index.js';
import { domainName } from '../../core/domains.js';
import { UserError, fail } from '../../core/errors.js';
import { choiceOption, intOption } from '../shared/options.js';
import { printWarnings } from './score.js';

export interface RowsOpts {
  domain?: string;
  worst?: string;
  best?: string;
  failed?: boolean;
  format: string;
}

/** `awb rows FILE`: the rows streamed to stdout as they are selected. */
export async function run(file: string, opts: RowsOpts): Promise<void> {
  const format = choiceOption('format', opts.format, ['table', 'json'] as const);
  if (opts.worst !== undefined && opts.best !== undefined) throw new UserError('--worst and --best exclude each other: pick one');
  const worst = intOption('worst', opts.worst, 1, 1_000_000);
  const best = intOption('best', opts.best, 1, 1_000_000);
  const query: RowQuery = {
    domain: opts.domain === undefined ? undefined : domainName(opts.domain),
    pick: worst !== undefined ? { order: 'worst', n: worst } : best !== undefined ? { order: 'best', n: best } : undefined,
    failed: opts.failed === true,
  };
  // Its rows hold choices: shown as grades of 0 they would read as judged and graded.
  const mode = await judgeModeOf(file);
  if (mode === 'turing' || mode === 'pairwise') throw fail({ kind: 'choice-file-has-no-grades', file, mode });
  const { renderRowBlock, rowJson } = await import('../../render/rows.js');
  const width = process.stdout.columns || 120;
  let count = 0;
  const warnings: string[] = [];
  for await (const row of judgedRows(file, query, warnings)) {
    const text =
      format === 'json' ? `${count ? ',' : '['}\n${JSON.stringify(rowJson(row))}` : `${count ? '\n' : ''}${renderRowBlock(row, width)}`;
    count++;
    if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  if (format === 'json') process.stdout.write(count ? '\n]\n' : '[]\n');
  else if (count === 0) process.stderr.write('awb: no rows match\n');
  printWarnings(warnings);
}

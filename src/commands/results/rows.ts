import { judgedRows, judgeModeOf, type RowQuery, type RowRef, type ScoreWarning } from '../../core/score/index.js';
import { UserError, fail } from '../../core/errors.js';
import type { Parsed } from '../shared/option-table.js';
import { domainName } from '../../core/domains.js';
import type { ROWS_OPTIONS } from './results-options.js';
import { printWarnings } from '../shared/notes.js';
import { terminal } from '../shared/terminal.js';
import { RESULTS_WORDS } from '../words/results/lines.js';
import { NOTE_WORDS } from '../words/index.js';

/**
 * A row as compare, the report and `awb rows` print it: `domain/id/turn_idx` (the id may hold slashes), with
 * `#fingerprint` for one of two rows sharing it.
 */
export function rowRefOf(text: string): RowRef {
  const [name, fingerprint] = text.split('#', 2) as [string, string | undefined];
  const first = name.indexOf('/');
  const last = name.lastIndexOf('/');
  const turn = Number(name.slice(last + 1));
  if (first <= 0 || last <= first + 1 || !Number.isInteger(turn) || turn < 1 || fingerprint === '')
    throw new UserError(RESULTS_WORDS.notARow(text));
  return { text, domain: domainName(name.slice(0, first)), id: name.slice(first + 1, last), turn, ...(fingerprint && { fingerprint }) };
}

/** `awb rows FILE [KEY...]`: the rows streamed to stdout as they are selected. */
export async function run(file: string, keys: string[], opts: Parsed<typeof ROWS_OPTIONS>): Promise<void> {
  const t = terminal();
  const { format, worst, best } = opts;
  if (worst !== undefined && best !== undefined) throw new UserError(RESULTS_WORDS.worstAndBest);
  const query: RowQuery = {
    ...(keys.length && { refs: keys.map(rowRefOf) }),
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
  const warnings: ScoreWarning[] = [];
  // Keys shown more than once name a pair of rows (the android pair): each is then named with its fingerprint.
  const shown = new Map<string, string[]>();
  try {
    for await (const row of judgedRows(file, query, warnings)) {
      const text =
        format === 'json' ? `${count ? ',' : '['}\n${jsonLine(rowJson(row))}` : `${count ? '\n' : ''}${renderRowBlock(row, width, NOTE_WORDS.rows)}`;
      count++;
      shown.set(row.key, [...(shown.get(row.key) ?? []), row.fingerprint]);
      if (!t.stdout.write(text)) await new Promise((resolve) => t.stdout.once('drain', resolve));
    }
  } finally {
    if (format === 'json' && count) t.stdout.write('\n]\n');
  }
  if (format === 'json' && !count) t.stdout.write('[]\n');
  else if (count === 0) t.stderr.write(`${RESULTS_WORDS.noRowsMatch}\n`);
  for (const [key, prints] of shown) {
    if (prints.length > 1) t.stderr.write(`${RESULTS_WORDS.keyNamesPair(key, prints)}\n`);
  }
  printWarnings(warnings);
}

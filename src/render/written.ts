import { stringify, type CastingContext } from 'csv-stringify/sync';
import { visible, visibleJson } from '../core/shown.js';

/*
 * The one writer per machine-read format, so every command that writes CSV
 * or JSON neutralises what its reader would act on (markdown's escape lives
 * with its renderer, markdown.ts, which every markdown output goes through).
 */

/** A spreadsheet takes a cell starting with one of these as a formula (OWASP's CSV-injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A figure we print as text ("-0.25", "+1.50") reads as the number it is, not as a formula. */
const NUMERAL = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** A text cell: control characters spelled out (the CSV often goes to a terminal), a would-be formula quoted as text. */
export function csvCell(text: string, context?: CastingContext): string {
  const shown = visible(text);
  if (context?.header) return shown;
  return FORMULA_START.test(shown) && !NUMERAL.test(shown) ? `'${shown}` : shown;
}

type CsvRecord = Readonly<Record<string, unknown>> | readonly unknown[];

/** Records as CSV: under a header of `columns` when given (object records), else arrays as they are, the first one a header row. */
export function csvText(records: readonly CsvRecord[], columns?: readonly string[]): string {
  return stringify(records as CsvRecord[] as Record<string, unknown>[], {
    ...(columns ? { header: true, columns: [...columns] } : {}),
    cast: { boolean: (b) => (b ? 'true' : 'false'), string: csvCell },
  });
}

/** A JSON document as every --format json prints it: indented, with characters beyond C0 escaped (JSON.stringify escapes C0). */
export function jsonText(doc: unknown): string {
  return visibleJson(JSON.stringify(doc, null, 2)) + '\n';
}

/** One JSON value on one line, escaped as jsonText: the same value once parsed. */
export function jsonLine(value: unknown): string {
  return visibleJson(JSON.stringify(value));
}

import { visible } from '../../core/shown.js';
import { terminal } from './terminal.js';

/** Warnings go to stderr one line each: a newline in a label or a server's text cannot forge a log line. */
export function printWarnings(warnings: readonly string[]): void {
  const t = terminal();
  for (const w of warnings) t.stderr.write(`${t.errColor.yellow(`awb: warning: ${visible(w)}`)}\n`);
}

import { visible } from '../../core/shown.js';
import { terminal } from './terminal.js';

/** Warnings go to stderr one line each: a newline in a label or a server's text cannot forge a log line. */
export function printWarnings(warnings: readonly string[]): void {
  for (const w of warnings) terminal().stderr.write(`${terminal().errColor.yellow(`awb: warning: ${visible(w)}`)}\n`);
}

import { visible } from '../../core/shown.js';
import { errColor } from '../../render/color.js';

/** Warnings go to stderr one line each: a newline in a label or a server's text cannot forge a log line. */
export function printWarnings(warnings: readonly string[]): void {
  for (const w of warnings) process.stderr.write(`${errColor.yellow(`awb: warning: ${visible(w)}`)}\n`);
}

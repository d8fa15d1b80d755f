import type { Notice } from '../../core/errors.js';
import { visible } from '../../core/shown.js';
import { noticed } from '../words/index.js';
import { PREFIX } from '../words/process.js';
import { terminal } from './terminal.js';

/**
 * Warnings go to stderr one line each: a newline in a label or a server's text cannot forge a log line. Core's
 * come as notices, worded here; the stage's lines come worded.
 */
export function printWarnings(warnings: ReadonlyArray<string | Notice>): void {
  const t = terminal();
  for (const w of warnings) t.stderr.write(`${t.errColor.yellow(PREFIX.warning(visible(typeof w === 'string' ? w : noticed(w))))}\n`);
}

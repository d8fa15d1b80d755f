import { terminal } from '../shared/terminal.js';
import { mergeShards } from '../../core/merge/index.js';
import { displayKey } from '../../core/rows/index.js';
import { UserError } from '../../core/errors.js';
import { thisInvocation } from '../shared/invocation.js';
import { interruptibly } from '../shared/interrupt.js';
import type { Parsed } from '../shared/option-table.js';
import type { MERGE_OPTIONS } from './results-options.js';
import { RESULTS_WORDS } from '../words/results/lines.js';
import { EXIT } from '../words/words.js';

/** With -o every positional is a shard; without it the first is the merged file, as scripts written before -o expect. */
export async function run(files: string[], opts: Parsed<typeof MERGE_OPTIONS>): Promise<void> {
  const t = terminal();
  const [out, ...shards] = opts.output !== undefined ? [opts.output, ...files] : files;
  if (out === undefined || !shards.length) {
    throw new UserError(RESULTS_WORDS.mergeUsage(thisInvocation()), 2);
  }
  const report = await interruptibly(
    (signal) =>
      mergeShards({
        out,
        shards,
        source: opts.data ? [opts.data] : undefined,
        allowGaps: opts.allowGaps,
        force: opts.force,
        signal,
      }),
    RESULTS_WORDS.interrupted('merge', out),
  );
  const gaps = report.missing.length + report.failed.length;
  t.stderr.write(`${RESULTS_WORDS.merged(report.written, shards.length, out)}\n`);
  if (gaps) {
    for (const k of report.missing) t.stderr.write(`${RESULTS_WORDS.mergeMissing(displayKey(k))}\n`);
    for (const k of report.failed) t.stderr.write(`${RESULTS_WORDS.mergeFailed(displayKey(k))}\n`);
    t.stderr.write(t.errColor.yellow(`${RESULTS_WORDS.mergeIncomplete(report.missing.length, report.failed.length)}\n`));
    t.exitCode = EXIT.rowsLeft;
  }
}

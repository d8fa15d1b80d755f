import { terminal } from '../shared/terminal.js';
import { mergeShards } from '../../core/merge/index.js';
import { displayKey } from '../../core/rows/index.js';
import { UserError } from '../../core/errors.js';
import { counted, visible } from '../../core/shown.js';
import { thisInvocation } from '../shared/invocation.js';
import { interruptibly } from '../shared/interrupt.js';
import type { Parsed } from '../shared/option-table.js';
import type { MERGE_OPTIONS } from './results-options.js';

/** With -o every positional is a shard; without it the first is the merged file, as scripts written before -o expect. */
export async function run(files: string[], opts: Parsed<typeof MERGE_OPTIONS>): Promise<void> {
  const t = terminal();
  const [out, ...shards] = opts.output !== undefined ? [opts.output, ...files] : files;
  if (out === undefined || !shards.length) {
    throw new UserError(
      `merge: name the merged file with -o FILE, then the shard files (${thisInvocation()} merge -o merged.jsonl shard1.jsonl ...)`,
      2,
    );
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
    `merge interrupted; nothing was written to ${out}`,
  );
  const gaps = report.missing.length + report.failed.length;
  t.stderr.write(`merge: wrote ${counted(report.written, 'row')} from ${counted(shards.length, 'shard')} to ${visible(out)}\n`);
  if (gaps) {
    for (const k of report.missing) t.stderr.write(`missing: ${visible(displayKey(k))}\n`);
    for (const k of report.failed) t.stderr.write(`failed: ${visible(displayKey(k))}\n`);
    t.stderr.write(
      t.errColor.yellow(`merge: ${counted(report.missing.length, 'row')} missing and ${report.failed.length} failed; the merged file is incomplete\n`),
    );
    t.exitCode = 1;
  }
}

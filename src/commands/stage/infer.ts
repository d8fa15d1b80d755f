import { inferConfig, runInfer, type Checked, type InferConfig } from '../../core/stage/index.js';
import type { Parsed } from '../shared/option-table.js';
import { apiKeyFrom, shardOf } from '../shared/options.js';
import { terminal } from '../shared/terminal.js';
import { keptKeyNote, modelKeyVariables } from './model-key.js';
import { createStageView } from './run-ui.js';
import { appendSummary, checkSummaryPath } from './step-summary.js';
import type { INFER_OPTIONS } from './stage-options.js';

/** infer's config from its options (the same names) and the key the environment gives. */
export function configOf(opts: Parsed<typeof INFER_OPTIONS>): Checked<InferConfig> {
  return inferConfig({
    ...opts,
    shard: shardOf(opts.shard, opts.shardCount),
    ...apiKeyFrom(opts.modelApiKey, '--model-api-key', modelKeyVariables(opts.modelBaseUrl)),
  });
}

export async function run(opts: Parsed<typeof INFER_OPTIONS>): Promise<void> {
  const kept = keptKeyNote(opts.modelBaseUrl, opts.modelApiKey, terminal().env);
  if (kept) terminal().stderr.write(`${kept}\n`);
  const config = configOf(opts);
  // Refused before the run, as compare refuses its summary: a step summary written over an input loses it.
  if (opts.summary !== undefined) await checkSummaryPath(opts.summary, []);
  const view = await createStageView('infer', opts);
  await runInfer(config, view.display, view.signals);
  const summary = opts.summary !== undefined && (await view.stepSummary(terminal().exitCode ?? 0));
  if (summary) await appendSummary(opts.summary!, summary, 'infer');
}

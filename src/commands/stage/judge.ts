import { judgeConfig, runJudge, type Checked, type JudgeConfig } from '../../core/stage/index.js';
import type { Parsed } from '../shared/option-table.js';
import { apiKeyFrom, shardOf } from '../shared/options.js';
import { terminal } from '../shared/terminal.js';
import { createStageView } from './run-ui.js';
import { appendSummary, checkSummaryPath } from './step-summary.js';
import type { JUDGE_OPTIONS } from './stage-options.js';

/** judge's config from its options (the same names) and the key the environment gives. */
export function configOf(opts: Parsed<typeof JUDGE_OPTIONS>): Checked<JudgeConfig> {
  return judgeConfig({
    ...opts,
    shard: shardOf(opts.shard, opts.shardCount),
    ...apiKeyFrom(opts.judgeApiKey, '--judge-api-key', ['AWB_JUDGE_API_KEY', 'OPENAI_API_KEY']),
  });
}

export async function run(opts: Parsed<typeof JUDGE_OPTIONS>): Promise<void> {
  const config = configOf(opts);
  // Refused before the run, as compare refuses its summary: a step summary written over an input loses it.
  if (opts.summary !== undefined)
    await checkSummaryPath(opts.summary, [opts.predictions, ...(opts.reference === undefined ? [] : [opts.reference])]);
  const view = await createStageView('judge', opts);
  await runJudge(config, view.display, view.signals);
  const summary = opts.summary !== undefined && (await view.stepSummary(terminal().exitCode ?? 0));
  if (summary) await appendSummary(opts.summary!, summary, 'judge');
}

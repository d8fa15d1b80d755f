import { dirname, join, resolve } from 'node:path';
import { access } from 'node:fs/promises';
import { EndpointPool } from '../core/endpoints/index.js';
import { UserError } from '../core/errors.js';
import { urlSecrets } from '../core/shown.js';
import { judgeStage, loadRubrics, rubricsSetting } from '../core/judge/index.js';
import { planLines } from '../core/rows/index.js';
import { readManifest } from '../core/runner/index.js';
import { parseOptions } from './option-table.js';
import { apiKeyFrom, dropUndefined, poolSettings, runStageCommand, samplingOf } from './stage-cli.js';
import { JUDGE_OPTIONS } from './stage-options.js';

export async function run(raw: Record<string, unknown>): Promise<void> {
  const opts = parseOptions(JUDGE_OPTIONS, raw);
  const { judgeBaseUrl: urls, judgeModel: model, domains, shard, parseAttempts, predictions } = opts;
  const apiKey = apiKeyFrom(opts.judgeApiKey, 'AWB_JUDGE_API_KEY');
  const sampling = samplingOf(opts);
  try {
    await access(predictions);
  } catch {
    throw new UserError(`${predictions}: no such predictions file (run \`awb infer\` first, or pass --predictions)`);
  }
  const output = opts.output ?? join(dirname(predictions), 'judged.jsonl');
  const upstream = await readManifest(predictions).catch(() => undefined);
  const plan = await planLines([predictions], { domains, shard });
  // Every domain in the data needs a rubric before a single request goes out; the set's hash is a setting.
  const rubrics = await loadRubrics(opts.rubrics, plan.selectedDomains);
  const pool = new EndpointPool({ urls, apiKey, model, ...poolSettings(opts), role: 'judge' });
  const result = await runStageCommand({
    stage: judgeStage(pool, rubrics, sampling, parseAttempts, { promptCacheKey: opts.promptCacheKey }),
    pool,
    plan,
    output,
    settings: {
      judge: { hosts: pool.hosts(), model },
      judge_sampling: dropUndefined(sampling),
      rubrics: rubricsSetting(rubrics),
      parse_attempts: parseAttempts,
      ...(domains ? { domains } : {}),
      ...(shard ? { shard } : {}),
    },
    dataset: {
      source: resolve(predictions),
      ...(upstream?.dataset.repo ? { repo: upstream.dataset.repo } : {}),
      ...(upstream?.dataset.revision ? { revision: upstream.dataset.revision } : {}),
      ...(upstream?.dataset.commit ? { commit: upstream.dataset.commit } : {}),
    },
    upstream,
    options: opts,
    columns: [
      { title: 'final failures', value: (t) => t.finalFailed, warn: true },
      { title: 'no prediction (infer failed)', value: (t) => t.empty },
    ],
    secrets: [apiKey, ...urls.flatMap(urlSecrets)],
  });
  const unpredicted = [...result.perDomain.values()].reduce((a, t) => a + t.empty, 0);
  if (unpredicted) {
    process.stderr.write(
      `judge: ${unpredicted} rows have no prediction because their inference failed: run \`awb infer\` again on ${predictions} first, then this command\n`,
    );
  }
  if (!result.stopped) process.stderr.write(`score it with: awb score ${output}\n`);
}

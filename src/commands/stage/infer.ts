import { EndpointPool } from '../../core/endpoints/index.js';
import { UserError } from '../../core/errors.js';
import { urlSecrets } from '../../core/shown.js';
import { inferStage, type Sampling } from '../../core/infer/index.js';
import { datasetFiles, planLines } from '../../core/rows/index.js';
import type { Parsed } from '../shared/option-table.js';
import { allDone, dropUndefined, endpointCheck, poolSettings, printDryRun, runStageCommand, samplingOf } from './stage-cli.js';
import type { INFER_OPTIONS } from './stage-options.js';
import { isOpenAIEndpoint, keptKeyNote, modelKeyVariables } from './model-key.js';
import { resolveData } from '../data/data-source.js';
import { apiKeyFrom, pathSegment, shardOf, shardSuffix } from '../shared/options.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';
import { join } from 'node:path';
import { checkOutputPath } from '../../core/output/index.js';
import { terminal } from '../shared/terminal.js';

export async function run(opts: Parsed<typeof INFER_OPTIONS>): Promise<void> {
  const { modelBaseUrl: urls, modelName: model, domains, limit, history } = opts;
  const shard = shardOf(opts.shard, opts.shardCount);
  const { apiKey, key } = apiKeyFrom(opts.modelApiKey, '--model-api-key', modelKeyVariables(urls));
  const kept = keptKeyNote(urls, opts.modelApiKey, terminal().env);
  if (kept) terminal().stderr.write(`${kept}\n`);
  const sampling: Sampling = { ...samplingOf(opts), top_p: opts.topP };
  if (opts.data !== undefined && (opts.revision !== undefined || opts.source !== 'huggingface')) {
    const what = opts.revision !== undefined ? '--revision' : '--source';
    throw new UserError(`${what} chooses what to download; it cannot apply to a local --data folder (drop one of them)`);
  }

  const pool = new EndpointPool({ urls, apiKey, model, ...poolSettings(opts), role: 'world model', key });
  // A folder per run, so a second model never lands in the first one's file; a file per shard of it.
  const output = opts.output ?? join('results', pathSegment(opts.label ?? model), `predictions${shardSuffix(shard)}.jsonl`);
  const check = endpointCheck('infer', pool, opts);
  if (opts.data === undefined && !opts.dryRun) {
    // The dataset may be downloaded first: a wrong output path, URL, key or model should not wait for 400 MB to say so.
    await checkOutputPath(output);
    await check?.();
  }
  const data = await resolveData(opts.data, opts.source, opts.revision, domains, opts.progress);
  const files = await datasetFiles(data.dir, domains);
  const plan = await planLines(
    files.map((f) => f.path),
    { domains, limit, shard },
  );
  const stage = inferStage(pool, sampling, history, {
    promptCacheKey: opts.promptCacheKey,
    completionTokensOnly: urls.every(isOpenAIEndpoint),
  });
  if (opts.dryRun) return printDryRun(stage, plan, opts, output);
  const result = await runStageCommand({
    stage,
    pool,
    plan,
    output,
    label: opts.label,
    settings: {
      world_model: { hosts: pool.hosts(), model },
      sampling: dropUndefined(sampling),
      history,
      ...(domains ? { domains } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(shard ? { shard } : {}),
    },
    dataset: data.origin,
    options: opts,
    columns: [
      { title: 'empty', value: (t) => t.empty, warn: 'came back empty' },
      { title: 'cut off by max tokens', value: (t) => t.truncated, warn: 'stopped at --max-tokens' },
    ],
    secrets: [apiKey, ...urls.flatMap(urlSecrets)],
    check,
  });
  // Only once every row has its result: with rows to redo, the last word is the command that redoes them.
  if (allDone(result))
    terminal().stderr.write(
      `judge it with: ${thisInvocation()} judge --predictions ${shellWord(output)} --judge-base-url URL --judge-model MODEL\n`,
    );
}

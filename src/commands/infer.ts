import { EndpointPool } from '../core/endpoints/index.js';
import { UserError } from '../core/errors.js';
import { urlSecrets } from '../core/shown.js';
import { inferStage, type Sampling } from '../core/infer/index.js';
import { datasetFiles, planLines } from '../core/rows/index.js';
import { parseOptions } from './option-table.js';
import { apiKeyFrom, dropUndefined, poolSettings, runStageCommand, samplingOf } from './stage-cli.js';
import { INFER_OPTIONS } from './stage-options.js';
import { resolveData } from './data-source.js';

export async function run(raw: Record<string, unknown>): Promise<void> {
  const opts = parseOptions(INFER_OPTIONS, raw);
  const { modelBaseUrl: urls, modelName: model, domains, shard, limit, history } = opts;
  const apiKey = apiKeyFrom(opts.modelApiKey, 'AWB_MODEL_API_KEY');
  const sampling: Sampling = { ...samplingOf(opts), top_p: opts.topP };
  if (opts.data !== undefined && opts.revision !== 'main') {
    throw new UserError('--revision chooses what to download; it cannot apply to a local --data folder (drop one of them)');
  }

  const data = await resolveData(opts.data, opts.revision, domains, opts.progress);
  const files = await datasetFiles(data.dir, domains);
  const plan = await planLines(
    files.map((f) => f.path),
    { domains, limit, shard },
  );
  const pool = new EndpointPool({ urls, apiKey, model, ...poolSettings(opts), role: 'world model' });
  await runStageCommand({
    stage: inferStage(pool, sampling, history, { promptCacheKey: opts.promptCacheKey }),
    pool,
    plan,
    output: opts.output,
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
      { title: 'empty', value: (t) => t.empty, warn: true },
      { title: 'cut off by max tokens', value: (t) => t.truncated, warn: true },
    ],
    secrets: [apiKey, ...urls.flatMap(urlSecrets)],
  });
}

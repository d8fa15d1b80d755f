import { EndpointPool } from '../core/endpoints/index.js';
import { UserError } from '../core/errors.js';
import { inferStage, type Sampling } from '../core/infer/index.js';
import { datasetFiles, planLines } from '../core/rows/index.js';
import { intOption, numberOption, urlOption } from './options.js';
import { apiKeyFrom, dropUndefined, parseStageOptions, runStageCommand, type StageCliOptions } from './stage-cli.js';
import { resolveData } from './data-source.js';

export interface InferCliOptions extends StageCliOptions {
  modelBaseUrl: string[];
  modelName: string;
  modelApiKey?: string;
  data?: string;
  revision: string;
  output: string;
  limit?: string;
  topP?: string;
  history: boolean;
}

export async function run(opts: InferCliOptions): Promise<void> {
  const urls = opts.modelBaseUrl.map((u) => urlOption('model-base-url', u));
  const model = opts.modelName;
  const apiKey = apiKeyFrom(opts.modelApiKey, 'AWB_MODEL_API_KEY');
  const parsed = parseStageOptions(opts);
  const { domains, shard } = parsed;
  const sampling: Sampling = { ...parsed.sampling, top_p: numberOption('top-p', opts.topP, 0, 1) };
  const limit = intOption('limit', opts.limit, 1);
  if (opts.data !== undefined && opts.revision !== 'main') {
    throw new UserError('--revision chooses what to download; it cannot apply to a local --data folder (drop one of them)');
  }
  const history = opts.history ? 'full' : 'none';

  const data = await resolveData(opts.data, opts.revision, domains, opts.progress);
  const files = await datasetFiles(data.dir, domains);
  const plan = await planLines(
    files.map((f) => f.path),
    { domains, limit, shard },
  );
  const pool = new EndpointPool({ urls, apiKey, model, ...parsed, role: 'world model' });
  await runStageCommand({
    stage: inferStage(pool, sampling, history),
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
    cli: opts,
    parsed,
    columns: [
      { title: 'empty', value: (t) => t.empty, warn: true },
      { title: 'cut off by max tokens', value: (t) => t.truncated, warn: true },
    ],
    secrets: [apiKey],
  });
}

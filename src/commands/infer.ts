import { EndpointPool } from '../core/endpoints/index.js';
import { predictionFieldsSchema } from '../core/schemas/index.js';
import { UserError } from '../core/errors.js';
import { urlSecrets } from '../core/shown.js';
import { inferInputSchema, inferJobs, isInferDone, tallyPrediction, type Sampling } from '../core/infer/index.js';
import { datasetFiles } from '../core/rows/index.js';
import { runStage } from '../core/runner/index.js';
import { intOption, numberOption, urlOption } from './options.js';
import { createProgress, installInterrupts, printSummary, reportEvent } from './run-ui.js';
import {
  apiKeyFrom,
  dropUndefined,
  finish,
  tuneGarbageCollection,
  parseStageOptions,
  printEndpoints,
  type StageCliOptions,
} from './stage-cli.js';
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
  const urls = opts.modelBaseUrl.map((u) => urlOption('model-base-url', u, 'model-api-key'));
  const model = opts.modelName;
  const apiKey = apiKeyFrom(opts.modelApiKey, 'AWB_MODEL_API_KEY');
  const { concurrency, timeoutMs, maxRetries, onBadRow, graceSeconds, domains, shard, ...common } = parseStageOptions(opts);
  tuneGarbageCollection();
  const sampling: Sampling = { ...common.sampling, top_p: numberOption('top-p', opts.topP, 0, 1) };
  const limit = intOption('limit', opts.limit, 1);
  if (opts.data !== undefined && opts.revision !== 'main') {
    throw new UserError('--revision chooses what to download; it cannot apply to a local --data folder (drop one of them)');
  }
  const history = opts.history ? 'full' : 'none';

  const data = await resolveData(opts.data, opts.revision, domains, opts.progress);
  const files = await datasetFiles(data.dir, domains);

  const pool = new EndpointPool({ urls, apiKey, model, timeoutMs, maxRetries, role: 'world model' });

  const interrupts = installInterrupts('infer', graceSeconds);
  const progress = createProgress('infer', opts.progress);
  try {
    const result = await runStage({
      stage: 'infer',
      inputFiles: files.map((f) => f.path),
      outputFields: Object.keys(predictionFieldsSchema.shape),
      schema: inferInputSchema,
      output: opts.output,
      select: { domains, limit, shard },
      onBadRow,
      settings: async () => ({
        world_model: { hosts: pool.hosts(), model },
        sampling: dropUndefined(sampling),
        history,
        ...(domains ? { domains } : {}),
        ...(limit !== undefined ? { limit } : {}),
        ...(shard ? { shard } : {}),
      }),
      dataset: data.origin,
      force: opts.force === true,
      concurrency,
      isDone: isInferDone,
      tally: tallyPrediction,
      prepare: inferJobs(pool, sampling, history),
      stop: interrupts.stop,
      abort: interrupts.abort,
      onEvent: (e) => {
        reportEvent('infer', e, opts.output);
        progress.event(e);
      },
      beforeDispatch: async () => {
        if (opts.preflight) await pool.preflight();
      },
      endpointStats: () => pool.stats(),
    });
    progress.stop();
    printSummary('infer', result, [
      { title: 'empty', value: (t) => t.empty, warn: true },
      { title: 'cut off by max tokens', value: (t) => t.truncated, warn: true },
    ]);
    printEndpoints(result.manifest.endpoints);
    finish('infer', result.stopped, result.remaining, opts.output, [apiKey, ...urls.flatMap(urlSecrets)]);
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}

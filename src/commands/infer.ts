import chalk from 'chalk';
import { EndpointPool } from '../core/endpoints.js';
import { UserError } from '../core/errors.js';
import { inferInputSchema, inferProcessor, isInferDone, tallyPrediction, type Sampling } from '../core/infer.js';
import { datasetFiles } from '../core/input.js';
import { runStage } from '../core/stage.js';
import { parseDomainList } from '../core/domains.js';
import { choiceOption, intOption, jsonObjectOption, numberOption, shardOption, urlOption } from './options.js';
import { createProgress, installInterrupts, printSummary, reportPlan, resumeCommand } from './run-ui.js';
import { resolveData } from './data-source.js';

export interface InferCliOptions {
  modelBaseUrl: string[];
  modelName: string;
  modelApiKey?: string;
  data?: string;
  revision: string;
  output: string;
  domains?: string;
  limit?: string;
  shard?: string;
  concurrency: string;
  temperature: string;
  topP?: string;
  maxTokens: string;
  extraBody?: string;
  history: boolean;
  timeout: string;
  maxRetries: string;
  onBadRow: string;
  grace: string;
  force?: boolean;
  preflight: boolean;
  progress: boolean;
}

export function modelApiKey(given: string | undefined, specific: string): string {
  return given ?? process.env[specific] ?? process.env.OPENAI_API_KEY ?? 'EMPTY';
}

export async function run(opts: InferCliOptions): Promise<void> {
  const urls = opts.modelBaseUrl.map((u) => urlOption('model-base-url', u));
  const model = opts.modelName;
  const apiKey = modelApiKey(opts.modelApiKey, 'AWB_MODEL_API_KEY');
  const concurrency = intOption('concurrency', opts.concurrency, 1, 4096)!;
  const sampling: Sampling = {
    temperature: numberOption('temperature', opts.temperature, 0, 2),
    top_p: numberOption('top-p', opts.topP, 0, 1),
    max_tokens: intOption('max-tokens', opts.maxTokens, 1),
    extra_body: jsonObjectOption('extra-body', opts.extraBody),
  };
  const timeoutMs = numberOption('timeout', opts.timeout, 1, 86_400)! * 1000;
  const maxRetries = intOption('max-retries', opts.maxRetries, 0, 100)!;
  const onBadRow = choiceOption('on-bad-row', opts.onBadRow, ['stop', 'skip'] as const);
  const grace = numberOption('grace', opts.grace, 0, 86_400)!;
  const domains = parseDomainList(opts.domains);
  const limit = intOption('limit', opts.limit, 1);
  const shard = shardOption(opts.shard);
  if (opts.data !== undefined && opts.revision !== 'main') {
    throw new UserError('--revision chooses what to download; it cannot apply to a local --data folder (drop one of them)');
  }
  const history = opts.history ? 'full' : 'none';

  const data = await resolveData(opts.data, opts.revision, domains, opts.progress);
  const files = await datasetFiles(data.dir, domains);

  const pool = new EndpointPool({ urls, apiKey, model, timeoutMs, maxRetries, role: 'world model' });

  const interrupts = installInterrupts('infer', grace);
  const progress = createProgress('infer', opts.progress);
  try {
    const result = await runStage({
      stage: 'infer',
      inputFiles: files.map((f) => f.path),
      schema: inferInputSchema,
      output: opts.output,
      select: { domains, limit, shard, onBadRow },
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
      process: inferProcessor(pool, sampling, history),
      stop: interrupts.stop,
      abort: interrupts.abort,
      onEvent: (e) => {
        if (e.type === 'planned') reportPlan('infer', e, opts.output);
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
    finish('infer', result.stopped, result.remaining, opts.output, [apiKey]);
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}

export function printEndpoints(endpoints: Record<string, { requests: number; failures: number }> | undefined): void {
  if (!endpoints || Object.keys(endpoints).length < 2) return;
  for (const [url, s] of Object.entries(endpoints)) process.stderr.write(`endpoint ${url}: ${s.requests} requests, ${s.failures} failed\n`);
}

/** Final words and exit code: 0 only when every row is done. */
export function finish(stage: string, stopped: boolean, remaining: number, output: string, secrets: string[]): void {
  const again = resumeCommand(secrets);
  if (stopped) {
    process.stderr.write(chalk.yellow(`${stage}: interrupted with ${remaining} rows left; everything finished is saved in ${output}.\nResume with:\n  ${again}\n`));
    process.exitCode = 130;
  } else if (remaining > 0) {
    process.stderr.write(chalk.yellow(`${stage}: ${remaining} rows failed (their errors are in ${output}); run the same command again to retry only those:\n  ${again}\n`));
    process.exitCode = 1;
  } else {
    process.stderr.write(chalk.green(`${stage}: done: ${output}\n`));
  }
}

export function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

import { dirname, join, resolve } from 'node:path';
import { access } from 'node:fs/promises';
import { EndpointPool } from '../core/endpoints/index.js';
import { judgeFieldsSchema } from '../core/schemas/index.js';
import { UserError } from '../core/errors.js';
import { isJudgeDone, judgeInputSchema, judgeJobs, tallyJudgement } from '../core/judge/index.js';
import { readManifest } from '../core/runner/index.js';
import { loadRubrics, rubricsSetting } from '../core/judge/index.js';
import { runStage } from '../core/runner/index.js';
import { intOption, urlOption } from './options.js';
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

export interface JudgeCliOptions extends StageCliOptions {
  predictions: string;
  judgeBaseUrl: string[];
  judgeModel: string;
  judgeApiKey?: string;
  rubrics?: string;
  output?: string;
  parseAttempts: string;
}

export async function run(opts: JudgeCliOptions): Promise<void> {
  const urls = opts.judgeBaseUrl.map((u) => urlOption('judge-base-url', u));
  const model = opts.judgeModel;
  const apiKey = apiKeyFrom(opts.judgeApiKey, 'AWB_JUDGE_API_KEY');
  const { concurrency, sampling, timeoutMs, maxRetries, onBadRow, graceSeconds, domains, shard } = parseStageOptions(opts);
  tuneGarbageCollection();
  const parseAttempts = intOption('parse-attempts', opts.parseAttempts, 1, 20)!;
  const predictions = opts.predictions;
  try {
    await access(predictions);
  } catch {
    throw new UserError(`${predictions}: no such predictions file (run \`awb infer\` first, or pass --predictions)`);
  }
  const output = opts.output ?? join(dirname(predictions), 'judged.jsonl');
  const upstream = await readManifest(predictions).catch(() => undefined);
  const pool = new EndpointPool({ urls, apiKey, model, timeoutMs, maxRetries, role: 'judge' });
  let jobFor: ReturnType<typeof judgeJobs> | undefined;

  const interrupts = installInterrupts('judge', graceSeconds);
  const progress = createProgress('judge', opts.progress);
  try {
    const result = await runStage({
      stage: 'judge',
      inputFiles: [predictions],
      outputFields: Object.keys(judgeFieldsSchema.shape),
      schema: judgeInputSchema,
      output,
      select: { domains, shard },
      onBadRow,
      // Every domain in the data needs a rubric before a single request goes out; the set's hash is a setting.
      settings: async (planned) => {
        const rubrics = await loadRubrics(opts.rubrics, planned);
        jobFor = judgeJobs(pool, rubrics, sampling, parseAttempts);
        return {
          judge: { hosts: pool.hosts(), model },
          judge_sampling: dropUndefined(sampling),
          rubrics: rubricsSetting(rubrics),
          parse_attempts: parseAttempts,
          ...(domains ? { domains } : {}),
          ...(shard ? { shard } : {}),
        };
      },
      dataset: {
        source: resolve(predictions),
        ...(upstream?.dataset.repo ? { repo: upstream.dataset.repo } : {}),
        ...(upstream?.dataset.revision ? { revision: upstream.dataset.revision } : {}),
        ...(upstream?.dataset.commit ? { commit: upstream.dataset.commit } : {}),
      },
      upstream,
      force: opts.force === true,
      concurrency,
      isDone: isJudgeDone,
      tally: tallyJudgement,
      prepare: (row, text) => jobFor!(row, text),
      stop: interrupts.stop,
      abort: interrupts.abort,
      beforeDispatch: async () => {
        if (opts.preflight) await pool.preflight();
      },
      onEvent: (e) => {
        reportEvent('judge', e, output);
        progress.event(e);
      },
      endpointStats: () => pool.stats(),
    });
    progress.stop();
    printSummary('judge', result, [{ title: 'no prediction (infer failed)', value: (t) => t.empty }]);
    const unpredicted = [...result.perDomain.values()].reduce((a, t) => a + t.empty, 0);
    if (unpredicted) {
      process.stderr.write(
        `judge: ${unpredicted} rows have no prediction because their inference failed: run \`awb infer\` again on ${predictions} first, then this command\n`,
      );
    }
    printEndpoints(result.manifest.endpoints);
    finish('judge', result.stopped, result.remaining, output, [apiKey]);
    if (!result.stopped) process.stderr.write(`score it with: awb score ${output}\n`);
  } finally {
    progress.stop();
    interrupts.dispose();
  }
}

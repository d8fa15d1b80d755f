import { dirname, join, resolve } from 'node:path';
import { access } from 'node:fs/promises';
import { EndpointPool } from '../core/endpoints/index.js';
import { UserError } from '../core/errors.js';
import { judgeStage, loadRubrics } from '../core/judge/index.js';
import { planLines } from '../core/rows/index.js';
import { readManifest } from '../core/runner/index.js';
import { intOption, urlOption } from './options.js';
import { apiKeyFrom, dropUndefined, parseStageOptions, runStageCommand, type StageCliOptions } from './stage-cli.js';

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
  const parsed = parseStageOptions(opts);
  const { sampling, domains, shard } = parsed;
  const parseAttempts = intOption('parse-attempts', opts.parseAttempts, 1, 20)!;
  const predictions = opts.predictions;
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
  const pool = new EndpointPool({ urls, apiKey, model, ...parsed, role: 'judge' });
  const result = await runStageCommand({
    stage: judgeStage(pool, rubrics, sampling, parseAttempts),
    pool,
    plan,
    output,
    settings: {
      judge: { hosts: pool.hosts(), model },
      judge_sampling: dropUndefined(sampling),
      rubrics: { source: rubrics.source, sha256: rubrics.sha256 },
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
    cli: opts,
    parsed,
    columns: [
      { title: 'final failures', value: (t) => t.finalFailed, warn: true },
      { title: 'no prediction (infer failed)', value: (t) => t.empty },
    ],
    secrets: [apiKey],
  });
  const unpredicted = [...result.perDomain.values()].reduce((a, t) => a + t.empty, 0);
  if (unpredicted) {
    process.stderr.write(
      `judge: ${unpredicted} rows have no prediction because their inference failed: run \`awb infer\` again on ${predictions} first, then this command\n`,
    );
  }
  if (!result.stopped) process.stderr.write(`score it with: awb score ${output}\n`);
}

import { EndpointPool } from '../endpoints/index.js';
import { inferStage } from '../infer/index.js';
import { isStream } from '../files.js';
import { checkOutputPath } from '../output/index.js';
import { datasetFiles, planLines } from '../rows/index.js';
import type { StageResult } from '../runner/index.js';
import { urlSecrets } from '../shown.js';
import type { Checked, InferConfig } from './config.js';
import { resolveData } from './data.js';
import { NO_SIGNALS, type StageDisplay, type StageSignals } from './display.js';
import { inferOutput } from './outputs.js';
import { allDone, dryRunStage, endingOf, endpointCheck, runStageWith } from './run.js';
import { inferSampling, inferSettings, poolSettings, routingOf } from './settings.js';

/**
 * infer: the world model's prediction of every row, resumable. The dataset is downloaded when no
 * --data is given, after the output and the endpoint are checked. Undefined for a dry run.
 */
export async function runInfer(
  c: Checked<InferConfig>,
  display: StageDisplay,
  signals: StageSignals = NO_SIGNALS,
): Promise<StageResult | undefined> {
  const { modelBaseUrl: urls, modelName: model, domains, shard, limit, history, apiKey } = c;
  const sampling = inferSampling(c);
  const pool = new EndpointPool({ urls, apiKey, model, ...poolSettings(c), role: 'world model', key: c.key });
  const output = inferOutput(c);
  const check = endpointCheck('infer', pool, c, display, signals);
  if (c.data === undefined && !c.dryRun) {
    // The dataset may be downloaded first: a wrong output path, URL, key or model should not wait for 400 MB to say so.
    await checkOutputPath(output);
    await check?.();
  }
  const data = await resolveData(c, display, signals);
  const files = await datasetFiles(data.dir, domains);
  const plan = await planLines(
    files.map((f) => f.path),
    { domains, limit, shard },
  );
  const routing = routingOf(c, urls);
  const stage = inferStage(pool, sampling, history, routing, c.horizon === undefined ? undefined : { horizon: c.horizon });
  const run = {
    stage,
    pool,
    plan,
    output,
    label: c.label,
    settings: inferSettings(c, { hosts: pool.hosts(), model }),
    dataset: data.origin,
    config: c,
    secrets: [apiKey, ...urls.flatMap(urlSecrets)],
    check,
  };
  if (c.dryRun) {
    // A free-running dry run also counts the teacher-forced run of the same rows: what the horizon multiplies.
    const teacherForced = c.horizon === undefined ? undefined : inferStage(pool, sampling, history, routing);
    return void (await dryRunStage(run, display, teacherForced));
  }
  const result = await runStageWith(run, display, signals);
  // Only once every row has its result: with rows to redo, the last word is the command that redoes them.
  // A stream (/dev/null, stdout, a FIFO) cannot be read back: no next command to name it.
  if (allDone(endingOf(result)) && !(await isStream(output))) display.event({ type: 'next-step', stage: 'infer', output });
  return result;
}

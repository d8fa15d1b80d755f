import { dirname, join, resolve } from 'node:path';
import { access } from 'node:fs/promises';
import { EndpointPool, type KeySource } from '../../core/endpoints/index.js';
import { UserError, fail } from '../../core/errors.js';
import { terminal } from '../shared/terminal.js';
import { urlSecrets, visible } from '../../core/shown.js';
import {
  ReferenceFile,
  choicePanelStage,
  earlierPanels,
  judgeStage,
  notPredictions,
  pairwiseMode,
  pairwiseStage,
  panelStage,
  turingMode,
  turingStage,
  type ChoiceMode,
  type PanelStage,
} from '../../core/judge/index.js';
import type { RowChat } from '../../core/runner/index.js';
import { loadModePrompt, loadRubrics, rubricsSetting } from '../../core/rubrics/index.js';
import { displayKey } from '../../core/rows/index.js';
import { planLines } from '../../core/rows/index.js';
import { readManifest } from '../../core/output/index.js';
import { refuseOverInputs } from '../../core/files.js';
import { choicePanelEntrySchema, manifestPathFor, panelEntrySchema } from '../../core/schemas/index.js';
import type { Parsed } from '../shared/option-table.js';
import {
  allDone,
  dropUndefined,
  poolSettings,
  printDryRun,
  runStageCommand,
  samplingOf,
  type BatchCommon,
  type BatchProgress,
} from './stage-cli.js';
import type { JUDGE_OPTIONS } from './stage-options.js';
import { PanelPools, panelMembers } from './panel-pools.js';
import { isOpenAIEndpoint } from './model-key.js';
import { PanelBatches } from './panel-batches.js';
import { refusePanelMisuse } from './panel-options.js';
import { apiKeyFrom, pathSegment, shardOf, shardSuffix } from '../shared/options.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';

export async function run(opts: Parsed<typeof JUDGE_OPTIONS>): Promise<void> {
  const { judgeBaseUrl: urls, judgeModel: models, domains, parseAttempts, predictions } = opts;
  const shard = shardOf(opts.shard, opts.shardCount);
  const model = models.join(',');
  const { apiKey, key } = apiKeyFrom(opts.judgeApiKey, '--judge-api-key', ['AWB_JUDGE_API_KEY', 'OPENAI_API_KEY']);
  const sampling = samplingOf(opts);
  try {
    await access(predictions);
  } catch {
    throw new UserError(`${predictions}: no such predictions file (run \`${thisInvocation()} infer\` first, or pass --predictions)`);
  }
  const notOurs = await notPredictions(predictions);
  if (notOurs) throw fail(notOurs);
  const { mode, repeat } = opts;
  if (opts.reference !== undefined && mode !== 'pairwise') throw new UserError('--reference goes with --mode pairwise');
  if (mode === 'pairwise' && opts.reference === undefined) throw new UserError('--mode pairwise needs --reference OTHER.jsonl');
  if (repeat !== undefined && mode !== 'rubric') throw new UserError('--repeat goes with --mode rubric');
  refusePanelMisuse(opts);
  const upstream = await readManifest(predictions).catch(() => undefined);
  const unwritten = upstream?.stage === 'infer' ? upstream.counts.total - upstream.counts.done - upstream.counts.failed : 0;
  if (upstream && unwritten > 0) {
    // Judging ahead of inference is allowed (the same command judges the rest later), but never silently: its "done" covers only these rows.
    terminal().stderr.write(
      `${terminal().errColor.yellow(`warning: ${visible(predictions)} is unfinished (its manifest counts ${unwritten} of ${upstream.counts.total} rows not written yet): this run judges only the rows it holds; finish the infer run, then run this command again`)}\n`,
    );
  }
  // Beside the predictions, a file per judge (--label) and per shard: the predictions' (one infer shard's, judged alone) and this run's.
  const predictionsShard = shardSuffix(upstream?.stage === 'infer' ? upstream.settings.shard : undefined);
  const named = opts.label ? `-${pathSegment(opts.label)}` : '';
  const output = opts.output ?? join(dirname(predictions), `judged${named}${predictionsShard}${shardSuffix(shard)}.jsonl`);
  // The reference is read while the output is written: an input like the predictions, never written over.
  if (opts.reference !== undefined) await refuseOverInputs([output, manifestPathFor(output)], [opts.reference]);
  const plan = await planLines([predictions], { domains, shard });
  const makePool = (o: { urls: string[]; apiKey: string; model: string; key: KeySource }) =>
    new EndpointPool({ ...o, ...poolSettings(opts), role: 'judge' });
  const members =
    models.length > 1
      ? panelMembers({ models, urls, apiKey, key, memberUrls: opts.memberBaseUrl, memberKeys: opts.memberApiKey }, makePool)
      : undefined;
  if (!members && !urls.length) throw new UserError('--judge-base-url is required');
  const pool = members ? new PanelPools(members) : makePool({ urls, apiKey, model, key });
  const single = members ? undefined : (pool as EndpointPool);
  const hosts = members ? [...new Set(members.flatMap((m) => m.pool.hosts()))] : single!.hosts();
  const routing = { promptCacheKey: opts.promptCacheKey, completionTokensOnly: urls.every(isOpenAIEndpoint) };
  let reference: ReferenceFile | undefined;
  try {
    const built = await buildStage();
    if (opts.dryRun) return await printDryRun(built.stage, plan, opts, output);
    const result = await runStageCommand({
      stage: built.stage,
      ...('batches' in built && { batches: built.batches }),
      pool,
      plan,
      output,
      label: opts.label ?? upstream?.label,
      settings: {
        judge: { hosts, model },
        ...(members && { panel: { members: members.map((m) => ({ hosts: m.pool.hosts(), model: m.name })), rule: opts.panel ?? 'mean' } }),
        judge_sampling: dropUndefined(sampling),
        ...built.settings,
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
        { title: 'final failures', value: (t) => t.finalFailed, warn: 'failed for good' },
        { title: 'no prediction (infer failed)', value: (t) => t.empty },
      ],
      secrets: [
        apiKey,
        ...urls.flatMap(urlSecrets),
        ...opts.memberApiKey.map((k) => k.value),
        ...opts.memberBaseUrl.flatMap((u) => urlSecrets(u.value)),
      ],
    });
    const unpredicted = [...result.perDomain.values()].reduce((a, t) => a + t.empty, 0);
    if (unpredicted) {
      terminal().stderr.write(
        `judge: ${unpredicted} rows have no prediction because their inference failed: run \`${thisInvocation()} infer\` again on ${predictions} first, then this command\n`,
      );
    }
    // Only once every row has its result: with rows to redo, the last word is the command that redoes them.
    if (allDone(result)) terminal().stderr.write(`score it with: ${thisInvocation()} score ${shellWord(output)}\n`);
  } finally {
    await reference?.close();
  }

  /** Every domain in the data needs a rubric before a single request goes out; the set's hash is a setting. */
  async function rubricsFor() {
    return loadRubrics(opts.rubrics, plan.selectedDomains, (domain) => {
      const line = plan.lines.find((l) => l.domain === domain);
      return line && `${plan.files[line.file]}:${line.lineNo}`;
    });
  }

  /** The stage of the chosen mode, and the settings that make its results what they are. */
  async function buildStage() {
    if (mode === 'rubric') {
      const rubrics = await rubricsFor();
      const settings = { rubrics: rubricsSetting(rubrics), ...(repeat === undefined ? {} : { repeat }) };
      if (members) {
        // Read before the run drops the rows it redoes: their members' final judgements are kept (resume per member).
        const earlier = await earlierPanels(output, opts.retryFailed, panelEntrySchema);
        const judging = { rubrics, sampling, parseAttempts, routing, repeat };
        return panelled((chatOf) => panelStage(members, judging, opts.panel ?? 'mean', (key) => earlier.get(key), chatOf), settings);
      }
      return { stage: judgeStage(single!, rubrics, sampling, parseAttempts, repeat, routing), settings };
    }
    const prompt = await loadModePrompt(opts.rubrics, mode);
    const modeSettings = { mode, mode_prompt: { source: prompt.source, sha256: prompt.sha256 } };
    const choosing = { pool: single!, prompt, sampling, parseAttempts, routing };
    if (mode === 'turing') {
      return members ? await choicePanel(turingMode(choosing), modeSettings) : { stage: turingStage(choosing), settings: modeSettings };
    }
    reference = await ReferenceFile.open(opts.reference!, plan.selectedDomains);
    const sides = await reference.unpaired(predictions, plan.selectedDomains);
    reportUnpaired(sides.candidateOnly, `in ${predictions} but not in the reference: written as "No reference row", not sent`);
    reportUnpaired(sides.referenceOnly, `in the reference ${opts.reference} only: left out`);
    const settings = { ...modeSettings, reference: { source: resolve(opts.reference!), sha256: reference.sha256 } };
    return members
      ? await choicePanel(pairwiseMode(choosing, reference), settings)
      : { stage: pairwiseStage(choosing, reference), settings };
  }

  /** A panel's stage, its members asking through their own batches first with --batch. */
  function panelled<S>(make: (chatOf: (n: number, key: string) => RowChat) => PanelStage, settings: S) {
    const batches = new PanelBatches(members!);
    const stage = make((n, key) => batches.chat(n, key));
    return { stage, settings, batches: (common: BatchCommon, progress: BatchProgress) => batches.open(stage, common, progress) };
  }

  /** A choice mode judged by the panel: each member in both orders, resumed per member as the rubric panel is. */
  async function choicePanel<S>(choice: ChoiceMode, settings: S) {
    const earlier = await earlierPanels(output, opts.retryFailed, choicePanelEntrySchema);
    return panelled(
      (chatOf) => choicePanelStage(choice, members!, parseAttempts, opts.panel ?? 'mean', (key) => earlier.get(key), chatOf),
      settings,
    );
  }
}

const SHOWN = 5;

function reportUnpaired(keys: readonly string[], what: string): void {
  if (!keys.length) return;
  const examples = keys.slice(0, SHOWN).map(displayKey).join('; ');
  terminal().stderr.write(`judge: ${keys.length} row(s) ${what} (${examples}${keys.length > SHOWN ? '; …' : ''})\n`);
}

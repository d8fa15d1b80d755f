import { resolve } from 'node:path';
import { access } from 'node:fs/promises';
import { EndpointPool, type KeySource } from '../endpoints/index.js';
import { fail } from '../errors.js';
import { isStream, refuseOverInputs } from '../files.js';
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
} from '../judge/index.js';
import { readManifest } from '../output/index.js';
import { isBlank, planLines, readLineBytes, type LinePlan } from '../rows/index.js';
import { loadModePrompt, loadRubrics, rubricsSetting } from '../rubrics/index.js';
import type { RowChat, StageResult } from '../runner/index.js';
import { choicePanelEntrySchema, manifestPathFor, panelEntrySchema, type Manifest } from '../schemas/index.js';
import { urlSecrets } from '../shown.js';
import type { Checked, JudgeConfig } from './config.js';
import { NO_SIGNALS, type StageDisplay, type StageSignals } from './display.js';
import { judgeOutput } from './outputs.js';
import { PanelBatches } from './panel-batches.js';
import { PanelPools, panelMembers, type BatchCommon, type BatchProgress } from './pools.js';
import { allDone, dryRunStage, endingOf, endpointCheck, runStageWith } from './run.js';
import { judgeSampling, judgeSettings, poolSettings, routingOf } from './settings.js';

type Member = { name: string; pool: EndpointPool };

/** What a judge mode's stage is built from: the run's config, its rows, output and pools. */
interface Judging {
  c: Checked<JudgeConfig>;
  plan: LinePlan;
  output: string;
  /** A panel's members; undefined for one judge (`single`). */
  members: Member[] | undefined;
  single: EndpointPool | undefined;
  display: StageDisplay;
  /** The pairwise mode's reference, closed when the run ends. */
  opened: { reference?: ReferenceFile };
}

/**
 * judge: every row of the predictions judged, in the config's mode (rubric grades, turing, pairwise),
 * by one judge or a panel, resumable. Undefined for a dry run.
 */
export async function runJudge(
  c: Checked<JudgeConfig>,
  display: StageDisplay,
  signals: StageSignals = NO_SIGNALS,
): Promise<StageResult | undefined> {
  const { judgeBaseUrl: urls, judgeModel: models, domains, shard, predictions, apiKey } = c;
  const model = models.join(',');
  try {
    await access(predictions);
  } catch {
    throw fail({ kind: 'no-predictions-file', path: predictions });
  }
  const notOurs = await notPredictions(predictions);
  if (notOurs) throw fail(notOurs);
  const upstream = await readManifest(predictions).catch(() => undefined);
  // Counted in the file, not taken from the manifest's counts: after a kill -9 those are the last ones saved (at the start).
  const unwritten = upstream?.stage === 'infer' && !upstream.complete ? upstream.counts.total - (await rowsIn(predictions)) : 0;
  if (upstream && unwritten > 0) {
    // Judging ahead of inference is allowed (the same command judges the rest later), but never silently: its "done" covers only these rows.
    display.event({ type: 'upstream-unfinished', predictions, unwritten, total: upstream.counts.total });
  }
  const output = judgeOutput(c, upstream?.stage === 'infer' ? upstream.settings.shard : undefined);
  // The reference is read while the output is written: an input like the predictions, never written over.
  if (c.reference !== undefined) await refuseOverInputs([output, manifestPathFor(output)], [c.reference]);
  const plan = await planLines([predictions], { domains, shard });
  const makePool = (o: { urls: string[]; apiKey: string; model: string; key: KeySource }) =>
    new EndpointPool({ ...o, ...poolSettings(c), role: 'judge' });
  const members =
    models.length > 1
      ? panelMembers({ models, urls, apiKey, key: c.key, memberUrls: c.memberBaseUrl, memberKeys: c.memberApiKey }, makePool)
      : undefined;
  const single = members ? undefined : makePool({ urls, apiKey, model, key: c.key });
  const pool = members ? new PanelPools(members) : single!;
  const hosts = members ? [...new Set(members.flatMap((m) => m.pool.hosts()))] : single!.hosts();
  const opened: Judging['opened'] = {};
  try {
    const built = await judgeModeStage({ c, plan, output, members, single, display, opened });
    const run = {
      stage: built.stage,
      ...('batches' in built && { batches: built.batches }),
      pool,
      plan,
      output,
      label: c.label ?? upstream?.label,
      settings: judgeSettings(
        c,
        { hosts, model },
        members?.map((m) => ({ hosts: m.pool.hosts(), model: m.name })),
        built.settings,
      ),
      dataset: datasetOf(predictions, upstream),
      upstream,
      config: c,
      secrets: [
        apiKey,
        ...urls.flatMap(urlSecrets),
        ...c.memberApiKey.map((k) => k.value),
        ...c.memberBaseUrl.flatMap((u) => urlSecrets(u.value)),
      ],
      check: endpointCheck('judge', pool, c, display, signals),
    };
    if (c.dryRun) return void (await dryRunStage(run, display));
    const result = await runStageWith(run, display, signals);
    const unpredicted = [...result.perDomain.values()].reduce((a, t) => a + t.empty, 0);
    if (unpredicted) display.event({ type: 'unpredicted', rows: unpredicted, predictions });
    // Only once every row has its result: with rows to redo, the last word is the command that redoes them.
    // A stream (/dev/null, stdout, a FIFO) cannot be read back: no next command to name it.
    if (allDone(endingOf(result)) && !(await isStream(output))) display.event({ type: 'next-step', stage: 'judge', output });
    return result;
  } finally {
    await opened.reference?.close();
  }
}

/** A judged file's data: its predictions, and the dataset they were made from as their manifest records it. */
function datasetOf(predictions: string, upstream: Manifest | undefined) {
  return {
    source: resolve(predictions),
    ...(upstream?.dataset.repo ? { repo: upstream.dataset.repo } : {}),
    ...(upstream?.dataset.revision ? { revision: upstream.dataset.revision } : {}),
    ...(upstream?.dataset.commit ? { commit: upstream.dataset.commit } : {}),
  };
}

/** The stage of the config's mode, and the settings that make its results what they are. */
async function judgeModeStage(j: Judging) {
  const { c } = j;
  if (c.mode === 'rubric') return rubricStage(j);
  const prompt = await loadModePrompt(c.rubrics, c.mode);
  const modeSettings = { mode: c.mode, mode_prompt: { source: prompt.source, sha256: prompt.sha256 } };
  const choosing = {
    pool: j.single!,
    prompt,
    sampling: judgeSampling(c),
    parseAttempts: c.parseAttempts,
    routing: routingOf(c, c.judgeBaseUrl),
  };
  if (c.mode === 'turing') {
    return j.members ? await choicePanel(j, turingMode(choosing), modeSettings) : { stage: turingStage(choosing), settings: modeSettings };
  }
  const reference = await ReferenceFile.open(c.reference!, j.plan.selectedDomains);
  j.opened.reference = reference;
  const sides = await reference.unpaired(c.predictions, j.plan.selectedDomains);
  for (const [side, keys] of [
    ['candidate', sides.candidateOnly],
    ['reference', sides.referenceOnly],
  ] as const) {
    if (keys.length) j.display.event({ type: 'unpaired', side, keys, predictions: c.predictions, reference: c.reference! });
  }
  const settings = { ...modeSettings, reference: { source: resolve(c.reference!), sha256: reference.sha256 } };
  return j.members
    ? await choicePanel(j, pairwiseMode(choosing, reference), settings)
    : { stage: pairwiseStage(choosing, reference), settings };
}

/** The rubric mode: every domain in the data needs a rubric before a single request goes out; the set's hash is a setting. */
async function rubricStage(j: Judging) {
  const { c, plan } = j;
  const rubrics = await loadRubrics(c.rubrics, plan.selectedDomains, (domain) => {
    const line = plan.lines.find((l) => l.domain === domain);
    return line && `${plan.files[line.file]}:${line.lineNo}`;
  });
  const settings = { rubrics: rubricsSetting(rubrics) };
  const sampling = judgeSampling(c);
  const routing = routingOf(c, c.judgeBaseUrl);
  if (j.members) {
    // Read before the run drops the rows it redoes: their members' final judgements are kept (resume per member).
    const earlier = await earlierPanels(j.output, c.retryFailed, panelEntrySchema);
    const judging = { rubrics, sampling, parseAttempts: c.parseAttempts, routing, repeat: c.repeat };
    const members = j.members;
    return panelled(members, (chatOf) => panelStage(members, judging, c.panel ?? 'mean', (key) => earlier.get(key), chatOf), settings);
  }
  return { stage: judgeStage(j.single!, rubrics, sampling, c.parseAttempts, c.repeat, routing), settings };
}

/** A panel's stage, its members asking through their own batches first with --batch. */
function panelled<S>(members: Member[], make: (chatOf: (n: number, key: string) => RowChat) => PanelStage, settings: S) {
  const batches = new PanelBatches(members);
  const stage = make((n, key) => batches.chat(n, key));
  return { stage, settings, batches: (common: BatchCommon, progress: BatchProgress) => batches.open(stage, common, progress) };
}

/** A choice mode judged by the panel: each member in both orders, resumed per member as the rubric panel is. */
async function choicePanel<S>(j: Judging, choice: ChoiceMode, settings: S) {
  const earlier = await earlierPanels(j.output, j.c.retryFailed, choicePanelEntrySchema);
  const members = j.members!;
  return panelled(
    members,
    (chatOf) => choicePanelStage(choice, members, j.c.parseAttempts, j.c.panel ?? 'mean', (key) => earlier.get(key), chatOf),
    settings,
  );
}

/** The rows of a JSONL file: its lines that are not blank. */
async function rowsIn(path: string): Promise<number> {
  let n = 0;
  for await (const line of readLineBytes(path)) if (!isBlank(line.bytes)) n++;
  return n;
}

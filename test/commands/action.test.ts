/*
 * The GitHub Action (action.yml at the root), run as the runner runs a composite action: its inputs with their
 * defaults, each step's `run:` through bash with the GITHUB_* variables, its env's `${{ … }}` expressions, a fresh
 * GITHUB_OUTPUT per step read back into `steps.<id>.outputs`, the job stopping at the first step that fails. `npx
 * agentworldbench@<version>` runs this checkout's build, and only at package.json's version.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runAwb } from '../support/cli.js';
import { judgeReply, makeDataset, tempDirs, worldReply, type Dataset } from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';
import type { FakeServer } from '../support/openai-server.js';
import { expressions, fencedBlocks, githubOutputs, npxShim, parseYaml, runScript } from '../support/workflow.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const temps = tempDirs('action');
const server = useServers();
const JUDGE = 'gpt-5.2-2025-12-11';
const MODEL = 'my-org/wm-finetune';

interface ActionStep {
  id: string;
  shell: string;
  run: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface Action {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

interface ActionRun {
  /** The job's exit code: the failing step's, or 0. */
  code: number | null;
  outputs: Record<string, string>;
  summary: string;
  /** Each step's stdout and stderr (where workflow commands such as `::error::` go, and awb's errors), by id. */
  log: Record<string, string>;
  /** The ids of the steps that ran. */
  ran: string[];
}

let action: Action;
let bin: string;
let data: Dataset;
let world: FakeServer;
let judge: FakeServer;
let baseline: string;

before(async () => {
  action = parseYaml(await readFile(join(ROOT, 'action.yml'), 'utf8')) as Action;
  bin = await npxShim(await temps.make());
  const dir = await temps.make();
  data = await makeDataset(dir, 48, ['terminal', 'swe']);
  world = await server({ reply: worldReply, models: [MODEL], apiKey: 'sk-world' });
  judge = await server({ reply: judgeReply, models: [JUDGE], apiKey: 'sk-judge' });
  // The baseline: the same model judged the same way, from the same data.
  const predictions = join(dir, 'baseline', 'predictions.jsonl');
  baseline = join(dir, 'baseline', 'judged.jsonl');
  const i = await runAwb(inferArgs(world.url, data.dir, predictions, ['--model-api-key', 'sk-world'], MODEL));
  assert.equal(i.code, 0, i.stderr);
  const j = await runAwb(judgeArgs(judge.url, predictions, baseline, ['--judge-api-key', 'sk-judge'], JUDGE));
  assert.equal(j.code, 0, j.stderr);
});
after(() => temps.cleanup());

/** The action run with `inputs` in a fresh workspace, as a job's step `uses: …/agentworldbench@ref` would. */
async function runAction(inputs: Record<string, string>): Promise<ActionRun> {
  for (const name of Object.keys(inputs)) assert.ok(Object.hasOwn(action.inputs, name), `action.yml has no input ${name}`);
  const workspace = await temps.make();
  const runner = await temps.make();
  const summaryFile = join(runner, 'summary.md');
  const context: Record<string, string> = { 'github.action_path': ROOT };
  for (const [name, input] of Object.entries(action.inputs)) context[`inputs.${name}`] = inputs[name] ?? input.default ?? '';
  // A step that did not run (or set nothing) leaves its outputs empty, as on GitHub.
  const text = await readFile(join(ROOT, 'action.yml'), 'utf8');
  for (const m of text.matchAll(/\$\{\{\s*(steps\.[\w-]+\.outputs\.[\w-]+)\s*\}\}/g)) context[m[1]!] ??= '';
  const run: ActionRun = { code: 0, outputs: {}, summary: '', log: {}, ran: [] };
  for (const step of action.runs.steps) {
    const outputFile = join(runner, `output-${step.id}`);
    const env = {
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: ROOT,
      RUNNER_TEMP: runner,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_OUTPUT: outputFile,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expressions(String(v), context)])),
    };
    const cwd = resolve(workspace, expressions(step['working-directory'] ?? '.', context));
    const r = await runScript(step.run, { cwd, env, bin });
    run.ran.push(step.id);
    run.log[step.id] = r.stdout + r.stderr;
    for (const [k, v] of Object.entries(githubOutputs(await readFile(outputFile, 'utf8').catch(() => '')))) {
      context[`steps.${step.id}.outputs.${k}`] = v;
    }
    if (r.code !== 0) {
      run.code = r.code;
      break;
    }
  }
  for (const [name, output] of Object.entries(action.outputs)) run.outputs[name] = expressions(output.value, context);
  run.summary = await readFile(summaryFile, 'utf8').catch(() => '');
  return run;
}

const inferAndJudge = (modelUrl: string): Record<string, string> => ({
  'model-base-url': modelUrl,
  'model-name': MODEL,
  'model-api-key': 'sk-world',
  data: data.dir,
  'judge-base-url': judge.url,
  'judge-api-key': 'sk-judge',
  baseline,
});

/** Overall as `awb score` prints it for a judged file. */
async function overallOf(judged: string): Promise<string> {
  const r = await runAwb(['score', judged, '--format', 'json']);
  return (JSON.parse(r.stdout) as { runs: { overall: { macro: { text: string } } }[] }).runs[0]!.overall.macro.text;
}

describe('action.yml', () => {
  it('is a composite action whose scripts read inputs only through env', () => {
    assert.equal(action.runs.using, 'composite');
    for (const step of action.runs.steps) {
      assert.equal(step.shell, 'bash');
      // An input spliced into a script would run as shell code.
      assert.doesNotMatch(step.run, /\$\{\{/, `step ${step.id}`);
    }
    for (const name of ['overall', 'delta', 'verdict', 'exit-code']) assert.ok(action.outputs[name], `output ${name}`);
  });

  it('is used in the docs with the inputs it has', async () => {
    const uses: Record<string, unknown>[] = [];
    for (const doc of ['README.md', 'docs/ci-gate.md']) {
      for (const block of await fencedBlocks(new URL(doc, `file://${ROOT}`), 'yaml')) {
        const steps = parseYaml(block) as { uses?: string; with?: Record<string, unknown> }[];
        for (const step of steps) if (step.uses?.includes('/agentworldbench@')) uses.push(step.with ?? {});
      }
    }
    assert.ok(uses.length >= 2);
    for (const w of uses) for (const name of Object.keys(w)) assert.ok(Object.hasOwn(action.inputs, name), `no input ${name}`);
  });

  it('infers, judges and passes the gate as the gate passes: outputs set, step summary written', async () => {
    const r = await runAction(inferAndJudge(world.url));
    assert.equal(r.code, 0, JSON.stringify(r.log));
    assert.deepEqual(r.ran, ['setup', 'infer', 'judge', 'gate', 'result']);
    assert.equal(r.outputs.verdict, 'passed');
    assert.equal(r.outputs['exit-code'], '0');
    assert.match(r.outputs.delta!, /^[+-]?0\.00$/);
    assert.equal(r.outputs.overall, await overallOf(baseline));
    assert.match(r.summary, /## awb compare/);
    assert.match(r.summary, /Overall/);
  });

  it('fails the job with the gate’s exit code: 4 for a regression, 5 for an incomplete candidate', async () => {
    const broken = await server({
      reply: () => '<predicted_observation>BROKEN</predicted_observation>',
      models: [MODEL],
      apiKey: 'sk-world',
    });
    const bad = (text: string) => text.includes('BROKEN');
    judge.setOptions({
      reply: (req, ctx) =>
        bad(JSON.stringify(req.messages))
          ? `<final_evaluation>${JSON.stringify({ scores: { format: 1, factuality: 1, consistency: 1, realism: 1, quality: 1 } })}</final_evaluation>`
          : judgeReply(req, ctx),
    });
    const worse = await runAction(inferAndJudge(broken.url));
    assert.equal(worse.code, 4, JSON.stringify(worse.log));
    assert.deepEqual(worse.ran, ['setup', 'infer', 'judge', 'gate', 'result']);
    assert.equal(worse.outputs.verdict, 'regression');
    assert.equal(worse.outputs['exit-code'], '4');
    assert.ok(Number(worse.outputs.delta) < -1, worse.outputs.delta);
    assert.ok(Number(worse.outputs.overall) < Number(await overallOf(baseline)));
    assert.match(worse.summary, /## awb compare/);
    assert.match(worse.log.result!, /::error::agentworldbench: regression \(exit 4\)/);

    const partial = await runAction({ ...inferAndJudge(world.url), 'infer-args': '--limit 10' });
    assert.equal(partial.code, 5, JSON.stringify(partial.log));
    assert.equal(partial.outputs.verdict, 'incomplete');
    assert.equal(partial.outputs['exit-code'], '5');
  });

  it('scores a judged file without a baseline: no gate, the scores in the step summary', async () => {
    const r = await runAction({ judged: baseline });
    assert.equal(r.code, 0, JSON.stringify(r.log));
    assert.equal(r.outputs.verdict, 'scored');
    assert.equal(r.outputs.delta, '');
    assert.equal(r.outputs.overall, await overallOf(baseline));
    assert.match(r.summary, /Overall/);
  });

  it('runs the package at the version asked for, and says what is missing before sending anything', async () => {
    // Another version than this checkout's is not this build: the shim refuses it, as npm would fetch another package.
    const other = await runAction({ judged: baseline, version: '0.0.0-not-this' });
    assert.equal(other.code, 127);
    assert.match(other.log.gate!, /not this package or version: agentworldbench@0\.0\.0-not-this/);
    const before = world.log.length;
    const nothing = await runAction({ baseline });
    assert.equal(nothing.code, 2);
    assert.match(nothing.log.infer!, /::error::agentworldbench: give model-base-url and model-name/);
    assert.equal(world.log.length, before);
  });
});

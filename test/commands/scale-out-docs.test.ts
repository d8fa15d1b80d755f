/*
 * docs/scale-out.md's Kubernetes Indexed Job and GitHub Actions workflow, run as written: the YAML read from the page,
 * each pod's command or job's steps run with the variables the engine sets, against a local hub and local endpoints.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHubServer, type HubServer } from '../support/hub-server.js';
import { jsonl, judgeReply, readRowsOf, synthRows, tempDirs, worldReply } from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';
import { runAwb } from '../support/cli.js';
import {
  expressions,
  fencedBlocks,
  kubernetesRefs,
  npxShim,
  parseYaml,
  runProcess,
  runScript,
  type StepResult,
} from '../support/workflow.js';

const DOC = new URL('../../docs/scale-out.md', import.meta.url);
const temps = tempDirs('scale-out');
const server = useServers();
const ROWS = synthRows(48, ['terminal', 'swe']);
let hub: HubServer;
let bin: string;

before(async () => {
  const files: Record<string, string> = {};
  for (const domain of ['terminal', 'swe']) {
    files[`${domain}_test.jsonl`] = jsonl(ROWS.filter((r) => r.task.endsWith(domain)));
  }
  hub = await startHubServer({ files });
  bin = await npxShim(await temps.make());
});
after(async () => {
  await hub.close();
  await temps.cleanup();
});

const ok = (r: StepResult, what: string) => assert.equal(r.code, 0, `${what}:\n${r.stderr}`);

/** Every row of the dataset exactly once in a predictions or judged file. */
async function coversAll(path: string): Promise<void> {
  const rows = await readRowsOf(path);
  assert.deepEqual(
    rows.map((r) => `${String(r.task)}/${String(r.id)}/${String(r.turn_idx)}`).sort(),
    ROWS.map((r) => `${r.task}/${r.id}/${r.turn_idx}`).sort(),
  );
}

interface Container {
  workingDir: string;
  command: string[];
  env: { name: string; value: string }[];
}
interface IndexedJob {
  kind: string;
  spec: { completionMode: string; completions: number; parallelism: number; template: { spec: { containers: Container[] } } };
}

describe('the Kubernetes Indexed Job of docs/scale-out.md', () => {
  it('runs one shard per pod from JOB_COMPLETION_INDEX, each recorded as kubernetes; the merge command joins them whole', async () => {
    const job = (await fencedBlocks(DOC, 'yaml')).map(parseYaml).find((d) => (d as IndexedJob).kind === 'Job') as IndexedJob;
    assert.ok(job, 'the page has a Job manifest');
    assert.equal(job.spec.completionMode, 'Indexed');
    const [container] = job.spec.template.spec.containers;
    const count = job.spec.completions;
    // --shard-count must agree with the Job's completions: the one thing the engine does not tell the pod.
    assert.equal(container!.command[container!.command.indexOf('--shard-count') + 1], String(count));
    const world = await server({ reply: worldReply, models: ['my-org/wm-finetune'] });
    const volume = await temps.make();
    // The cluster's addresses become the local servers'; everything else is the manifest's.
    const local: Record<string, string> = { MODEL_URL: world.url, AWB_DATA_COMMIT: hub.commit };
    const pods = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const env: Record<string, string> = { HF_ENDPOINT: hub.url };
        for (const e of container!.env) env[e.name] = local[e.name] ?? e.value;
        env.HF_HOME = await temps.make(); // each pod's own emptyDir
        env.JOB_COMPLETION_INDEX = String(i); // set by Kubernetes in an Indexed Job
        const argv = container!.command.map((a) => kubernetesRefs(String(a), env));
        return runProcess(argv, { cwd: volume, env, bin });
      }),
    );
    pods.forEach((p, i) => {
      ok(p, `pod ${i}`);
      assert.match(
        p.stderr,
        new RegExp(`shard ${i + 1}/${count} from the Kubernetes Indexed Job \\(JOB_COMPLETION_INDEX=${i}, --shard-count ${count}\\)`),
      );
    });
    const folder = join(volume, 'results', 'candidate');
    const shards = (await readdir(folder)).filter((f) => f.endsWith('.jsonl')).sort();
    assert.deepEqual(
      shards,
      Array.from({ length: count }, (_, i) => `predictions-shard-${i + 1}-of-${count}.jsonl`),
    );
    for (const [i, f] of shards.entries()) {
      const manifest = JSON.parse(await readFile(join(folder, `${f}.manifest.json`), 'utf8')) as { settings: { shard: unknown } };
      assert.deepEqual(manifest.settings.shard, { index: i + 1, count, engine: 'kubernetes' });
    }
    // The merge, as the page says to run it where the volume is mounted.
    const page = await readFile(DOC, 'utf8');
    const jobAt = page.indexOf('kind: Job');
    const merge = (await fencedBlocks(DOC, 'bash')).find((b) => page.indexOf(b) > jobAt && b.includes(' merge '));
    assert.ok(merge, 'the page says how to merge the pods’ shards');
    ok(await runScript(merge, { cwd: volume, env: { AWB_DATA_COMMIT: hub.commit, HF_ENDPOINT: hub.url }, bin }), 'merge');
    await coversAll(join(folder, 'predictions.jsonl'));
  });
});

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  env?: Record<string, string>;
  strategy?: { matrix: Record<string, unknown[]> };
  steps: Step[];
}
interface Workflow {
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

interface WorkflowRun {
  /** The last job's last step, its step summary and its workspace. */
  last: StepResult;
  summary: string;
  workspace: string;
  /** The artifacts the jobs uploaded. */
  artifacts: string;
}

/**
 * The page's workflow run as GitHub runs it: the matrix job once per entry (each on a fresh runner), artifacts carried
 * between jobs, the repository checked out from `repo`. `rerun`: only the jobs that need others run again, on the
 * artifacts of that earlier run, as "Re-run failed jobs" does (each `awb` is a process: the matrix costs a few).
 */
async function runWorkflow(vars: Record<string, string>, repo: string, rerun?: WorkflowRun): Promise<WorkflowRun> {
  const wf = (await fencedBlocks(DOC, 'yaml')).map(parseYaml).find((d) => (d as Workflow).jobs !== undefined) as Workflow;
  assert.ok(wf, 'the page has a workflow');
  const artifacts = rerun?.artifacts ?? (await temps.make());
  const secrets = { 'secrets.OPENAI_API_KEY': 'sk-test' };
  const base = Object.fromEntries(Object.entries(vars).map(([k, v]) => [`vars.${k}`, v]));
  let ran: Omit<WorkflowRun, 'artifacts'> = { last: { code: null, stdout: '', stderr: '' }, summary: '', workspace: '' };
  for (const [name, job] of Object.entries(wf.jobs)) {
    if (rerun && job.needs === undefined) continue;
    const [key, values] = Object.entries(job.strategy?.matrix ?? {})[0] ?? ['', [undefined]];
    // A matrix's jobs run side by side, each on a fresh runner.
    const runs = await Promise.all(
      values.map(async (value, index) => {
        const context: Record<string, string> = {
          ...base,
          ...secrets,
          'strategy.job-index': String(index),
          'strategy.job-total': String(values.length),
          ...(key ? { [`matrix.${key}`]: String(value) } : {}),
        };
        const workspace = await temps.make();
        const runner = await temps.make();
        const summaryFile = join(runner, 'summary.md');
        const envOf = (e: Record<string, string> | undefined) =>
          Object.fromEntries(Object.entries(e ?? {}).map(([k, v]) => [k, expressions(String(v), context)]));
        const jobEnv = {
          GITHUB_ACTIONS: 'true',
          CI: 'true',
          GITHUB_STEP_SUMMARY: summaryFile,
          GITHUB_OUTPUT: join(runner, 'output'),
          HF_ENDPOINT: hub.url,
          HF_HOME: join(runner, 'hf'),
          ...envOf(wf.env),
          ...envOf(job.env),
        };
        let last: StepResult = { code: 0, stdout: '', stderr: '' };
        for (const step of job.steps) {
          const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expressions(String(v), context)]));
          if (step.uses?.startsWith('actions/checkout@')) await cp(repo, workspace, { recursive: true });
          else if (step.uses?.startsWith('actions/upload-artifact@'))
            await cp(join(workspace, w.path!), join(artifacts, w.name!), { recursive: true });
          else if (step.uses?.startsWith('actions/download-artifact@')) {
            assert.equal(w['merge-multiple'], 'true');
            const pattern = new RegExp(`^${w.pattern!.replace(/\*/g, '.*')}$`);
            await mkdir(join(workspace, w.path!), { recursive: true });
            for (const a of (await readdir(artifacts)).filter((n) => pattern.test(n))) {
              await cp(join(artifacts, a), join(workspace, w.path!), { recursive: true });
            }
          } else if (step.run !== undefined) {
            last = await runScript(expressions(step.run, context), { cwd: workspace, env: { ...jobEnv, ...envOf(step.env) }, bin });
            if (last.code !== 0) break; // the job fails at this step
          } else assert.fail(`a step the test cannot run: ${JSON.stringify(step)}`);
        }
        return { last, summary: await readFile(summaryFile, 'utf8').catch(() => ''), workspace };
      }),
    );
    if (job.needs === undefined) runs.forEach((r, i) => ok(r.last, `job ${name} #${i}`));
    ran = runs.at(-1)!;
  }
  return { ...ran, artifacts };
}

describe('the GitHub Actions workflow of docs/scale-out.md', () => {
  it('shards by the matrix, merges, judges, scores and gates: it passes as the gate passes and fails with the gate’s code', async () => {
    const judge = await server({ models: ['gpt-5.2-2025-12-11'], reply: judgeReply });
    // What a regressed model's predictions get: the lowest grade on every dimension.
    const lowest = `<final_evaluation>${JSON.stringify({ scores: { format: 1, factuality: 1, consistency: 1, realism: 1, quality: 1 } })}</final_evaluation>`;
    const harsh = await server({ models: ['gpt-5.2-2025-12-11'], reply: () => lowest });
    const good = await server({ reply: worldReply, models: ['my-org/wm-finetune'] });
    const repo = await temps.make();
    const vars = { AWB_DATA_COMMIT: hub.commit, JUDGE_URL: judge.url };

    // The baseline in the repository: the good model judged the same way, from the same data.
    const data = join(repo, 'data');
    ok(
      await runProcess(['npx', 'agentworldbench', 'download', '--dir', data, '--revision', hub.commit], {
        cwd: repo,
        env: { HF_ENDPOINT: hub.url },
        bin,
      }),
      'download',
    );
    const predictions = join(repo, 'baseline', 'predictions.jsonl');
    ok(await runAwb(inferArgs(good.url, data, predictions, [], 'my-org/wm-finetune')), 'baseline infer');
    ok(await runAwb(judgeArgs(judge.url, predictions, join(repo, 'baseline', 'judged.jsonl'), [], 'gpt-5.2-2025-12-11')), 'baseline judge');
    await rm(data, { recursive: true });

    const same = await runWorkflow({ ...vars, MODEL_URL: good.url }, repo);
    assert.equal(same.last.code, 0, same.last.stderr);
    const judged = join(same.workspace, 'results', 'candidate');
    await coversAll(join(judged, 'predictions.jsonl'));
    await coversAll(join(judged, 'judged.jsonl'));
    assert.match(same.summary, /## awb compare/);
    assert.match(same.summary, /Overall/);

    // The gate job again on the same shards, its judge grading them all lowest: the job fails with the regression's code.
    const worse = await runWorkflow({ ...vars, MODEL_URL: good.url, JUDGE_URL: harsh.url }, repo, same);
    assert.equal(worse.last.code, 4, worse.last.stderr);
    assert.ok(harsh.stats.successes > 0, 'the rerun judged with its own judge');
    assert.match(worse.summary, /## awb compare/);
  });
});

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  INFER_PLACES,
  JUDGE_PLACES,
  inferConfig,
  judgeConfig,
  runInfer,
  runJudge,
  type DisplayEvent,
  type InferConfig,
  type JudgeConfig,
} from '../../../src/core/stage/index.js';
import { inferSettings, judgeSettings, poolSettings } from '../../../src/core/stage/settings.js';
import { manifestPathFor } from '../../../src/core/schemas/index.js';
import { isFault } from '../../support/fault-kind.js';
import { KEY, RUN } from '../../support/stage-config.js';
import { startOpenAIServer, type FakeServer } from '../../support/openai-server.js';
import { tempDirs } from '../../support/dataset.js';

/*
 * A stage's config, built and used without the CLI: the rules between options are faults of their
 * own kind, the manifest's settings come from where each config field is placed, and runInfer
 * tells its display typed events.
 */

const infer = (o: Partial<InferConfig> = {}): InferConfig => ({
  ...RUN,
  ...KEY,
  modelBaseUrl: ['http://127.0.0.1:1/v1'],
  modelName: 'wm',
  data: undefined,
  source: 'huggingface',
  revision: undefined,
  output: undefined,
  limit: undefined,
  topP: undefined,
  history: 'full',
  horizon: undefined,
  ...o,
});

const judge = (o: Partial<JudgeConfig> = {}): JudgeConfig => ({
  ...RUN,
  ...KEY,
  predictions: 'p.jsonl',
  judgeBaseUrl: ['http://127.0.0.1:1/v1'],
  judgeModel: ['j'],
  memberBaseUrl: [],
  memberApiKey: [],
  panel: undefined,
  rubrics: undefined,
  output: undefined,
  mode: 'rubric',
  reference: undefined,
  repeat: undefined,
  parseAttempts: 3,
  ...o,
});

describe('the rules between options, checked where the config is built', () => {
  it('infer: an option choosing the download goes without --data', () => {
    assert.throws(() => inferConfig(infer({ data: 'd', revision: 'v1' })), isFault('download-option-with-data', { option: 'revision' }));
    assert.throws(
      () => inferConfig(infer({ data: 'd', source: 'modelscope' })),
      isFault('download-option-with-data', { option: 'source' }),
    );
    assert.equal(inferConfig(infer({ data: 'd' })).data, 'd');
    assert.equal(inferConfig(infer({ revision: 'v1', source: 'modelscope' })).revision, 'v1');
  });

  it('infer: a horizon needs the history, and goes with the Batch API', () => {
    assert.throws(() => inferConfig(infer({ horizon: 2, history: 'none' })), isFault('horizon-without-history'));
    assert.equal(inferConfig(infer({ horizon: 'all', batch: true })).batch, true);
    assert.equal(inferConfig(infer({ horizon: 'all' })).horizon, 'all');
    assert.equal(inferConfig(infer({ history: 'none', batch: true })).horizon, undefined);
  });

  it("judge: a mode's options go with that mode", () => {
    assert.throws(
      () => judgeConfig(judge({ reference: 'r.jsonl' })),
      isFault('option-outside-mode', { option: 'reference', mode: 'pairwise' }),
    );
    assert.throws(() => judgeConfig(judge({ mode: 'pairwise' })), isFault('pairwise-without-reference'));
    assert.throws(
      () => judgeConfig(judge({ mode: 'turing', repeat: 2 })),
      isFault('option-outside-mode', { option: 'repeat', mode: 'rubric' }),
    );
    assert.equal(judgeConfig(judge({ mode: 'pairwise', reference: 'r.jsonl' })).mode, 'pairwise');
    assert.equal(judgeConfig(judge({ repeat: 2 })).repeat, 2);
  });

  it('judge: --seed with --repeat K would ask the same K times; with one judgement, or without a seed, it goes', () => {
    assert.throws(() => judgeConfig(judge({ repeat: 3, seed: 1 })), isFault('seed-with-repeat'));
    assert.equal(judgeConfig(judge({ repeat: 1, seed: 1 })).seed, 1);
    assert.equal(judgeConfig(judge({ seed: 1 })).seed, 1);
  });

  it("judge: a panel's options need a panel, name its members, and every member needs an endpoint", () => {
    const member = [{ member: 'a', value: 'http://127.0.0.1:2/v1' }];
    assert.throws(() => judgeConfig(judge({ memberBaseUrl: member })), isFault('panel-option-without-panel', { option: 'memberBaseUrl' }));
    assert.throws(() => judgeConfig(judge({ memberApiKey: member })), isFault('panel-option-without-panel', { option: 'memberApiKey' }));
    assert.throws(() => judgeConfig(judge({ panel: 'median' })), isFault('panel-option-without-panel', { option: 'panel' }));
    assert.throws(() => judgeConfig(judge({ judgeBaseUrl: [] })), isFault('judge-endpoint-missing', { unserved: [] }));
    const panel = { judgeModel: ['a', 'b'], judgeBaseUrl: [] };
    assert.throws(
      () => judgeConfig(judge({ ...panel, memberBaseUrl: [{ member: 'c', value: 'http://x/v1' }] })),
      isFault('not-a-panel-member', { member: 'c', models: ['a', 'b'] }),
    );
    assert.throws(() => judgeConfig(judge({ ...panel, memberBaseUrl: member })), isFault('judge-endpoint-missing', { unserved: ['b'] }));
    assert.deepEqual(judgeConfig(judge({ ...panel, judgeBaseUrl: ['http://x/v1'], panel: 'median' })).judgeModel, ['a', 'b']);
  });

  it('--max-cost: the prices and a token limit bound each request; a batch cannot be held back', () => {
    assert.throws(() => inferConfig(infer({ maxCost: 5 })), isFault('max-cost-unpriced', { missing: ['priceInput', 'priceOutput'] }));
    assert.throws(
      () => judgeConfig(judge({ maxCost: 5, priceInput: 1, maxTokens: undefined })),
      isFault('max-cost-unpriced', { missing: ['priceOutput', 'maxTokens'] }),
    );
    const priced = { maxCost: 5, priceInput: 1, priceOutput: 4 };
    assert.throws(() => inferConfig(infer({ ...priced, batch: true })), isFault('max-cost-with-batch'));
    assert.equal(judgeConfig(judge(priced)).maxCost, 5);
  });

  it('--max-cost and its prices are not settings: outputs made under any cap resume and compare alike', () => {
    const capped = infer({ maxCost: 5, priceInput: 1, priceOutput: 4 });
    assert.deepEqual(inferSettings(capped, { hosts: [], model: 'wm' }), inferSettings(infer(), { hosts: [], model: 'wm' }));
  });
});

describe("the manifest's settings, derived from the config", () => {
  it('infer: the world model, its sampling, then the settings given, in that order', () => {
    const s = inferSettings(infer({ topP: 0.9, limit: 2, shard: { index: 1, count: 2 }, extraBody: { seed: 1 } }), {
      hosts: ['h:1'],
      model: 'wm',
    });
    assert.deepEqual(Object.keys(s), ['world_model', 'sampling', 'history', 'limit', 'shard']);
    assert.deepEqual(s.sampling, { temperature: 0.6, max_tokens: 100, extra_body: { seed: 1 }, top_p: 0.9 });
    assert.equal(s.history, 'full');
    assert.deepEqual(inferSettings(infer(), { hosts: [], model: 'wm' }).sampling, { temperature: 0.6, max_tokens: 100 });
    // A horizon is a setting after the history; none (teacher-forced) records nothing, as before it existed.
    const h = inferSettings(infer({ horizon: 4, limit: 2 }), { hosts: [], model: 'wm' });
    assert.deepEqual(Object.keys(h), ['world_model', 'sampling', 'history', 'horizon', 'limit']);
    assert.equal(h.horizon, 4);
    assert.equal('horizon' in inferSettings(infer(), { hosts: [], model: 'wm' }), false);
  });

  it('a seed is sampling: sent with every request and recorded, only when given', () => {
    const s = inferSettings(infer({ seed: 0 }), { hosts: [], model: 'wm' });
    assert.deepEqual(s.sampling, { temperature: 0.6, seed: 0, max_tokens: 100 });
    const j = judgeSettings(judge({ seed: 5 }), { hosts: ['h'], model: 'j' }, undefined, {});
    assert.deepEqual(j.judge_sampling, { temperature: 0.6, seed: 5, max_tokens: 100 });
    assert.equal('seed' in judgeSettings(judge(), { hosts: ['h'], model: 'j' }, undefined, {}).judge_sampling!, false);
  });

  it('judge: the judge and its panel, its sampling, what its mode judges with, then the settings given', () => {
    const c = judge({ judgeModel: ['a', 'b'], repeat: 3, domains: ['mcp'], panel: 'median' });
    const s = judgeSettings(c, { hosts: ['h'], model: 'a,b' }, [{ hosts: ['h'], model: 'a' }], { rubrics: { source: 'r', sha256: 'x' } });
    assert.deepEqual(Object.keys(s), ['judge', 'panel', 'judge_sampling', 'rubrics', 'repeat', 'parse_attempts', 'domains']);
    assert.equal(s.panel?.rule, 'median');
    assert.deepEqual(s.judge_sampling, { temperature: 0.6, max_tokens: 100 });
  });

  it('every field of a config has its place, and every place is a field', () => {
    assert.deepEqual(Object.keys(INFER_PLACES).sort(), Object.keys(infer()).sort());
    assert.deepEqual(Object.keys(JUDGE_PLACES).sort(), Object.keys(judge()).sort());
  });

  it('the pool sends what the config says, in the units its fields name', () => {
    const p = poolSettings({ ...RUN, stream: true, pace: false });
    assert.equal(p.maxReplyBytes, 16 * 2 ** 20);
    assert.equal(p.idleMs, 60_000);
    assert.equal(p.pacing, undefined);
    assert.deepEqual(p.sent, { maxTokens: 100 });
  });
});

describe('runInfer and runJudge, told to a display', () => {
  const data = fileURLToPath(new URL('../../../fixtures/data', import.meta.url));
  const temps = tempDirs('stage-config');
  let server: FakeServer;
  before(async () => {
    server = await startOpenAIServer({ models: ['wm'], reply: () => 'an observation' });
  });
  after(async () => {
    await server.close();
    await temps.cleanup();
  });

  it('a run tells its plan, each row, its end and the next step, and writes the settings its config derives', async () => {
    const output = join(await temps.make(), 'p.jsonl');
    const events: DisplayEvent[] = [];
    const config = inferConfig(infer({ modelBaseUrl: [server.url], data, output, limit: 1, domains: ['mcp'] }));
    const result = await runInfer(config, { event: (e) => events.push(e) });
    assert.equal(result?.remaining, 0);
    const types = events.map((e) => e.type);
    assert.deepEqual(types.slice(0, 2), ['running', 'planned']);
    assert.deepEqual(types.slice(-3), ['finished', 'closed', 'next-step']);
    const rows = types.filter((t) => t === 'row').length;
    assert.ok(rows >= 1);
    const finished = events.find((e) => e.type === 'finished');
    assert.deepEqual(finished?.type === 'finished' && finished.ending, { stopped: false, remaining: 0, failed: 0 });
    const manifest = JSON.parse(await readFile(manifestPathFor(output), 'utf8')) as { settings: Record<string, unknown> };
    assert.deepEqual(manifest.settings.sampling, { temperature: 0.6, max_tokens: 100 });
    assert.deepEqual(manifest.settings.domains, ['mcp']);
    assert.equal(manifest.settings.limit, 1);
  });

  it('a dry run tells its count and writes nothing', async () => {
    const output = join(await temps.make(), 'p.jsonl');
    const events: DisplayEvent[] = [];
    const config = inferConfig(infer({ modelBaseUrl: [server.url], data, output, domains: ['mcp'], dryRun: true }));
    assert.equal(await runInfer(config, { event: (e) => events.push(e) }), undefined);
    assert.deepEqual(
      events.map((e) => e.type),
      ['dry-run'],
    );
    await assert.rejects(readFile(output), { code: 'ENOENT' });
  });

  it('judge: predictions that are not there are a fault of their own, before any endpoint is asked', async () => {
    const predictions = join(await temps.make(), 'none.jsonl');
    await assert.rejects(
      runJudge(judgeConfig(judge({ predictions })), { event: () => assert.fail('nothing to tell') }),
      isFault('no-predictions-file', { path: predictions }),
    );
  });
});

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { keptKeyNote, modelKeyVariables } from '../../../src/commands/stage/model-key.js';
import { isOpenAIEndpoint } from '../../../src/core/stage/index.js';
import { runAwb } from '../../support/cli.js';
import { makeDataset, tempDirs } from '../../support/dataset.js';
import { inferArgs } from '../../support/harness.js';
import { json, models, rawServer } from '../../support/raw-server.js';

const temps = tempDirs('model-key');
after(() => temps.cleanup());

describe('which hosts OPENAI_API_KEY goes to as the world model key', () => {
  it('only https://api.openai.com is OpenAI’s endpoint', () => {
    assert.equal(isOpenAIEndpoint('https://api.openai.com/v1'), true);
    assert.equal(isOpenAIEndpoint('https://API.OpenAI.com/v1/'), true);
    for (const url of [
      'http://api.openai.com/v1',
      'https://api.openai.com.evil.example/v1',
      'https://evil.example/api.openai.com/v1',
      'https://user@evil.example/v1',
      'http://127.0.0.1:8000/v1',
      'not a url',
    ])
      assert.equal(isOpenAIEndpoint(url), false, url);
  });

  it('reads OPENAI_API_KEY only when every endpoint is OpenAI’s', () => {
    assert.deepEqual(modelKeyVariables(['https://api.openai.com/v1']), ['AWB_MODEL_API_KEY', 'OPENAI_API_KEY']);
    assert.deepEqual(modelKeyVariables(['https://api.openai.com/v1', 'http://10.0.0.2:8000/v1']), ['AWB_MODEL_API_KEY']);
    assert.deepEqual(modelKeyVariables(['http://localhost:8000/v1']), ['AWB_MODEL_API_KEY']);
  });

  it('says once that the key was kept, only when it was set and no key was named for the world model', () => {
    const third = ['http://10.0.0.2:8000/v1'];
    const note = keptKeyNote(third, undefined, { OPENAI_API_KEY: 'sk-judge' });
    assert.equal(
      note,
      'infer: OPENAI_API_KEY is not sent to 10.0.0.2:8000 (not api.openai.com); to send a key to that host, pass --model-api-key KEY or set AWB_MODEL_API_KEY',
    );
    assert.ok(!note.includes('sk-judge'));
    assert.equal(keptKeyNote(third, 'sk-model', { OPENAI_API_KEY: 'sk-judge' }), undefined);
    assert.equal(keptKeyNote(third, undefined, { OPENAI_API_KEY: 'sk-judge', AWB_MODEL_API_KEY: 'sk-model' }), undefined);
    assert.equal(keptKeyNote(third, undefined, { OPENAI_API_KEY: ' ' }), undefined);
    assert.equal(keptKeyNote(['https://api.openai.com/v1'], undefined, { OPENAI_API_KEY: 'sk-judge' }), undefined);
  });
});

describe('infer against a world model that is not OpenAI’s', () => {
  /** A world model on 127.0.0.1 that records the Authorization header of every request. */
  async function recording() {
    const auth: (string | undefined)[] = [];
    const server = await rawServer((req, res) => {
      auth.push(req.headers.authorization);
      req.resume();
      if (req.url?.endsWith('/models')) return models(res);
      req.on('end', () =>
        json(res, 200, {
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: 'test-model',
          choices: [{ index: 0, message: { role: 'assistant', content: 'an observation' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
        }),
      );
    });
    return { ...server, auth };
  }

  it('never receives OPENAI_API_KEY, and the run says so once', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const world = await recording();
    const r = await runAwb(inferArgs(world.url, ds.dir, join(dir, 'p.jsonl')), {
      env: { OPENAI_API_KEY: 'sk-judge-only', AWB_MODEL_API_KEY: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(world.auth.length > 3, 'the models check and every row were asked');
    assert.ok(
      world.auth.every((a) => !a?.includes('sk-judge-only')),
      String(world.auth),
    );
    assert.equal(r.stderr.match(/OPENAI_API_KEY is not sent to 127\.0\.0\.1:\d+/g)?.length, 1, r.stderr);
    assert.ok(!r.stderr.includes('sk-judge-only'));
  });

  it('receives the key the user names for it: AWB_MODEL_API_KEY, or --model-api-key', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 2);
    const world = await recording();
    const byVariable = await runAwb(inferArgs(world.url, ds.dir, join(dir, 'a.jsonl')), {
      env: { OPENAI_API_KEY: 'sk-judge-only', AWB_MODEL_API_KEY: 'sk-model' },
    });
    assert.equal(byVariable.code, 0, byVariable.stderr);
    assert.doesNotMatch(byVariable.stderr, /is not sent to/);
    const byOption = await runAwb(inferArgs(world.url, ds.dir, join(dir, 'b.jsonl'), ['--model-api-key', 'sk-flag']), {
      env: { OPENAI_API_KEY: 'sk-judge-only' },
    });
    assert.equal(byOption.code, 0, byOption.stderr);
    assert.ok(world.auth.length > 0);
    assert.ok(
      world.auth.every((a) => a === 'Bearer sk-model' || a === 'Bearer sk-flag'),
      String(world.auth),
    );
    assert.ok(world.auth.includes('Bearer sk-model') && world.auth.includes('Bearer sk-flag'));
  });
});

/*
 * --seed, infer's and judge's: sent as the request's `seed` (OpenAI's field, which vLLM, llama.cpp and
 * transformers serve take), recorded in the manifest's sampling, so a resume with another seed, or
 * none, is refused like any other changed setting, and one with the same seed goes on.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import {
  dropLastLines,
  errorLines,
  judgeReply,
  makeDataset,
  readRowsOf,
  tempDirs,
  worldReply,
  writePredictions,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { startTransformersServer } from '../../support/transformers-server.js';
import { answering, startBatchServer, type BatchLine } from '../../support/batch-server.js';
import { manifestPathFor } from '../../../src/core/schemas/index.js';

const temps = tempDirs('seed');
after(() => temps.cleanup());
const server = useServers();

type Sampling = Record<string, unknown>;
const manifestOf = async (out: string) =>
  JSON.parse(await readFile(manifestPathFor(out), 'utf8')) as { settings: { sampling?: Sampling; judge_sampling?: Sampling } };

describe('--seed', { concurrency: 2 }, () => {
  it('infer: every request carries it, the manifest records it; a resume with another seed or none is refused, the same goes on', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 10);
    const s = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    const base = inferArgs(s.url, ds.dir, out, ['-c', '2']);
    const first = await runAwb([...base, '--seed', '7']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(s.log.length, 10);
    assert.deepEqual(new Set(s.log.map((e) => e.request?.seed)), new Set([7]));
    assert.equal((await manifestOf(out)).settings.sampling?.seed, 7);

    await dropLastLines(out, 3);
    const sent = s.log.length;
    for (const other of [['--seed', '8'], []]) {
      const r = await runAwb([...base, ...other]);
      assert.equal(r.code, 2, r.stderr);
      const lines = errorLines(r.stderr);
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /other settings/);
      assert.match(lines[0]!, /sampling: was .*"seed":7.*, now /);
    }
    assert.equal(s.log.length, sent, 'a refused resume sent requests');

    const same = await runAwb([...base, '--seed', '7']);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(s.log.length, sent + 3);
    assert.deepEqual(new Set(s.log.slice(sent).map((e) => e.request?.seed)), new Set([7]));
    assert.equal((await readRowsOf(out)).length, 10);
  });

  it('infer: without it, no request carries a seed and the manifest records none', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const s = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(s.url, ds.dir, out))).code, 0);
    assert.ok(s.log.every((e) => e.request !== undefined && !('seed' in e.request)));
    assert.equal('seed' in (await manifestOf(out)).settings.sampling!, false);
  });

  it('judge: its own seed goes to the judge and into judge_sampling; with --repeat it is refused before anything is sent', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const s = await server({ reply: judgeReply });
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(s.url, preds, out, ['--seed', '3']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.log.length, 4);
    assert.deepEqual(new Set(s.log.map((e) => e.request?.seed)), new Set([3]));
    assert.equal((await manifestOf(out)).settings.judge_sampling?.seed, 3);

    const repeated = await runAwb(judgeArgs(s.url, preds, join(dir, 'repeated.jsonl'), ['--seed', '3', '--repeat', '2']));
    assert.equal(repeated.code, 2, repeated.stderr);
    const lines = errorLines(repeated.stderr);
    assert.equal(lines.length, 1, repeated.stderr);
    assert.match(lines[0]!, /--seed .*--repeat/);
    assert.equal(s.log.length, 4, 'the refused run sent requests');
  });

  it('judge --batch: every line of the batch file carries it', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const s = await startBatchServer({ reply: answering(judgeReply) });
    try {
      const r = await runAwb(judgeArgs(s.url, preds, join(dir, 'judged.jsonl'), ['--batch', '--batch-poll', '0.01', '--seed', '9']));
      assert.equal(r.code, 0, r.stderr);
      const lines = [...s.files.values()]
        .filter((f) => f.purpose === 'batch')
        .flatMap((f) => f.content.trim().split('\n'))
        .map((l) => JSON.parse(l) as BatchLine);
      assert.equal(lines.length, 4);
      assert.ok(lines.every((l) => l.body.seed === 9));
    } finally {
      await s.close();
    }
  });

  it('a seed that is no whole number from 0 is refused as a usage mistake', async () => {
    for (const bad of ['-1', '1.5', 'x']) {
      const r = await runAwb(inferArgs('http://127.0.0.1:9/v1', 'nowhere', 'out.jsonl', ['--seed', bad]));
      assert.equal(r.code, 2, r.stderr);
      assert.match(errorLines(r.stderr)[0] ?? '', /--seed/);
    }
  });

  it('transformers serve, whose request schema refuses fields it does not know, takes it', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const model = 'Qwen/Qwen2.5-0.5B-Instruct';
    const s = await startTransformersServer({ pinned: model, cached: [model], reply: worldReply, unusedFields: 'refuse' });
    try {
      const out = join(dir, 'pred.jsonl');
      const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--seed', '11', '--extra-body', '{"max_completion_tokens":null}'], model));
      assert.equal(r.code, 0, r.stderr);
      const chats = s.chats.filter((c) => c.body?.messages !== undefined);
      assert.ok(chats.length >= 3);
      assert.ok(chats.every((c) => c.status === 200 && c.body?.seed === 11));
    } finally {
      await s.close();
    }
  });
});

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { runAwb } from './support/cli.js';
import { judgeReply, makeDataset, readRowsOf, tempDirs, worldReply } from './support/dataset.js';
import { inferArgs, judgeArgs, useServers } from './support/harness.js';
import { messageText, type ChatRequest, type ReplyFn } from './support/openai-server.js';

/* --dry-run: nothing sent, nothing written, and the prompt tokens within 25% of what the endpoint counts. */

const serve = useServers();
const dirs = tempDirs('dry-run');
after(() => dirs.cleanup());

/** The server's own count: every message through o200k, as an OpenAI endpoint counts, with its ChatML overhead. */
function counted(reply: ReplyFn): ReplyFn {
  return async (req: ChatRequest, ctx) => {
    const r = await reply(req, ctx);
    // Each message costs its text plus the template's role and separators (<|im_start|>role\n … <|im_end|>\n: 4 tokens).
    const prompt = req.messages.reduce((n, m) => n + countTokens(messageText(m)) + 4, 0) + 3;
    return { content: typeof r === 'string' ? r : r.content, usage: { prompt_tokens: prompt, completion_tokens: 10 } };
  };
}

const promptTokens = (rows: Record<string, unknown>[], field: string) =>
  rows.reduce((n, r) => n + ((r[field] as { prompt_tokens?: number } | undefined)?.prompt_tokens ?? 0), 0);

test('infer and judge --dry-run send nothing, write nothing, and estimate prompt tokens within 25%', async () => {
  const dir = await dirs.make();
  const data = await makeDataset(dir, 14);
  const world = await serve({ reply: counted(worldReply) });
  const judge = await serve({ reply: counted(judgeReply) });
  const pred = join(dir, 'pred.jsonl');
  const before = await readdir(dir);

  const dry = await runAwb(
    inferArgs(world.url, data.dir, pred, [
      '--dry-run',
      '--format',
      'json',
      '--max-tokens',
      '100',
      '--price-input',
      '2',
      '--price-output',
      '8',
    ]),
  );
  assert.equal(dry.code, 0, dry.stderr);
  const doc = JSON.parse(dry.stdout) as Record<string, number>;
  assert.equal(doc.requests, 14);
  assert.equal(doc.completion_budget_tokens, 1400);
  assert.equal(doc.cost_usd, Math.round(((doc.prompt_tokens! * 2 + 1400 * 8) / 1e6) * 100) / 100);
  assert.equal(world.stats.requests + world.stats.modelListRequests, 0, 'nothing sent, not even the models check');
  assert.deepEqual(await readdir(dir), before, 'nothing written');

  const real = await runAwb(inferArgs(world.url, data.dir, pred, ['--max-tokens', '100']));
  assert.equal(real.code, 0, real.stderr);
  const actual = promptTokens(await readRowsOf(pred), 'usage');
  assert.ok(Math.abs(doc.prompt_tokens! - actual) / actual < 0.25, `estimate ${doc.prompt_tokens} vs counted ${actual}`);

  const judged = join(dir, 'judged.jsonl');
  const jdry = await runAwb(judgeArgs(judge.url, pred, judged, ['--dry-run', '--price-input', '1']));
  assert.equal(jdry.code, 0, jdry.stderr);
  assert.equal(jdry.stdout, '');
  const estimate = Number(/prompt tokens \(estimate, o200k\): ([\d,]+)/.exec(jdry.stderr)![1]!.replaceAll(',', ''));
  assert.match(jdry.stderr, /judge dry run: 14 requests for 14 rows/);
  assert.match(jdry.stderr, /cost: \$\d+\.\d\d at most/);
  assert.equal(judge.stats.requests + judge.stats.modelListRequests, 0);
  assert.ok(!(await readdir(dir)).includes('judged.jsonl'));
  const jreal = await runAwb(judgeArgs(judge.url, pred, judged));
  assert.equal(jreal.code, 0, jreal.stderr);
  const jactual = promptTokens(await readRowsOf(judged), 'judge_usage');
  assert.ok(Math.abs(estimate - jactual) / jactual < 0.25, `judge estimate ${estimate} vs counted ${jactual}`);
});

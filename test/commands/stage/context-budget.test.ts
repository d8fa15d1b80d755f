/*
 * A completion budget that, with the prompt, overflows the model's context: vLLM and SGLang refuse the request (400) before
 * generating, in their own words. When the budget is what overflows (every row refused for it), the run stops early on the
 * settings, naming the context and a --max-tokens that fits; a prompt over the context alone is its row's, and the run goes on.
 * The stand-ins check as their sources do (vLLM's renderers/params.py and serving_engine.py, SGLang's tokenizer_manager.py,
 * _validate_one_request) and answer with their bodies; a prompt's tokens are its characters / 4.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { makeDataset, readRowsOf, synthRows, tempDirs, writeDataset, writePredictions } from '../../support/dataset.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { json, models, rawServer } from '../../support/raw-server.js';
import { refusalLine } from '../../support/refusal.js';

const dirs = tempDirs('context-budget');
after(() => dirs.cleanup());

interface Asked {
  messages: Array<{ content?: unknown }>;
  max_tokens?: number;
  max_completion_tokens?: number;
}

/** The prompt's tokens as the stand-ins count them: its characters / 4, rounded up. */
const promptTokens = (b: Asked) =>
  Math.ceil(b.messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0) / 4);

const completion = (content: string) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'test-model',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

/**
 * A server with a context of `context` tokens: `refuse` gives the refusal (status and body) of a request over it, or
 * undefined; `chats` counts the chat requests.
 */
async function contextServer(context: number, refuse: (prompt: number, budget: number) => unknown) {
  let chats = 0;
  const { url } = await rawServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.endsWith('/models')) {
      req.resume();
      return models(res);
    }
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      chats++;
      const asked = JSON.parse(Buffer.concat(parts).toString('utf8')) as Asked;
      const budget = asked.max_completion_tokens ?? asked.max_tokens ?? 0;
      const refusal = refuse(promptTokens(asked), budget);
      if (refusal) return json(res, 400, refusal);
      json(res, 200, completion('<predicted_observation>ok</predicted_observation>'));
    });
  });
  return { url, chats: () => chats, context };
}

/**
 * vLLM's API server (renderers/params.py): the prompt is tokenized up to the room the budget leaves plus one, so a
 * prompt over it is "at least" that; ErrorResponse `{error: {message, type, param, code}}`, 400.
 */
function vllm(context: number) {
  return contextServer(context, (prompt, budget) => {
    const room = context - budget;
    if (prompt <= room) return undefined;
    const counted = Math.min(prompt, Math.max(room, 0) + 1);
    const atLeast = counted < prompt ? 'at least ' : '';
    return {
      error: {
        message: `This model's maximum context length is ${context} tokens. However, you requested ${budget} output tokens and your prompt contains ${atLeast}${counted} input tokens, for a total of ${atLeast}${counted + budget} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
        type: 'BadRequestError',
        param: 'input_tokens',
        code: 400,
      },
    };
  });
}

/** SGLang (tokenizer_manager.py): the input alone first, then the input and the budget; its ErrorResponse at the top level, 400. */
function sglang(context: number) {
  return contextServer(context, (prompt, budget) => {
    const body = (message: string) => ({ object: 'error', message, type: 'BadRequestError', param: null, code: 400 });
    if (prompt >= context) return body(`The input (${prompt} tokens) is longer than the model's context length (${context} tokens).`);
    if (prompt + budget < context) return undefined;
    return body(
      `Requested token count exceeds the model's maximum context length of ${context} tokens. You requested a total of ${prompt + budget} tokens: ${prompt} tokens from the input messages and ${budget} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`,
    );
  });
}

describe('a completion budget over the model context', () => {
  for (const [name, serve] of [
    ['vLLM', vllm],
    ['SGLang', sglang],
  ] as const) {
    it(`${name}: the default --max-tokens against a 32768-token context stops the run early on the setting, exit 3`, async () => {
      const dir = await dirs.make();
      const ds = await makeDataset(dir, 40, ['mcp']);
      const s = await serve(32768);
      const out = join(dir, 'p.jsonl');
      const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '2', '--max-retries', '1']));
      const line = refusalLine(r, 3);
      assert.match(line, /the server's context is 32768 tokens; --max-tokens 32768 leaves no room for a prompt: try --max-tokens 16384/);
      assert.ok(s.chats() < ds.rows.length, `${s.chats()} requests for ${ds.rows.length} rows`);
      // The same command with the advice runs through.
      const again = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '2', '--max-tokens', '16384']));
      assert.equal(again.code, 0, again.stderr);
      assert.equal((await readRowsOf(out)).filter((row) => row.gen !== undefined && row.error === undefined).length, ds.rows.length);
    });
  }

  it("SGLang, the judge's --max-tokens: the judge stage stops the same way", async () => {
    const dir = await dirs.make();
    const ds = await makeDataset(dir, 30, ['mcp']);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const s = await sglang(32768);
    const r = await runAwb(judgeArgs(s.url, preds, join(dir, 'judged.jsonl'), ['-c', '2', '--max-tokens', '40000']));
    const line = refusalLine(r, 3);
    assert.match(
      line,
      /^awb: judge endpoint .*the server's context is 32768 tokens; --max-tokens 40000 leaves no room for a prompt: try --max-tokens 16384/,
    );
    assert.ok(s.chats() < ds.rows.length, `${s.chats()} requests for ${ds.rows.length} rows`);
  });

  for (const [name, serve] of [
    ['vLLM', vllm],
    ['SGLang', sglang],
  ] as const) {
    it(`${name}: one prompt over the context alone fails only its row; the run completes`, async () => {
      const dir = await dirs.make();
      const rows = synthRows(30, ['mcp']);
      // About 12000 tokens: over a 4096-token context whatever the budget.
      rows[3]!.current_prompt = 'x'.repeat(48_000);
      const ds = await writeDataset(join(dir, 'data'), rows);
      const s = await serve(4096);
      const out = join(dir, 'p.jsonl');
      const r = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '2', '--max-tokens', '1024']));
      const written = await readRowsOf(out);
      const failed = written.filter((row) => row.error !== undefined);
      assert.equal(written.length, rows.length, r.stderr);
      assert.equal(failed.length, 1, r.stderr);
      assert.equal(failed[0]!.turn_idx, rows[3]!.turn_idx);
      assert.equal(failed[0]!.id, rows[3]!.id);
      assert.notEqual(r.code, 3, r.stderr);
    });
  }
});

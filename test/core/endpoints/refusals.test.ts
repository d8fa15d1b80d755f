/*
 * Refusals as real servers word them, classified by status and structure first, their wording last (classify.ts,
 * refusalOf), through the pool's own client: what the retry policy, the streaks and the faults decide on. Bodies
 * are those of their sources: vLLM (serving_engine.py, renderers/params.py, v1/engine/processor.py), OpenAI,
 * `transformers serve` (FastAPI `detail`), llama.cpp (server.cpp's `exceed_context_size_error`) and SGLang
 * (managers/tokenizer_manager.py).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { EndpointPool } from '../../../src/core/endpoints/index.js';
import { attemptFailure } from '../../../src/core/endpoints/classify.js';
import { Client } from '../../../src/core/endpoints/http/client.js';
import { SAME_REFUSALS, failureKey } from '../../../src/core/endpoints/retry.js';
import { isFault } from '../../support/fault-kind.js';
import { json, rawServer } from '../../support/raw-server.js';

const MODEL = 'my-model';

/** What the pool's client makes of one reply: the failure the policies read. */
async function failureOf(status: number, body: unknown) {
  const { url } = await rawServer((req, res) => {
    req.resume();
    json(res, status, body);
  });
  const client = new Client({ baseURL: url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
  const err = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  const failure = attemptFailure(err, MODEL);
  assert.equal(failure?.kind, 'status');
  return failure as Extract<typeof failure, { kind: 'status' }>;
}

describe('refusalOf: what a refusal is about', () => {
  const cases: Array<[string, number, unknown, 'model' | 'context' | 'budget' | 'other']> = [
    [
      'vLLM, a model it does not serve',
      404,
      { object: 'error', message: `The model \`${MODEL}\` does not exist.`, type: 'NotFoundError', param: null, code: 404 },
      'model',
    ],
    [
      'OpenAI, a model it does not know',
      404,
      {
        error: {
          message: `The model \`${MODEL}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      },
      'model',
    ],
    [
      'transformers serve pinned to another model',
      400,
      { detail: `Server is pinned to 'local/tiny-llama'; requested '${MODEL}'.` },
      'model',
    ],
    [
      'a pydantic error on the model field',
      422,
      { detail: [{ type: 'string_type', loc: ['body', 'model'], msg: 'Input should be a valid string', input: 3 }] },
      'model',
    ],
    [
      'OpenAI, a parameter naming the model',
      400,
      {
        error: {
          message: `Unsupported value: 'temperature' does not support 0.6 with this model.`,
          type: 'invalid_request_error',
          param: 'temperature',
          code: 'unsupported_value',
        },
      },
      'other',
    ],
    [
      'a setting refused for the model by name',
      400,
      {
        error: { message: `max_tokens is too large for model '${MODEL}': 200000`, type: 'invalid_request_error', param: null, code: null },
      },
      'other',
    ],
    [
      'vLLM, a prompt over the context',
      400,
      {
        object: 'error',
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 6000 tokens (5000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
      'context',
    ],
    [
      'llama.cpp, a prompt over the context',
      400,
      {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 5000,
          n_ctx: 4096,
        },
      },
      'context',
    ],
    [
      'SGLang, a prompt over the context',
      400,
      {
        object: 'error',
        message: "The input (5000 tokens) is longer than the model's context length (4096 tokens).",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
      'context',
    ],
    [
      'OpenAI, a prompt over the context',
      400,
      {
        error: {
          message: 'This request exceeds the limit.',
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      },
      'context',
    ],
    ['transformers serve, a field it does not know', 422, { detail: "Unexpected keys in the request: {'foo'}" }, 'other'],
    // vLLM's API server now (renderers/params.py): the wording, and its parameter.
    [
      "vLLM's renderer, a prompt over the context",
      400,
      {
        error: {
          message:
            "This model's maximum context length is 4096 tokens. However, you requested 1000 output tokens and your prompt contains at least 4001 input tokens, for a total of at least 5001 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
          type: 'BadRequestError',
          param: 'input_tokens',
          code: 400,
        },
      },
      'context',
    ],
    [
      "vLLM's renderer, a prompt over the context, by its parameter alone",
      400,
      { error: { message: 'prompt refused', type: 'BadRequestError', param: 'input_tokens', code: 400 } },
      'context',
    ],
    // vLLM's engine (v1/engine/processor.py), which a prompt the API server let through reaches: no parameter, no code.
    [
      "vLLM's engine, a prompt longer than the model",
      400,
      {
        error: {
          message:
            'The decoder prompt (length 5951) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.',
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      },
      'context',
    ],
    [
      'SGLang, the prompt and the completion over the context (the prompt alone fits: the budget)',
      400,
      {
        object: 'error',
        message:
          "Requested token count exceeds the model's maximum context length of 4096 tokens. You requested a total of 5000 tokens: 4000 tokens from the input messages and 1000 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
      'budget',
    ],
  ];
  for (const [name, status, body, about] of cases) {
    it(`${name}: ${about}`, async () => {
      const f = await failureOf(status, body);
      assert.equal(f.status, status);
      assert.equal(f.refusal.about, about);
    });
  }

  // vLLM's body as its API server sends it now (ErrorResponse: message, type, param, code) and SGLang's, with their wordings.
  const vllm = (message: string, param: string | null = 'input_tokens') => ({
    error: { message, type: 'BadRequestError', param, code: 400 },
  });
  const sglang = (message: string) => ({ object: 'error', message, type: 'BadRequestError', param: null, code: 400 });
  const budgetCases: Array<[string, unknown, { context: number; prompt?: number; budget?: number } | undefined]> = [
    [
      'vLLM, the budget alone as large as the context (the prompt cut short: "at least")',
      vllm(
        "This model's maximum context length is 32768 tokens. However, you requested 32768 output tokens and your prompt contains at least 1 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      ),
      { context: 32768, budget: 32768 },
    ],
    [
      'vLLM, an exact prompt that fits',
      vllm(
        "This model's maximum context length is 8192 tokens. However, you requested 8000 output tokens and your prompt contains 232 input tokens, for a total of 8232 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      ),
      { context: 8192, prompt: 232, budget: 8000 },
    ],
    [
      "vLLM, a prompt cut short at the budget: no telling, the row's",
      vllm(
        "This model's maximum context length is 8192 tokens. However, you requested 4096 output tokens and your prompt contains at least 4097 input tokens, for a total of at least 8193 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      ),
      undefined,
    ],
    [
      'vLLM before its renderers, the messages and the completion',
      vllm(
        "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (232 in the messages, 32768 in the completion). Please reduce the length of the messages or completion.",
        null,
      ),
      { context: 32768, prompt: 232, budget: 32768 },
    ],
    [
      "vLLM, 'max_tokens' or 'max_completion_tokens' is too large",
      vllm(
        "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778).",
        null,
      ),
      { context: 4096, prompt: 2778, budget: 8000 },
    ],
    [
      "vLLM's renderer, tokens passed with a budget that leaves no input",
      vllm(
        "You passed 1 input tokens and requested 32768 output tokens. However, the model's context length is only 32768 tokens, resulting in a maximum input length of 0 tokens. Please reduce the length of the input prompt.",
      ),
      { context: 32768, budget: 32768 },
    ],
    [
      "vLLM's renderer, tokens passed over a room the budget leaves: the row's",
      vllm(
        "You passed 3001 input tokens and requested 1000 output tokens. However, the model's context length is only 4096 tokens, resulting in a maximum input length of 3096 tokens. Please reduce the length of the input prompt.",
      ),
      undefined,
    ],
    [
      "vLLM's renderer, a budget over the whole context",
      vllm(
        'max_tokens=40000cannot be greater than max_model_len=max_total_tokens=32768. Please request fewer output tokens.',
        'max_tokens',
      ),
      { context: 32768, budget: 40000 },
    ],
    [
      'SGLang, without the numbers (said only once the input alone fits)',
      sglang("Requested token count exceeds the model's maximum context length of 32768 tokens."),
      { context: 32768 },
    ],
    [
      "SGLang, the input alone over: the row's",
      sglang("The input (40000 tokens) is longer than the model's context length (32768 tokens)."),
      undefined,
    ],
  ];
  for (const [name, body, over] of budgetCases) {
    it(`${name}: ${over ? 'the budget' : "the prompt's"}`, async () => {
      const f = await failureOf(400, body);
      assert.equal(f.refusal.about, over ? 'budget' : 'context');
      assert.deepEqual(f.refusal.over, over);
      assert.equal(f.refusal.setting, undefined);
    });
  }

  it("reads the server's words only: a web page's text, or a body without words, decides nothing", async () => {
    const { url } = await rawServer((req, res) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end(`<html><head><title>400: prompt is too long for ${MODEL}</title></head></html>`);
    });
    const client = new Client({ baseURL: url, apiKey: 'k', maxRetries: 0, logLevel: 'off' });
    const err = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    const page = attemptFailure(err, MODEL);
    assert.equal(page?.kind === 'status' && page.refusal.about, 'other');
    const silent = await failureOf(400, { error: { type: 'BadRequestError', code: 400 } });
    assert.equal(silent.refusal.about, 'other');
  });

  it("keeps the body's code, type and parameter as the refusal's identity, whatever its text", async () => {
    const a = await failureOf(400, {
      error: { message: 'Unrecognized request argument supplied: foo', type: 'invalid_request_error', param: null, code: null },
    });
    const b = await failureOf(400, {
      error: { message: 'Unrecognized request argument supplied: bar', type: 'invalid_request_error', param: null, code: null },
    });
    const c = await failureOf(400, {
      error: { message: 'Unrecognized request argument supplied: foo', type: 'invalid_request_error', param: 'foo', code: null },
    });
    assert.equal(failureKey(a), failureKey(b));
    assert.notEqual(failureKey(a), failureKey(c));
  });
});

describe('the pool on refusals', () => {
  async function poolAnswering(reply: (res: ServerResponse, n: number) => void) {
    let n = 0;
    const { url, seen } = await rawServer((req, res) => {
      req.resume();
      if (req.url?.endsWith('/models')) return json(res, 200, { object: 'list', data: [{ id: 'local/tiny-llama', object: 'model' }] });
      reply(res, n++);
    });
    const pool = new EndpointPool({
      urls: [url],
      apiKey: 'k',
      model: MODEL,
      timeoutMs: 2000,
      maxRetries: 0,
      maxReplyBytes: 1 << 20,
      role: 'judge',
    });
    const ask = () => pool.chat(pool.encode({ messages: [{ role: 'user', content: 'hi' }] }));
    return { ask, chats: () => seen.filter((s) => s.startsWith('POST')).length };
  }

  it("a pinned server's 400 before any answer is an unknown model, with the list it serves", async () => {
    const { ask } = await poolAnswering((res) =>
      json(res, 400, { detail: `Server is pinned to 'local/tiny-llama'; requested '${MODEL}'.` }),
    );
    await assert.rejects(ask(), isFault('unknown-model', { role: 'judge', model: MODEL, status: 400, served: ['local/tiny-llama'] }));
  });

  it("prompts over the context, each worded with its own count, never stop the run as the settings' refusal", async () => {
    const { ask, chats } = await poolAnswering((res, n) =>
      json(res, 400, {
        object: 'error',
        message: `This model's maximum context length is 4096 tokens. However, you requested ${5000 + n} tokens.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      }),
    );
    for (let i = 0; i < SAME_REFUSALS + 2; i++) {
      const err = await ask().catch((e: unknown) => e);
      assert.equal((err as { name?: string }).name, 'RequestFailed', String(err));
    }
    assert.equal(chats(), SAME_REFUSALS + 2);
  });

  it("a budget over the context is the settings': a prompt over it alone between them breaks nothing", async () => {
    const { ask } = await poolAnswering((res, n) =>
      json(res, 400, {
        error: {
          message:
            n % 3 === 2
              ? 'The decoder prompt (length 9000) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.'
              : `This model's maximum context length is 8192 tokens. However, you requested 8192 output tokens and your prompt contains at least 1 input tokens, for a total of at least 8193 tokens.`,
          type: 'BadRequestError',
          param: n % 3 === 2 ? null : 'input_tokens',
          code: 400,
        },
      }),
    );
    for (let n = 0, budget = 0; ; n++) {
      if (n % 3 !== 2) budget++;
      if (budget < SAME_REFUSALS || n % 3 === 2) {
        await assert.rejects(ask(), (e: Error) => e.name === 'RequestFailed');
        continue;
      }
      await assert.rejects(ask(), isFault('budget-over-context', { count: SAME_REFUSALS, over: { context: 8192, budget: 8192 } }));
      break;
    }
  });

  it('the same refusal worded differently for each row is still the same refusal: the run stops on the settings', async () => {
    const { ask } = await poolAnswering((res, n) =>
      json(res, 400, {
        error: { message: `Unrecognized request argument supplied: row${n}`, type: 'invalid_request_error', param: null, code: null },
      }),
    );
    for (let i = 1; i < SAME_REFUSALS; i++) await assert.rejects(ask(), (e: Error) => e.name === 'RequestFailed');
    await assert.rejects(ask(), isFault('settings-refused', { count: SAME_REFUSALS }));
  });

  it("names the setting refused, from OpenAI's code and param, for the words of the fix", async () => {
    const { ask } = await poolAnswering((res) =>
      json(res, 400, {
        error: {
          message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          type: 'invalid_request_error',
          param: 'max_tokens',
          code: 'unsupported_parameter',
        },
      }),
    );
    for (let i = 1; i < SAME_REFUSALS; i++) await assert.rejects(ask(), (e: Error) => e.name === 'RequestFailed');
    await assert.rejects(ask(), isFault('settings-refused', { setting: { name: 'max_tokens' } }));
  });
});

describe('replies given up on under way', () => {
  for (const stream of [false, true]) {
    it(`${stream ? 'streamed: none is said' : 'whole: each is counted, as the server may still be generating it'}`, async () => {
      const { url } = await rawServer((req, res) => {
        req.resume();
        // A generation that takes its time: headers only, as a whole reply sends them once done.
        if (stream) res.writeHead(200, { 'content-type': 'text/event-stream' });
      });
      const pool = new EndpointPool({
        urls: [url],
        apiKey: 'k',
        model: MODEL,
        timeoutMs: 60_000,
        maxRetries: 0,
        maxReplyBytes: 1 << 20,
        role: 'world model',
        stream,
      });
      const stop = new AbortController();
      const asked = pool.chat(pool.encode({ messages: [{ role: 'user', content: 'hi' }] }), stop.signal).catch((e: unknown) => e);
      // Ctrl-C once the request is on its way.
      while (pool.stats()[url.replace(/\/$/, '')]?.requests !== 1) await new Promise((r) => setImmediate(r));
      stop.abort();
      await asked;
      assert.deepEqual(pool.endNotices(), stream ? [] : [{ kind: 'replies-abandoned', role: 'world model', count: 1 }]);
    });
  }
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import {
  FAULT_KINDS,
  loadReplay,
  replayHandler,
  requestHash,
  startOpenAIServer,
  type FakeServer,
  type FaultKind,
} from './openai-server.js';
import { waitUntil } from './dataset.js';

const servers: FakeServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function start(opts: Parameters<typeof startOpenAIServer>[0] = {}): Promise<FakeServer> {
  const s = await startOpenAIServer(opts);
  servers.push(s);
  return s;
}

function client(s: FakeServer, extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}): OpenAI {
  return new OpenAI({ baseURL: s.url, apiKey: 'sk-test', maxRetries: 0, ...extra });
}

const ask = (c: OpenAI, text: string, model = 'test-model') =>
  c.chat.completions.create({ model, messages: [{ role: 'user', content: text }], temperature: 0.6, max_tokens: 64 });

describe('fake OpenAI server', () => {
  it('lists models and answers a completion the client can read', async () => {
    const s = await start({ models: ['world', 'judge'] });
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const c = client(s);
    const ids = [];
    for await (const m of c.models.list()) ids.push(m.id);
    assert.deepEqual(ids, ['world', 'judge']);

    const r = await ask(c, 'hello there', 'world');
    assert.equal(r.object, 'chat.completion');
    assert.equal(r.model, 'world');
    assert.equal(r.choices[0]?.finish_reason, 'stop');
    assert.equal(r.choices[0]?.message.content, 'echo(world): hello there');
    assert.ok(r.usage && r.usage.total_tokens === r.usage.prompt_tokens + r.usage.completion_tokens);
    assert.equal(s.stats.successes, 1);
    assert.equal(s.log[0]?.outcome, 'ok');
    assert.equal(s.log[0]?.request?.temperature, 0.6);
  });

  it('passes the parsed request, extra fields included, to the reply handler and returns reasoning_content', async () => {
    const s = await start({
      reply: (req, ctx) => ({
        content: `n=${ctx.requestNo} kw=${JSON.stringify(req.chat_template_kwargs)}`,
        reasoning_content: 'thinking',
        usage: { prompt_tokens: 7, completion_tokens: 3 },
      }),
    });
    const r = await client(s).chat.completions.create({
      model: 'test-model',
      messages: [{ role: 'user', content: 'x' }],
      // @ts-expect-error extra_body-style field the server must keep
      chat_template_kwargs: { enable_thinking: true },
    });
    assert.equal(r.choices[0]?.message.content, 'n=1 kw={"enable_thinking":true}');
    assert.equal((r.choices[0]?.message as unknown as { reasoning_content: string }).reasoning_content, 'thinking');
    assert.deepEqual(r.usage, {
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
      completion_tokens_details: { reasoning_tokens: 2 },
    });
  });

  it('can leave out the models route', async () => {
    const s = await start({ modelsRoute: false });
    await assert.rejects(client(s).models.list(), (e: unknown) => e instanceof OpenAI.NotFoundError);
  });

  it('answers 404 model_not_found for an unknown model', async () => {
    const s = await start();
    await assert.rejects(ask(client(s), 'hi', 'no-such-model'), (e: unknown) => {
      assert.ok(e instanceof OpenAI.NotFoundError);
      assert.equal(e.code, 'model_not_found');
      assert.equal(e.type, 'invalid_request_error');
      return true;
    });
    assert.equal(s.stats.modelNotFound, 1);
  });

  it('answers 401 without the right key', async () => {
    const s = await start({ apiKey: 'sk-right' });
    await assert.rejects(ask(client(s), 'hi'), (e: unknown) => e instanceof OpenAI.AuthenticationError);
    await assert.rejects(client(s).models.list(), (e: unknown) => e instanceof OpenAI.AuthenticationError);
    const ok = await ask(client(s, { apiKey: 'sk-right' }), 'hi');
    assert.equal(ok.choices[0]?.finish_reason, 'stop');
    assert.equal(s.stats.unauthorized, 2);
  });

  it('429 carries Retry-After and the rate-limit error', async () => {
    const s = await start({ faults: (_req, n) => (n === 1 ? { kind: '429', retryAfter: 1 } : n === 2 ? '429' : undefined) });
    const c = client(s);
    await assert.rejects(ask(c, 'a'), (e: unknown) => {
      assert.ok(e instanceof OpenAI.RateLimitError);
      assert.equal(e.headers.get('retry-after'), '1');
      assert.equal(e.code, 'rate_limit_exceeded');
      return true;
    });
    await assert.rejects(ask(c, 'a'), (e: unknown) => {
      assert.ok(e instanceof OpenAI.RateLimitError);
      assert.equal(e.headers.get('retry-after'), '0'); // the default
      return true;
    });
    s.setOptions({ faults: () => ({ kind: '429', retryAfter: null }) });
    await assert.rejects(ask(c, 'a'), (e: unknown) => e instanceof OpenAI.RateLimitError && e.headers.get('retry-after') === null);
    assert.equal(s.stats.faults['429'], 3);
  });

  it('shows each fault the way the client sees it', async () => {
    let next: FaultKind | undefined;
    const s = await start({ faults: () => next });
    // Answers come at once: a timeout far off, but for the hang, whose only way out is its timeout.
    const c = client(s, { timeout: 60_000 });
    const expectError = async (kind: FaultKind, check: (e: unknown) => boolean, asking = c) => {
      next = kind;
      await assert.rejects(ask(asking, `fault ${kind}`), (e: unknown) => {
        assert.ok(check(e), `${kind}: unexpected ${String(e)}`);
        return true;
      });
    };
    await expectError('500', (e) => e instanceof OpenAI.InternalServerError && e.status === 500);
    await expectError('503', (e) => e instanceof OpenAI.InternalServerError && e.status === 503);
    await expectError('reset', (e) => e instanceof OpenAI.APIConnectionError && !(e instanceof OpenAI.APIConnectionTimeoutError));
    await expectError('hang', (e) => e instanceof OpenAI.APIConnectionTimeoutError, client(s, { timeout: 300 }));
    await expectError('malformed', (e) => e instanceof SyntaxError);

    next = 'empty';
    const empty = await ask(c, 'fault empty');
    assert.equal(empty.choices[0]?.message.content, '');
    assert.equal(empty.choices[0]?.finish_reason, 'stop');

    next = 'length';
    const cut = await ask(c, 'fault length');
    assert.equal(cut.choices[0]?.message.content, '');
    assert.equal(cut.choices[0]?.finish_reason, 'length');
    assert.equal(cut.usage?.completion_tokens, 64);

    next = 'no-choices';
    assert.deepEqual((await ask(c, 'fault no-choices')).choices, []);

    next = 'unstreamed';
    const plain = await c.chat.completions
      .create({ model: 'test-model', messages: [{ role: 'user', content: 'x' }], stream: true })
      .asResponse();
    assert.match(plain.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await plain.json()) as { object: string }).object, 'chat.completion');

    next = undefined;
    await ask(c, 'fine');
    const kinds = ['500', '503', 'reset', 'hang', 'malformed', 'empty', 'length', 'no-choices', 'unstreamed'] as const;
    for (const k of kinds) assert.equal(s.stats.faults[k], 1, k);
    assert.equal(s.stats.successes, 1);
    assert.equal(s.stats.requests, 10);
    assert.deepEqual(
      s.log.map((e) => e.outcome),
      [...kinds, 'ok'],
    );
    // The hung request counts as in flight only until the client gives up.
    assert.equal(s.stats.inFlight, 0);
  });

  it('injects faults at seeded rates, reproducibly', async () => {
    const rates = { '429': 0.2, '500': 0.1, empty: 0.1 };
    const run = async () => {
      const s = await start({ faultRates: rates, seed: 42 });
      const c = client(s);
      for (let i = 0; i < 60; i++) await ask(c, `q${i}`).catch(() => undefined);
      return s.log.map((e) => e.outcome);
    };
    const a = await run();
    const b = await run();
    assert.deepEqual(a, b);
    const count = (k: string) => a.filter((o) => o === k).length;
    assert.ok(count('429') > 3 && count('500') > 0 && count('empty') > 0 && count('ok') > 20, JSON.stringify(a));
    for (const k of FAULT_KINDS.filter((k) => !(k in rates))) assert.equal(count(k), 0);
  });

  it('delays with timers so concurrent requests overlap', async () => {
    // A delay none of them outlives here: all 20 are in flight at once, however slowly they arrive, only if it is a
    // timer (a busy wait would hold the rest back); close() ends them.
    const s = await startOpenAIServer({ latencyMs: 600_000 });
    const c = client(s);
    const asked = Array.from({ length: 20 }, (_, i) =>
      ask(c, `concurrent ${i}`).then(
        () => 'answered',
        () => 'ended',
      ),
    );
    await waitUntil(() => s.stats.inFlight === 20);
    assert.equal(s.stats.inFlight, 20);
    await s.close();
    assert.deepEqual(new Set(await Promise.all(asked)), new Set(['ended']));
  });

  it('applies its latency before answering', async () => {
    const s = await start({ latencyMs: 200 });
    await ask(client(s), 'slow');
    assert.ok(s.log[0]!.ms >= 190, `answered after ${s.log[0]!.ms} ms`);
  });

  it('finds a request that was answered successfully twice', async () => {
    const s = await start();
    const c = client(s);
    await ask(c, 'once');
    await ask(c, 'twice');
    assert.deepEqual(s.repeatedSuccesses(), []);
    await ask(c, 'twice');
    const hash = requestHash({ model: 'test-model', messages: [{ role: 'user', content: 'twice' }] });
    assert.deepEqual(s.repeatedSuccesses(), [{ hash, count: 2 }]);
  });

  it('does not count a failed attempt followed by a success as a repeat', async () => {
    const s = await start({ faults: (_req, n) => (n === 1 ? '503' : undefined) });
    const c = client(s);
    await ask(c, 'retry me').catch(() => undefined);
    await ask(c, 'retry me');
    assert.deepEqual(s.repeatedSuccesses(), []);
    assert.equal(s.log[0]?.hash, s.log[1]?.hash);
  });

  it('logs a request the client abandoned during latency', async () => {
    // A latency the client's timeout never outlives: at 500 ms, a loaded machine that held this process's timers past
    // both let the server answer first (outcome 'ok'). close() (after) ends the wait.
    const s = await start({ latencyMs: 600_000 });
    await assert.rejects(ask(client(s, { timeout: 100 }), 'slow'), (e: unknown) => e instanceof OpenAI.APIConnectionTimeoutError);
    // The server hears of it when the closed connection reaches it.
    await waitUntil(() => s.stats.clientClosed > 0);
    assert.equal(s.log[0]?.outcome, 'client_closed');
    assert.equal(s.stats.clientClosed, 1);
    assert.equal(s.stats.successes, 0);
  });

  it('close() ends hung requests', async () => {
    const s = await startOpenAIServer({ faults: () => 'hang' });
    const pending = ask(client(s), 'never answered').then(
      () => 'answered',
      (e: unknown) => (e instanceof OpenAI.APIConnectionError ? 'connection error' : String(e)),
    );
    while (s.stats.faults.hang === 0) await new Promise((r) => setTimeout(r, 10));
    await s.close();
    assert.equal(await pending, 'connection error');
    assert.equal(s.stats.inFlight, 0);
  });
});

describe('replay', () => {
  it('answers with the first entry found in the last user message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-replay-'));
    try {
      const file = join(dir, 'r.jsonl');
      const entries = [
        { match: 'git log -3', reply: 'third' },
        { match: 'ls -la', reply: 'first\u2028line' },
      ];
      await writeFile(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
      const loaded = await loadReplay(file);
      assert.deepEqual(loaded, entries);

      const s = await start({ reply: replayHandler(loaded, 'fallback') });
      const c = client(s);
      const r1 = await c.chat.completions.create({
        model: 'test-model',
        messages: [
          { role: 'system', content: 'sys git log -3' },
          { role: 'user', content: 'run ls -la' },
        ],
      });
      assert.equal(r1.choices[0]?.message.content, 'first\u2028line');
      const r2 = await ask(c, 'history: ls -la\ncurrent: git log -3');
      assert.equal(r2.choices[0]?.message.content, 'third');
      const r3 = await ask(c, 'nothing known');
      assert.equal(r3.choices[0]?.message.content, 'fallback');

      const strict = await start({ reply: replayHandler(loaded) });
      await assert.rejects(ask(client(strict), 'nothing known'), (e: unknown) => e instanceof OpenAI.InternalServerError);
      assert.equal(strict.stats.handlerErrors, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the line of a broken replay file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'awb-replay-'));
    try {
      const file = join(dir, 'bad.jsonl');
      await writeFile(file, '{"match":"a","reply":"b"}\n{"match":1}\n');
      await assert.rejects(loadReplay(file), /bad\.jsonl:2:/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

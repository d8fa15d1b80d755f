/*
 * A row's signal serves all of its attempts (repeats, panel members, retries). The openai client
 * never unhooks the listener it adds to the signal it is given, so each attempt must hand it a
 * signal of its own: else a row of 7 repeats × 2 members gathers 14 listeners and Node warns of a leak.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Client } from '../../../src/core/endpoints/index.js';
import { attempt, chatBody } from '../../../src/core/endpoints/attempt.js';
import { startOpenAIServer, type FakeServer } from '../../support/openai-server.js';

describe('attempts under one row signal', () => {
  let server: FakeServer;
  before(async () => {
    server = await startOpenAIServer();
  });
  after(() => server.close());

  for (const stream of [false, true]) {
    it(`leave no listener on it once answered (${stream ? 'streamed' : 'whole'})`, async () => {
      const client = new Client({ baseURL: server.url, apiKey: 'k', maxRetries: 0 });
      const row = new AbortController();
      const body = chatBody({ messages: [{ role: 'user', content: 'hi' }] }, 'test-model', stream);
      for (let i = 0; i < 12; i++) {
        const answer = await attempt(client, 'the endpoint', body, { stream, timeoutMs: 60_000, secrets: [] }, row.signal);
        assert.equal(answer.completion.choices.length, 1);
      }
      assert.equal(getEventListeners(row.signal, 'abort').length, 0);
    });
  }
});

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { faultOf } from '../../../src/core/errors.js';
import { uploadTraces } from '../../../src/core/publish/index.js';

/** A local port nobody listens on: one the system gave and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('publishing to a Hub that cannot be reached', () => {
  it('is the publish-unreachable fault with the system code, read from the error, not its words', async () => {
    const hub = { hubUrl: `http://127.0.0.1:${await closedPort()}`, token: 'hf_test' };
    const err = await uploadTraces(hub, 'me/traces', 'runs/x', [{ path: 'a.json', content: new Blob(['{}']) }], 'traces').then(
      () => assert.fail('uploaded to a closed port'),
      (e: unknown) => e,
    );
    const fault = faultOf(err, 'publish-unreachable');
    assert.ok(fault, `not publish-unreachable: ${String(err)}`);
    assert.equal(fault.code, 'ECONNREFUSED');
    assert.equal(fault.hub, hub.hubUrl);
  });
});

import assert from 'node:assert/strict';
import { FaultError, type Fault } from '../../src/core/errors.js';

/**
 * For assert.rejects/throws: the error is a fault of `kind` whose fields
 * include `fields` (each compared deeply); the wording is test/commands/words/words.test.ts's.
 */
export function isFault<K extends Fault['kind']>(kind: K, fields: Partial<Extract<Fault, { kind: K }>> = {}) {
  return (err: unknown): true => {
    assert.ok(err instanceof FaultError, `expected a ${kind} fault, got ${String(err)}`);
    assert.equal(err.fault.kind, kind);
    const f = err.fault as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(fields)) assert.deepEqual(f[k], v, `${kind}.${k}`);
    return true;
  };
}

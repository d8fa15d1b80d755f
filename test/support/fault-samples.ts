import type { Fault } from '../../src/core/errors.js';

/**
 * One fault of every kind, with plausible fields: the wording test says each
 * one and compares with test/commands/words/snapshots/words.txt. Typed by kind, so a new
 * kind without a sample does not compile.
 */
export type Samples = { [K in Fault['kind']]: Extract<Fault, { kind: K }> };

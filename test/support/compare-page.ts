import { compareRecords, type CompareResult } from '../../src/core/compare/index.js';
import type { ComparePage } from '../../src/render/compare-view.js';
import { NOTE_WORDS } from '../../src/commands/words/index.js';

/** A comparison of no rows: every list empty, no gate. */
export const emptyComparison = (): CompareResult => compareRecords([], []);

/** What the renderers are given, for a candidate file of this name. */
export function comparePage(candidate: string): ComparePage {
  const side = {
    file: candidate,
    label: candidate,
    provenance: { manifest: 'missing' as const },
    rows: 0,
    standing: { ranked: true, unranked: [] },
  };
  return {
    baseline: side,
    candidate: side,
    domains: undefined,
    result: emptyComparison(),
    gate: undefined,
    notes: [],
    warnings: [],
    invocation: 'awb',
    words: NOTE_WORDS,
  };
}

import { compareRecords, type CompareResult } from '../../src/core/compare/index.js';

/** A comparison of no rows: every list empty, no gate. */
export const emptyComparison = (): CompareResult => compareRecords([], []);

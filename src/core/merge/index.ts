export { mergeShards } from './merge.js';
export type { MergeFault } from './faults.js';

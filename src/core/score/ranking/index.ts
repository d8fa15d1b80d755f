export { comparabilityNotes, isDifference, labelRuns, publishedGaps, readProvenance } from './comparability.js';
export type { ComparabilityNote, ComparedRun, Provenance } from './comparability.js';
export { standings } from './standing.js';
export type { Setting, Standing, StandingRun, Unranked } from './standing.js';

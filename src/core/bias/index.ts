export { scoreWithBias, selfPreference } from './bias.js';
export type { RunBias, ScoredWithBias } from './bias.js';
export { fitLength, lengthBias, logLengthRatio } from './length-bias.js';
export type { DomainLengthBias, LengthBias, LengthPoint } from './length-bias.js';
export { modelFamily } from './model-family.js';

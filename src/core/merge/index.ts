export { mergeShards } from './merge.js';

export { BENCHMARK_FILE, EVAL_RESULTS_FILE, benchmarkEvalYaml, evalResults, evalResultsYaml, rankGaps } from './eval-results.js';
export type { EvalResultEntry, ResultsOptions } from './eval-results.js';
export { openResultsPullRequest, uploadTraces } from './hub-publish.js';
export type { HubWrite, UploadedFile } from './hub-publish.js';
export type { PublishFault, PublishStep } from './faults.js';

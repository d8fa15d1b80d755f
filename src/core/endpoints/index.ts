export { Client } from './http/client.js';
export { EndpointPool } from './pool.js';
export { StoppedError, causeCode, isChatCompletion, isStopped, modelIds } from './classify.js';
export type { BatchTarget, ChatBody, ChatMessage, ChatRequest, ChatResult, EndpointStats, PoolOptions } from './types.js';
export { collectStream, medianP90 } from './http/stream.js';
export { estimatePromptTokens } from './pacing/estimate.js';
export { JoinedText, jsonBytes } from './http/json-bytes.js';
export { honouredWaitMs } from './retry.js';
export { batchClient, clearBatches, customIdOf, recordedBatches, runBatches } from './batch/batch.js';
export type { BatchResults, BatchStatus } from './batch/batch.js';
export { BATCH_LIMITS } from './batch/batch-files.js';
export type { BatchLimits, BatchRequest } from './batch/batch-files.js';
export type {
  BudgetOverContext,
  EndpointFault,
  EndpointNotice,
  EndpointRole,
  KeySource,
  RefusedSetting,
  SentSettings,
  SetAside,
} from './faults.js';
export { listModels, refusedNames } from './listing.js';
export type { ListingTarget } from './listing.js';

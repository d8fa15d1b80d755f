export { Client } from './client.js';
export { EndpointPool, FatalEndpointError, isChatCompletion, isStopped, modelIds, unreachableHint } from './endpoints.js';
export type { BatchTarget, ChatBody, ChatMessage, ChatRequest, ChatResult, EndpointStats, PoolOptions } from './endpoints.js';
export { collectStream, medianP90 } from './stream.js';
export { estimatePromptTokens } from './estimate.js';
export { JoinedText, jsonBytes } from './json-bytes.js';
export { honouredWaitMs } from './retry.js';
export { BATCH_LIMITS, batchClient, clearBatches, customIdOf, runBatches } from './batch.js';
export type { BatchLimits, BatchRequest, BatchResults, BatchStatus } from './batch.js';

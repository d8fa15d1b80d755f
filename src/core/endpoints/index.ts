export { EndpointPool, FatalEndpointError, isMalformedReply } from './endpoints.js';
export type { ChatRequest, ChatResult, EndpointStats, PoolOptions } from './endpoints.js';
export { collectStream, medianP90 } from './stream.js';
export type { StreamedReply } from './stream.js';
export { estimatePromptTokens } from './estimate.js';

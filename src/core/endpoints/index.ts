export { EndpointPool, FatalEndpointError, isMalformedReply } from './endpoints.js';
export type { ChatRequest, ChatResult, EndpointStats, PoolOptions } from './endpoints.js';

export { EndpointPool, FatalEndpointError, isMalformedReply } from './endpoints.js';
export type { EndpointStats } from './endpoints.js';
export type { BodyPart, FileRange } from './request-body.js';

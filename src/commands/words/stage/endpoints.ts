import type { EndpointFault } from '../../../core/endpoints/index.js';
import type { Words } from '../words.js';

export const ENDPOINT_WORDS: Words<EndpointFault> = {};

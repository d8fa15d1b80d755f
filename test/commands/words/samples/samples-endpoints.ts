import type { EndpointFault } from '../../../../src/core/endpoints/index.js';

export const ENDPOINT_SAMPLES: { [K in EndpointFault['kind']]: Extract<EndpointFault, { kind: K }> } = {
  'request-over-token-limit': {
    kind: 'request-over-token-limit',
    endpoint: 'https://api.openai.com/v1',
    tokens: 42_000,
    limit: 30_000,
    promptTokens: 9_000,
    promptFits: true,
  },
};

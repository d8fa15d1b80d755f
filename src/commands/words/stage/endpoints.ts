import type { EndpointFault } from '../../../core/endpoints/index.js';
import { EXIT, type Words } from '../words.js';

export const ENDPOINT_WORDS: Words<EndpointFault> = {
  'request-over-token-limit': (f) => {
    const fix = f.promptFits
      ? `its prompt is about ${f.promptTokens}, and the server counts all of --max-tokens against the limit too: lower --max-tokens, or use a key with a higher limit (a higher tier)`
      : `its prompt alone is about ${f.promptTokens}: use a key with a higher limit (a higher tier), or leave out rows this large`;
    return {
      message: `endpoint ${f.endpoint} allows ${f.limit} tokens per minute (x-ratelimit-limit-tokens) and a request counts about ${f.tokens}: no wait makes room for it; ${fix}. The rows done so far are kept; once fixed, run the same command again`,
      exit: EXIT.endpoint,
    };
  },
};

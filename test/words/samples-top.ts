import type { TopFault } from '../../src/core/errors.js';

export const TOP_SAMPLES: { [K in TopFault['kind']]: Extract<TopFault, { kind: K }> } = {
  'domain-list-empty': { kind: 'domain-list-empty', value: ' , ' },
};

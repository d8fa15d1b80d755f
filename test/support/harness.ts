import { after } from 'node:test';
import { startOpenAIServer, type FakeServer, type ServerOptions } from './openai-server.js';

/** Starts fake endpoints for a test file and closes them all when the file's tests are done. */
export function useServers(): (opts: ServerOptions) => Promise<FakeServer> {
  const servers: FakeServer[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  return async (opts) => {
    const s = await startOpenAIServer(opts);
    servers.push(s);
    return s;
  };
}

export const inferArgs = (url: string, data: string, out: string, extra: string[] = [], model = 'test-model') => [
  'infer',
  '--model-base-url',
  url,
  '--model-name',
  model,
  '--data',
  data,
  '-o',
  out,
  '--no-progress',
  ...extra,
];

/** `model`: a panel's members too (`a,b,c`). */
export const judgeArgs = (url: string, predictions: string, out: string, extra: string[] = [], model = 'test-model') => [
  'judge',
  '--judge-base-url',
  url,
  '--judge-model',
  model,
  '--predictions',
  predictions,
  '-o',
  out,
  '--no-progress',
  ...extra,
];

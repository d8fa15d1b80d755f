/*
 * The run settings the tests that run a stage from its config (never through the CLI) share: a small
 * run, one try per request, and no API key.
 */
import type { RunConfig } from '../../src/core/stage/index.js';

export const RUN: RunConfig = {
  domains: undefined,
  shard: undefined,
  concurrency: 4,
  temperature: 0.6,
  seed: undefined,
  maxTokens: 100,
  extraBody: undefined,
  timeout: 30_000,
  maxRetries: 0,
  maxInflightMb: 32,
  onBadRow: 'stop',
  grace: 1,
  maxReplyMb: 16,
  stream: false,
  streamIdle: 60_000,
  batch: false,
  batchPoll: 30_000,
  batchMaxLines: 50_000,
  batchMaxMb: 200,
  dryRun: false,
  retryFailed: false,
  label: undefined,
  force: false,
  pace: true,
  preflight: true,
  promptCacheKey: false,
  maxCost: undefined,
  priceInput: undefined,
  priceOutput: undefined,
};

/** No API key: the test servers take any. */
export const KEY = { apiKey: 'EMPTY', key: { from: 'none', option: '--model-api-key', variables: [], emptyVariables: [] } } as const;

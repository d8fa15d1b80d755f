import { setFlagsFromString } from 'node:v8';
import chalk from 'chalk';
import type { BadRowMode } from '../core/rows/index.js';
import type { Sampling } from '../core/infer/index.js';
import type { Shard } from '../core/rows/index.js';
import { parseDomainList } from '../core/domains.js';
import { choiceOption, intOption, jsonObjectOption, numberOption, shardOption } from './options.js';
import { resumeCommand } from './run-ui.js';
import { visible } from '../core/shown.js';

/* What infer and judge share on the command line: request, selection and interrupt options, and how a run ends. */

export interface StageCliOptions {
  domains?: string;
  shard?: string;
  concurrency: string;
  temperature: string;
  maxTokens: string;
  extraBody?: string;
  timeout: string;
  maxRetries: string;
  onBadRow: string;
  grace: string;
  force?: boolean;
  preflight: boolean;
  progress: boolean;
}

export interface StageSettings {
  concurrency: number;
  sampling: Sampling;
  timeoutMs: number;
  maxRetries: number;
  onBadRow: BadRowMode;
  graceSeconds: number;
  domains?: string[];
  shard?: Shard;
}

export function parseStageOptions(opts: StageCliOptions): StageSettings {
  return {
    concurrency: intOption('concurrency', opts.concurrency, 1, 4096)!,
    sampling: {
      temperature: numberOption('temperature', opts.temperature, 0, 2),
      max_tokens: intOption('max-tokens', opts.maxTokens, 1),
      extra_body: jsonObjectOption('extra-body', opts.extraBody),
    },
    timeoutMs: numberOption('timeout', opts.timeout, 1, 86_400)! * 1000,
    maxRetries: intOption('max-retries', opts.maxRetries, 0, 100)!,
    onBadRow: choiceOption('on-bad-row', opts.onBadRow, ['stop', 'skip'] as const),
    graceSeconds: numberOption('grace', opts.grace, 0, 86_400)!,
    domains: parseDomainList(opts.domains),
    shard: shardOption(opts.shard),
  };
}

/** The key from the option, else the stage's own variable, else OPENAI_API_KEY; local servers accept anything. */
export function apiKeyFrom(given: string | undefined, specific: string): string {
  return given ?? process.env[specific] ?? process.env.OPENAI_API_KEY ?? 'EMPTY';
}

export function printEndpoints(endpoints: Record<string, { requests: number; failures: number }> | undefined): void {
  if (!endpoints || Object.keys(endpoints).length < 2) return;
  for (const [url, s] of Object.entries(endpoints))
    process.stderr.write(`endpoint ${visible(url)}: ${s.requests} requests, ${s.failures} failed\n`);
}

/** Final words and exit code: 0 only when every row is done. */
export function finish(stage: string, stopped: boolean, remaining: number, output: string, secrets: string[]): void {
  const again = resumeCommand(secrets);
  if (stopped) {
    process.stderr.write(
      chalk.yellow(
        `${stage}: interrupted with ${remaining} rows left; everything finished is saved in ${output}.\nResume with:\n  ${again}\n`,
      ),
    );
    process.exitCode = 130;
  } else if (remaining > 0) {
    process.stderr.write(
      chalk.yellow(
        `${stage}: ${remaining} rows failed (their errors are in ${output}); run the same command again to retry only those:\n  ${again}\n`,
      ),
    );
    process.exitCode = 1;
  } else {
    process.stderr.write(chalk.green(`${stage}: done: ${output}\n`));
  }
}

/** Settings go into the manifest, where an absent option and an undefined one must compare equal. */
export function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A run keeps every request in flight alive for seconds, so V8 sees most
 * young objects survive: it grows the young generation to its maximum (32
 * MB) and lets the old one fill with the promoted, soon dead, request state
 * until a late first full collection. Holding the young generation at its
 * starting size and growing the old one by 10 % over what was live keeps
 * infer and judge some 50 MB smaller at 64 requests in flight, at no cost
 * in time (the bench measured no more CPU). Process-wide settings, hence made
 * here and not in core; V8 reads both as it goes.
 */
export function tuneGarbageCollection(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=10');
}

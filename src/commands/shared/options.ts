import type { KeySource } from '../../core/endpoints/index.js';
import { UserError } from '../../core/errors.js';
import { shownUrl, visible } from '../../core/shown.js';
import { shardEngineName, shardFromEngine, type Shard } from '../../core/rows/index.js';
import { parseDomainList } from '../../core/domains.js';
import { terminal } from './terminal.js';

/* Option values arrive as strings from commander; these turn them into typed values or a one-line error naming the option. */

export function intOption(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`;
    throw new UserError(`--${name} must be ${range}, got "${value}"`);
  }
  return n;
}

export function numberOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UserError(`--${name} must be a number from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/* The parsers of options with a default: commander always gives them a value, so the parsed value is never undefined. */

/** A number from min to max. */
export const numberIn = (min: number, max: number) => (v: string, n: string) => numberOption(n, v, min, max)!;
/** A whole number from min to max. */
export const intIn = (min: number, max: number) => (v: string, n: string) => intOption(n, v, min, max)!;
/** Seconds from min to max, as milliseconds. */
export const secondsIn = (min: number, max: number) => (v: string, n: string) => numberOption(n, v, min, max)! * 1000;

export function jsonObjectOption(name: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new UserError(`--${name} is not valid JSON (${(err as Error).message}): ${value}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UserError(`--${name} must be a JSON object, got: ${value}`);
  }
  return parsed as Record<string, unknown>;
}

/** --domains, as every command that takes a selection of domains reads it (`help` says what the default covers). */
export const DOMAINS_OPTION = {
  flags: '--domains <list>',
  help: 'comma-separated domains (default: all in the data)',
  parse: (v: string | undefined) => parseDomainList(v),
};

/** `--shard K/N`, or `auto`: read from the engine's environment when the run starts (`shardOf`). */
export function shardOption(value: string | undefined): Shard | 'auto' | undefined {
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'auto') return 'auto';
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new UserError(`--shard must be K/N with 1 <= K <= N, e.g. 2/8, or auto, got "${value}"`);
  }
  return { index, count };
}

export function choiceOption<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UserError(`--${name} must be one of ${choices.join(', ')}, got "${value}"`);
  }
  return value as T;
}

/** --format, where `md` is accepted for markdown. */
export function formatOption<T extends string>(value: string, choices: readonly T[]): T {
  return choiceOption('format', value === 'md' ? 'markdown' : value, choices);
}

/**
 * An endpoint's base URL. Its query is kept and sent with every request (some
 * proxies take a key there) but never shown. User info (`user:key@host`) is
 * refused: OpenAI-compatible servers take the key as a Bearer token, so it
 * would not be sent, and awb does not guess which of the two is the key.
 */
export function urlOption(name: string, value: string, keyOption: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UserError(`--${name} is not a URL (expected one like http://host:8000/v1)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`--${name} must be an http(s) URL, got one starting with "${visible(url.protocol)}"`);
  }
  if (url.username || url.password) {
    throw new UserError(
      `--${name} ${shownUrl(value)} carries credentials before the host (user:key@); awb does not send them: pass the key with --${keyOption} instead`,
    );
  }
  // A route copied with the base URL (from a curl line or a server's docs): the client adds it again, and every request 404s.
  const route = /\/(chat\/completions|completions|models)\/*$/i.exec(url.pathname);
  if (route) {
    url.pathname = url.pathname.slice(0, route.index);
    throw new UserError(
      `--${name} ${shownUrl(value)} ends in the route /${route[1]}: give the base URL without it (${shownUrl(url.href)}); awb adds the routes itself`,
    );
  }
  return value.replace(/\/+$/, '');
}

/** A run's name: one printable line, since it is shown in tables and names a folder. */
export function labelOption(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!value.trim() || visible(value) !== value) {
    throw new UserError(`--${name} must be a non-empty line of printable text, got "${visible(value)}"`);
  }
  return value;
}

/**
 * The run's shard: `--shard K/N` as given, or with `auto` the one the engine running awb names in its environment
 * (said on stderr, and recorded in the manifest with the engine).
 */
export function shardOf(shard: Shard | 'auto' | undefined, count: number | undefined): Shard | undefined {
  if (count !== undefined && shard !== 'auto') throw new UserError('--shard-count goes with --shard auto');
  if (shard !== 'auto') return shard;
  const found = shardFromEngine(terminal().env, count);
  terminal().stderr.write(`shard ${found.index}/${found.count} from the ${shardEngineName(found.engine)} (${found.from.join(', ')})\n`);
  return { index: found.index, count: found.count, engine: found.engine };
}

/**
 * The API key from the option, else the first of `envs` that is set (local
 * servers accept anything: "EMPTY"), and what to do when an endpoint rejects
 * it, naming where it came from. Keys are trimmed, as the openai client trims
 * the variables it reads: a key file's line end (CRLF) or a stray space would
 * be dropped from the header by fetch but kept in the secret redacted from
 * errors, which then missed the key. An empty key (an unset CI secret) counts
 * as none given: the client refuses an empty key with a stack trace.
 */
export function apiKeyFrom(given: string | undefined, option: string, envs: readonly string[]): { apiKey: string; key: KeySource } {
  const t = terminal();
  const emptyVariables = envs.filter((name) => t.env[name] !== undefined && !t.env[name]!.trim());
  const none = (emptyOption?: true) => ({
    apiKey: 'EMPTY',
    key: { from: 'none', option, variables: envs, emptyVariables, ...(emptyOption && { emptyOption }) } as const,
  });
  if (given !== undefined) {
    const key = given.trim();
    return key ? { apiKey: key, key: { from: 'option', option } } : none(true);
  }
  const env = envs.find((name) => t.env[name]?.trim());
  if (env !== undefined) return { apiKey: t.env[env]!.trim(), key: { from: 'env', variable: env, option } };
  return none();
}

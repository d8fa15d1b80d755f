import type { KeySource } from '../../core/endpoints/index.js';
import { UserError } from '../../core/errors.js';
import { shownUrl, visible } from '../../core/shown.js';
import { shardEngineName, shardFromEngine, type Shard } from '../../core/rows/index.js';
import { parseDomainList } from '../../core/domains.js';
import { terminal } from './terminal.js';
import { OPTION_WORDS } from '../words/usage.js';

/* Option values arrive as strings from commander; these turn them into typed values or a one-line error naming the option. */

export function intOption(name: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UserError(OPTION_WORDS.wholeNumber(name, value, min, max === Number.MAX_SAFE_INTEGER ? undefined : max));
  }
  return n;
}

export function numberOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UserError(OPTION_WORDS.number(name, value, min, max));
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
    throw new UserError(OPTION_WORDS.notJson(name, value, (err as Error).message));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UserError(OPTION_WORDS.notJsonObject(name, value));
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
    throw new UserError(OPTION_WORDS.shard(value));
  }
  return { index, count };
}

export function choiceOption<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UserError(OPTION_WORDS.choice(name, value, choices));
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
    throw new UserError(OPTION_WORDS.notUrl(name));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(OPTION_WORDS.notHttp(name, url.protocol));
  }
  if (url.username || url.password) {
    throw new UserError(OPTION_WORDS.urlCredentials(name, shownUrl(value), keyOption));
  }
  // A route copied with the base URL (from a curl line or a server's docs): the client adds it again, and every request 404s.
  const route = /\/(chat\/completions|completions|models)\/*$/i.exec(url.pathname);
  if (route) {
    url.pathname = url.pathname.slice(0, route.index);
    throw new UserError(OPTION_WORDS.urlRoute(name, shownUrl(value), route[1]!, shownUrl(url.href)));
  }
  return value.replace(/\/+$/, '');
}

/** A run's name: one printable line, since it is shown in tables and names a folder. */
export function labelOption(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!value.trim() || visible(value) !== value) {
    throw new UserError(OPTION_WORDS.label(name, value));
  }
  return value;
}

/**
 * The run's shard: `--shard K/N` as given, or with `auto` the one the engine running awb names in its environment
 * (said on stderr, and recorded in the manifest with the engine).
 */
export function shardOf(shard: Shard | 'auto' | undefined, count: number | undefined): Shard | undefined {
  if (count !== undefined && shard !== 'auto') throw new UserError(OPTION_WORDS.shardCountAlone);
  if (shard !== 'auto') return shard;
  const found = shardFromEngine(terminal().env, count);
  terminal().stderr.write(`${OPTION_WORDS.shardFound(found.index, found.count, shardEngineName(found.engine), found.from)}\n`);
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

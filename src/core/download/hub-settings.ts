import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { getHFHubCachePath, getRepoFolderName } from '@huggingface/hub';
import { UserError } from '../errors.js';
import { shownUrl, visible } from '../shown.js';

/*
 * Settings: which Hub to ask, with which token, and where the Hugging Face
 * cache is, from the options and the same environment variables the Python
 * client reads.
 */

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export function resolveHubUrl(explicit: string | undefined): string {
  const fromEnv = process.env.HF_ENDPOINT?.trim() || undefined;
  const value = explicit ?? fromEnv ?? DEFAULT_HUB_URL;
  return checkedHubUrl(value, explicit === undefined && fromEnv !== undefined ? 'HF_ENDPOINT' : 'the hub URL', 'HF_TOKEN');
}

/** A bare `http(s)://host[/path]`: credentials or a query in it are refused, since they would end up in messages and records. */
export function checkedHubUrl(value: string, what: string, tokenVar: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not a URL, so its secrets cannot be picked out: show only what cannot be one.
    throw new UserError(`${what} is not a URL: "${visible(value.replace(/\/\/[^/]*@/, '//***@').slice(0, 100))}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UserError(`${what} must be an http(s) URL, got "${shownUrl(value)}"`);
  // The library would send neither to the Hub as credentials, and they would end up in messages and records.
  if (url.username || url.password) {
    throw new UserError(`${what} carries credentials (user:password@): remove them and put the token in ${tokenVar} (${shownUrl(value)})`);
  }
  if (url.search || url.hash) throw new UserError(`${what} must not have a query or fragment: ${shownUrl(value)}`);
  return value.replace(/\/+$/, '');
}

function hfHome(): string {
  return process.env.HF_HOME || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
}

/** Same order as the Python client: explicit, HF_TOKEN, the legacy variable, then the file `hf auth login` writes. */
export async function resolveToken(explicit: string | undefined): Promise<{ token?: string; source?: string }> {
  let token: string | undefined;
  let source: string | undefined;
  if (explicit !== undefined && explicit.trim() !== '') {
    [token, source] = [explicit.trim(), 'the access token'];
  } else if (process.env.HF_TOKEN?.trim()) {
    [token, source] = [process.env.HF_TOKEN.trim(), 'HF_TOKEN'];
  } else if (process.env.HUGGING_FACE_HUB_TOKEN?.trim()) {
    [token, source] = [process.env.HUGGING_FACE_HUB_TOKEN.trim(), 'HUGGING_FACE_HUB_TOKEN'];
  } else {
    const path = process.env.HF_TOKEN_PATH || join(hfHome(), 'token');
    try {
      const saved = (await readFile(path, 'utf8')).trim();
      if (saved) [token, source] = [saved, `the token saved in ${path}`];
    } catch {
      // No saved login: anonymous access, which is all a public dataset needs.
    }
  }
  // The library throws a bare TypeError for these before sending anything; say which setting is wrong instead.
  if (token !== undefined && !token.startsWith('hf_')) {
    throw new UserError(`${source} does not look like a Hugging Face access token (those start with "hf_"); fix it or unset it`);
  }
  return { token, source };
}

export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

export function cacheStorage(repo: string): string {
  return join(getHFHubCachePath(), getRepoFolderName({ type: 'dataset', name: repo }));
}

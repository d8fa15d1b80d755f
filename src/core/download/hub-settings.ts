import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { getHFHubCachePath, getRepoFolderName } from '@huggingface/hub';
import { fail } from '../errors.js';
import type { HubUrlSetting } from './faults.js';
import { shownUrl } from '../shown.js';

/*
 * Settings: which Hub to ask, with which token, and where the Hugging Face
 * cache is, from the options and the same environment variables the Python
 * client reads.
 */

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export function resolveHubUrl(explicit: string | undefined): string {
  const fromEnv = process.env.HF_ENDPOINT?.trim() || undefined;
  const value = explicit ?? fromEnv ?? DEFAULT_HUB_URL;
  return checkedHubUrl(value, explicit === undefined && fromEnv !== undefined ? 'HF_ENDPOINT' : 'option', 'HF_TOKEN');
}

/** A bare `http(s)://host[/path]`: credentials or a query in it are refused, since they would end up in messages and records. */
export function checkedHubUrl(value: string, setting: HubUrlSetting, tokenVar: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not a URL, so its secrets cannot be picked out: show only what cannot be one.
    throw fail({ kind: 'hub-url-invalid', setting, value: value.replace(/\/\/[^/]*@/, '//***@').slice(0, 100) });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail({ kind: 'hub-url-not-http', setting, url: shownUrl(value) });
  // The library would send neither to the Hub as credentials, and they would end up in messages and records.
  if (url.username || url.password) {
    throw fail({ kind: 'hub-url-credentials', setting, url: shownUrl(value), tokenVar });
  }
  if (url.search || url.hash) throw fail({ kind: 'hub-url-query', setting, url: shownUrl(value) });
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
    throw fail({ kind: 'hub-token-malformed', source: source! });
  }
  return { token, source };
}

export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

export function cacheStorage(repo: string): string {
  return join(getHFHubCachePath(), getRepoFolderName({ type: 'dataset', name: repo }));
}

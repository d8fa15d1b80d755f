import { HubApiError, commit, createRepo, repoExists } from '@huggingface/hub';
import { causeCode } from '../endpoints/index.js';
import { fail } from '../errors.js';
import { brief, shownUrl } from '../shown.js';
import type { PublishStep } from './faults.js';

/*
 * Writing to the Hub through @huggingface/hub's commit API: the traces to a dataset repo (made first if missing), the
 * Eval Results files as a pull request on a model repo. The token goes to the Hub's own origin only: the library sends
 * it there alone, and the fetch it is given drops it from any request elsewhere (LFS storage the Hub points to).
 */

export interface HubWrite {
  /** The Hub's base URL (HF_ENDPOINT, checked, or https://huggingface.co). */
  hubUrl: string;
  /** HF_TOKEN. */
  token: string;
}

export interface UploadedFile {
  path: string;
  content: Blob;
}

/** fetch that never carries the token beyond the Hub's origin. */
function hubOnlyFetch(hubUrl: string): typeof fetch {
  const origin = new URL(hubUrl).origin;
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (new URL(url).origin === origin) return fetch(input, init);
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return fetch(input, { ...init, headers });
  };
}

/** The library's failures as faults: the Hub's own words for an HTTP error, the system's code for a network one. */
async function step<T>(hub: HubWrite, repo: string, doing: PublishStep, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof HubApiError) {
      const said = (err.data as { error?: unknown; message?: unknown } | undefined) ?? {};
      const text = typeof said.error === 'string' ? said.error : typeof said.message === 'string' ? said.message : '';
      throw fail({
        kind: 'publish-refused',
        hub: shownUrl(hub.hubUrl),
        repo,
        step: doing,
        status: err.statusCode,
        message: brief(text, [hub.token], 300),
      });
    }
    // fetch's network failure: a TypeError carrying its cause (undici), whose system code says what went wrong.
    if (err instanceof TypeError && err.cause !== undefined) {
      const code = causeCode(err.cause) ?? 'fetch failed';
      throw fail({ kind: 'publish-unreachable', hub: shownUrl(hub.hubUrl), step: doing, code });
    }
    throw err;
  }
}

const settings = (hub: HubWrite) => ({ hubUrl: hub.hubUrl, accessToken: hub.token, fetch: hubOnlyFetch(hub.hubUrl) });

/**
 * Commits `files` to the dataset repo (created, public, when missing) on its main branch; returns the commit and the
 * URL of `folder` at that commit, the Eval Results' `source`.
 */
export async function uploadTraces(
  hub: HubWrite,
  repo: string,
  folder: string,
  files: readonly UploadedFile[],
  title: string,
): Promise<{ commit: string; url: string }> {
  const id = { type: 'dataset' as const, name: repo };
  const exists = await step(hub, repo, 'create-repo', () => repoExists({ repo: id, ...settings(hub) }));
  if (!exists) await step(hub, repo, 'create-repo', () => createRepo({ repo: id, ...settings(hub) }));
  const done = await step(hub, repo, 'upload-traces', () =>
    commit({
      repo: id,
      ...settings(hub),
      title,
      operations: files.map((f) => ({ operation: 'addOrUpdate' as const, path: f.path, content: f.content })),
    }),
  );
  const oid = done?.commit.oid ?? 'main';
  return { commit: oid, url: `${hub.hubUrl}/datasets/${repo}/tree/${oid}/${folder}` };
}

/** Opens a pull request on the model repo adding `files`; returns its URL. */
export async function openResultsPullRequest(
  hub: HubWrite,
  repo: string,
  files: readonly UploadedFile[],
  title: string,
  description: string,
): Promise<string> {
  const done = await step(hub, repo, 'pull-request', () =>
    commit({
      repo: { type: 'model', name: repo },
      ...settings(hub),
      title,
      description,
      isPullRequest: true,
      operations: files.map((f) => ({ operation: 'addOrUpdate' as const, path: f.path, content: f.content })),
    }),
  );
  return done?.pullRequestUrl ?? `${hub.hubUrl}/${repo}/discussions`;
}

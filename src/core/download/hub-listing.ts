import { posix } from 'node:path';
import { datasetInfo, listFiles, type ListFileEntry } from '@huggingface/hub';
import { COMMIT_SHA, TEST_FILE } from '../dataset/index.js';
import { compareDomains } from '../domains.js';
import { UserError } from '../errors.js';
import { hubCall, type Hub } from './hub-failure.js';

/* Talking to the Hub: which commit a revision is, and which `*_test.jsonl` files it holds. */

export interface Entry {
  domain: string;
  /** Path in the repo. */
  path: string;
  size: number;
  sha256?: string;
  gitOid?: string;
  /** The name of the blob in the Hugging Face cache, as the library chooses it. */
  cacheEtag?: string;
}

export async function resolveCommit(hub: Hub): Promise<string> {
  const doing = `resolving ${hub.repo} at ${hub.revision}`;
  return hubCall(hub, doing, undefined, async () => {
    const info = await datasetInfo({
      name: hub.repo,
      revision: hub.revision,
      additionalFields: ['sha'],
      hubUrl: hub.hubUrl,
      accessToken: hub.accessToken,
      fetch: hub.fetch,
    });
    const sha = (info as { sha?: unknown }).sha;
    if (typeof sha !== 'string' || !COMMIT_SHA.test(sha)) {
      throw new UserError(
        `${hub.hubUrl} did not say which commit ${hub.repo} at ${hub.revision} is (no "sha" in its answer); is it a Hugging Face Hub or mirror?`,
      );
    }
    return sha;
  });
}

export async function listTestFiles(hub: Hub, commit: string): Promise<Entry[]> {
  const listed = await hubCall(hub, `listing the files of ${hub.repo}`, undefined, async () => {
    const out: ListFileEntry[] = [];
    for await (const e of listFiles({
      repo: { type: 'dataset', name: hub.repo },
      revision: commit,
      recursive: true,
      hubUrl: hub.hubUrl,
      accessToken: hub.accessToken,
      fetch: hub.fetch,
    })) {
      if (e.type === 'file' && TEST_FILE.test(posix.basename(e.path))) out.push(e);
    }
    return out;
  });
  if (listed.length === 0) {
    throw new UserError(`${hub.repo} at ${hub.revision} has no *_test.jsonl files; is it the AgentWorldBench dataset?`);
  }
  // The official layout keeps the files side by side; if they ever move into a folder, follow the folder with the most of them.
  const byFolder = new Map<string, ListFileEntry[]>();
  for (const e of listed) {
    const folder = posix.dirname(e.path);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), e]);
  }
  const [, chosen] = [...byFolder.entries()].sort(
    ([a, ea], [b, eb]) => eb.length - ea.length || a.split('/').length - b.split('/').length || (a < b ? -1 : 1),
  )[0]!;
  return chosen
    .map((e) => ({
      domain: TEST_FILE.exec(posix.basename(e.path))![1]!,
      path: e.path,
      size: e.size,
      sha256: e.lfs?.oid,
      gitOid: e.oid,
      cacheEtag: e.lfs?.oid ?? e.xetHash ?? e.oid,
    }))
    .sort((a, b) => compareDomains(a.domain, b.domain));
}

export function selectDomains(entries: Entry[], requested: string[] | undefined, where: string): Entry[] {
  if (!requested || requested.length === 0) return entries;
  const available = entries.map((e) => e.domain);
  const unknown = requested.filter((d) => !available.includes(d));
  if (unknown.length) {
    const list = unknown.map((d) => `"${d}"`).join(', ');
    throw new UserError(`no domain ${list} in ${where}; it has: ${available.join(', ')}`);
  }
  return entries.filter((e) => requested.includes(e.domain));
}

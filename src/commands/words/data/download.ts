import type { DownloadFault, HubStep, HubUrlSetting, ListedField } from '../../../core/download/index.js';
import { visible } from '../../../core/shown.js';
import { EXIT, type Words } from '../words.js';

function doing(s: HubStep): string {
  if (s.step === 'resolve') return `resolving ${s.repo} at ${s.revision}`;
  return s.step === 'list' ? `listing the files of ${s.repo}` : `downloading ${s.path}`;
}

function setting(s: HubUrlSetting): string {
  return s === 'option' ? 'the hub URL' : s;
}

function listed(w: ListedField): string {
  return 'path' in w ? `${w.field} for ${w.path}` : w.field;
}

/** The hub's fault (exit 3: a hub that cannot be used), not the user's. */
const hub = (message: string) => ({ message, exit: EXIT.endpoint });

export const DOWNLOAD_WORDS: Words<DownloadFault> = {
  'hub-url-invalid': (f) => `${setting(f.setting)} is not a URL: "${visible(f.value)}"`,
  'hub-url-not-http': (f) => `${setting(f.setting)} must be an http(s) URL, got "${f.url}"`,
  'hub-url-credentials': (f) =>
    `${setting(f.setting)} carries credentials (user:password@): remove them and put the token in ${f.tokenVar} (${f.url})`,
  'hub-url-query': (f) => `${setting(f.setting)} must not have a query or fragment: ${f.url}`,
  'hub-token-malformed': (f) => `${f.source} does not look like a Hugging Face access token (those start with "hf_"); fix it or unset it`,
  'revision-invalid': (f) => `--revision must be a branch, tag or commit, got "${visible(f.revision)}"`,
  'repo-invalid': (f) => `--repo must be OWNER/NAME, such as ${f.example}, got "${visible(f.repo)}"`,
  'offline-no-copy': (f) =>
    `HF_HUB_OFFLINE is set and there is no complete local copy of ${f.repo} at ${f.revision} in ${f.where} (a file missing, or changed since its download); unset HF_HUB_OFFLINE to download it`,
  'domains-not-in-dataset': (f) =>
    `no domain ${f.domains.map((d) => `"${d}"`).join(', ')} in ${f.repo} at ${f.revision}; it has: ${f.available.join(', ')}`,
  'hub-has-no-test-files': (f) => `${f.repo} at ${f.revision} has no *_test.jsonl files; is it the AgentWorldBench dataset?`,
  'hub-revision-not-found': (f) => `no revision "${visible(f.revision)}" in dataset ${f.repo} on ${f.hub}`,
  'hub-file-not-found': (f) => `${f.file ?? 'a file'} is missing from ${f.repo} at ${f.revision} on ${f.hub}`,
  'hub-repo-not-found': (f) => `no dataset repo ${f.repo} on ${f.hub}`,
  'hub-not-found': (f) => `no dataset repo/revision ${f.repo} at ${f.revision} on ${f.hub} (HTTP 404 for ${f.url})`,
  'hub-access-denied': (f) => {
    if (f.hubKind === 'modelscope') {
      const fix =
        f.status === 401
          ? f.tokenSource
            ? 'MODELSCOPE_API_TOKEN was sent but is not accepted: check it'
            : 'set MODELSCOPE_API_TOKEN to a token that can read it'
          : 'the token has no access to it: request access on its page, or use a token that has it';
      const what = f.status === 401 ? 'not signed in to' : 'access denied by';
      return hub(`${what} ${f.hub} for dataset ${f.repo} (HTTP ${f.status}) while ${doing(f.doing)}; ${fix}`);
    }
    const fix = f.tokenSource
      ? `${f.tokenSource} was sent but does not give access: check it, and accept the dataset's terms on its page if it is gated`
      : "if it exists and is private or gated, accept its terms on its page, then set HF_TOKEN to a read token (Access Tokens in your account's settings) or sign in with `hf auth login`";
    return hub(`access denied to dataset ${f.repo} on ${f.hub} (HTTP ${f.status}) while ${doing(f.doing)}; ${fix}`);
  },
  'hub-rate-limited': (f) =>
    hub(`${f.hub} is rate-limiting requests (HTTP 429) while ${doing(f.doing)}; wait a while and run the command again`),
  'hub-http-error': (f) => hub(`${f.hub} answered HTTP ${f.status} while ${doing(f.doing)}; try again later`),
  'hub-redirect-failed': (f) =>
    hub(`${f.host}, where ${f.hub} sent ${f.file ?? 'a file'}, answered HTTP ${f.status} while ${doing(f.doing)}; try again later`),
  'hub-unreachable': (f) => {
    const hint =
      f.hubKind === 'modelscope'
        ? '; check the network and MODELSCOPE_ENDPOINT'
        : f.isDefault
          ? '; check the network, or set HF_ENDPOINT to a mirror'
          : '; check the network and HF_ENDPOINT';
    return hub(`cannot reach ${f.hub} (${visible(f.code)}) while ${doing(f.doing)}${hint}`);
  },
  'hub-connection-broke': (f) =>
    hub(`the connection to ${f.hub} broke while ${doing(f.doing)} (${visible(f.code)}); nothing partial was kept, run the command again`),
  'hub-stalled': (f) =>
    hub(
      `${f.hub} sent nothing, or next to nothing, for ${f.seconds} s while ${doing(f.doing)}; nothing partial was kept (raise --timeout for a slow mirror)`,
    ),
  'hub-oversize': (f) => hub(`${f.hub} sent more than the ${f.limit} bytes expected while ${doing(f.doing)}; nothing of it was kept`),
  'hub-unexpected-answer': (f) => {
    const which = f.hubKind === 'modelscope' ? 'ModelScope' : 'a Hugging Face Hub or mirror';
    const what = f.detail === undefined ? 'not JSON' : visible(f.detail);
    return hub(`unexpected answer from ${f.hub} while ${doing(f.doing)} (${what}); is it ${which}?`);
  },
  'hub-not-success': (f) => hub(`${f.hub} did not answer with success while ${doing(f.doing)}; is it ModelScope?`),
  'hub-stream-failed': (f) => hub(`${doing(f.doing)} from ${f.hub} failed: ${visible(f.detail)}`),
  'hub-no-commit': (f) =>
    hub(`${f.hub} did not say which commit ${f.repo} at ${f.revision} is (no "sha" in its answer); is it a Hugging Face Hub or mirror?`),
  'hub-no-file-list': (f) => hub(`${f.hub} sent a listing without a file list; is it ModelScope?`),
  'hub-too-many-files': (f) => hub(`${f.hub} lists more than ${f.max} files for ${f.repo}; refusing this mirror`),
  'hub-listing-unsafe': (f) =>
    hub(`${f.hub} lists a test file with an unsafe ${listed(f.what)} (${visible(f.value)}); refusing this mirror`),
  'hub-bad-revision': (f) => hub(`${f.hub} lists ${f.path} with an unusable Revision (${visible(f.value)}); refusing this mirror`),
  'hub-file-missing': (f) => `${f.path} is missing from ${f.repo} at ${f.commit} on ${f.hub}`,
  'hub-file-too-big': (f) =>
    hub(`${f.hub} lists ${f.path} at ${f.size} bytes, over the ${f.cap}-byte limit; refusing it (raise --max-file-mb if it is real)`),
  'hub-wrong-range': (f) => hub(`${f.hub} answered a request for ${f.path} from byte ${f.offset} with another range`),
  'hub-file-longer': (f) => hub(`${f.hub} sent more than the ${f.size} bytes listed for ${f.path}; nothing of it was kept`),
  'hub-file-damaged': (f) => {
    const what =
      f.written !== undefined
        ? `ends after ${f.written} of the ${f.size} bytes listed for it`
        : 'does not match the checksum listed for it';
    return hub(`${f.path} from ${f.hub} ${what} (${f.tries} tries); nothing of it was kept`);
  },
};

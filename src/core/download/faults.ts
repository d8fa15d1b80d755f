import type { HubKind } from '../hubs.js';

/*
 * What can go wrong in download/ that the user can fix, as data; worded in
 * src/commands/words/download.ts. Hub addresses are carried as shownUrl gives
 * them (no credentials, query or fragment), so a fault holds no secret.
 */

/** What the run was doing against the hub when it failed. */
export type HubStep =
  { step: 'resolve'; repo: string; revision: string } | { step: 'list'; repo: string } | { step: 'download'; path: string };

/** Where a hub address came from: an environment variable, or the option. */
export type HubUrlSetting = 'HF_ENDPOINT' | 'MODELSCOPE_ENDPOINT' | 'MODELSCOPE_DOMAIN' | 'option';

/** A listed value that is not safe to use: which one, and for which file. */
export type ListedField = { field: 'path' | 'file name' } | { field: 'size' | 'SHA-256' | 'oid' | 'LFS oid' | 'LFS size'; path: string };

export type DownloadFault =
  // Settings and options (exit 2).
  | { kind: 'hub-url-invalid'; setting: HubUrlSetting; value: string }
  | { kind: 'hub-url-not-http'; setting: HubUrlSetting; url: string }
  | { kind: 'hub-url-credentials'; setting: HubUrlSetting; url: string; tokenVar: string }
  | { kind: 'hub-url-query'; setting: HubUrlSetting; url: string }
  | { kind: 'hub-token-malformed'; source: string }
  | { kind: 'revision-invalid'; revision: string }
  | { kind: 'repo-invalid'; repo: string; example: string }
  | { kind: 'offline-no-copy'; repo: string; revision: string; where: string }
  | { kind: 'domains-not-in-dataset'; domains: string[]; repo: string; revision: string; available: string[] }
  | { kind: 'hub-has-no-test-files'; repo: string; revision: string }
  // The hub's answers (a wrong name is exit 2, the rest exit 3).
  | { kind: 'hub-revision-not-found'; hub: string; repo: string; revision: string }
  | { kind: 'hub-file-not-found'; hub: string; repo: string; revision: string; file: string | undefined }
  | { kind: 'hub-repo-not-found'; hub: string; repo: string }
  | { kind: 'hub-not-found'; hub: string; repo: string; revision: string; url: string }
  | {
      kind: 'hub-access-denied';
      hubKind: HubKind;
      hub: string;
      repo: string;
      status: number;
      doing: HubStep;
      tokenSource: string | undefined;
    }
  | { kind: 'hub-rate-limited'; hub: string; doing: HubStep }
  | { kind: 'hub-http-error'; hub: string; status: number; doing: HubStep }
  | { kind: 'hub-redirect-failed'; host: string; hub: string; file: string | undefined; status: number; doing: HubStep }
  | { kind: 'hub-unreachable'; hubKind: HubKind; hub: string; isDefault: boolean; code: string; doing: HubStep }
  | { kind: 'hub-connection-broke'; hub: string; code: string; doing: HubStep }
  | { kind: 'hub-stalled'; hub: string; seconds: number; doing: HubStep }
  | { kind: 'hub-oversize'; hub: string; limit: number; doing: HubStep }
  /** `detail`: what the client library said (secrets removed); none when the answer was not JSON. */
  | { kind: 'hub-unexpected-answer'; hubKind: HubKind; hub: string; doing: HubStep; detail?: string }
  | { kind: 'hub-not-success'; hub: string; doing: HubStep }
  | { kind: 'hub-stream-failed'; hub: string; doing: HubStep; detail: string }
  | { kind: 'hub-no-commit'; hub: string; repo: string; revision: string }
  | { kind: 'hub-no-file-list'; hub: string }
  | { kind: 'hub-too-many-files'; hub: string; repo: string; max: number }
  | { kind: 'hub-listing-unsafe'; hub: string; what: ListedField; value: string }
  | { kind: 'hub-bad-revision'; hub: string; path: string; value: string }
  | { kind: 'hub-file-missing'; hub: string; repo: string; commit: string; path: string }
  | { kind: 'hub-file-too-big'; hub: string; path: string; size: number; cap: number }
  | { kind: 'hub-wrong-range'; hub: string; path: string; offset: number }
  | { kind: 'hub-file-longer'; hub: string; path: string; size: number }
  /** `written`: set when the file ended short; else its checksum did not match. */
  | { kind: 'hub-file-damaged'; hub: string; path: string; size: number; written?: number; tries: number };

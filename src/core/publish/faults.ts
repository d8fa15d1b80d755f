/*
 * What can go wrong in publish/ that the user can fix, as data; worded in
 * src/commands/words/results/publish.ts. Hub addresses are carried as shownUrl
 * gives them; a fault never holds the token.
 */
import type { PublishedGap } from '../score/faults.js';

/** What publish was doing on the Hub: making the traces' dataset repo, uploading to it, or opening the pull request. */
export type PublishStep = 'create-repo' | 'upload-traces' | 'pull-request';

export type PublishFault =
  /** The run is not one `score --with-published` would rank (`gaps`), and --allow-unranked was not given. */
  | { kind: 'publish-unranked'; file: string; gaps: PublishedGap[] }
  /** Nothing to do: neither --out nor --repo. */
  | { kind: 'publish-nowhere' }
  /** A judged file of a choice mode (turing, pairwise): no rubric scores to publish. */
  | { kind: 'publish-not-rubric'; file: string; mode: string }
  /** No domain has a score (every row failed). */
  | { kind: 'publish-no-scores'; file: string }
  /** --repo or --traces is not OWNER/NAME. */
  | { kind: 'publish-repo-invalid'; option: string; value: string }
  /** --repo or --traces without HF_TOKEN (the only place the token is read from). */
  | { kind: 'publish-no-token' }
  /** HF_TOKEN is not a Hugging Face token (`hf_…`): the library refuses it before any request. */
  | { kind: 'publish-token-malformed' }
  /** The Hub answered with an error; `message`: what it said (its `error` field), shown as text. */
  | { kind: 'publish-refused'; hub: string; repo: string; step: PublishStep; status: number; message: string }
  | { kind: 'publish-unreachable'; hub: string; step: PublishStep; code: string };

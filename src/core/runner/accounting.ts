import { VERSION } from '../../version.js';
import type { Manifest, ManifestSettings, MixedRun } from '../schemas/index.js';
import type { Outcome } from '../schemas/index.js';

export interface DomainTally {
  total: number;
  /** Rows with a final result, failures among them. */
  done: number;
  /** Rows left without a final result (to redo). */
  failed: number;
  /** Final results that are failures (an empty generation, an unparseable judge reply). */
  finalFailed: number;
  /** infer: rows whose reply had no content; judge: rows without a prediction because their inference failed. */
  empty: number;
  /** infer: rows cut off by the token limit. */
  truncated: number;
  /** Rows whose prediction came back with no output once reasoning is removed (noOutput; judged as "No output"). */
  noOutput: number;
  /** infer: those of them inside a `<think>` never closed (judge and score cannot tell: they see the extraction). */
  noOutputUnclosed: number;
  /** judge --mode pairwise: final failures that are rows with no reference to compare with, never sent (not the run's failures). */
  unpaired: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  /** Prompt tokens served from a prefix cache; undefined while no row reported them (vLLM and SGLang report them only when asked). */
  cachedTokens?: number;
}

export function emptyTally(): DomainTally {
  return {
    total: 0,
    done: 0,
    failed: 0,
    finalFailed: 0,
    empty: 0,
    truncated: 0,
    noOutput: 0,
    noOutputUnclosed: 0,
    unpaired: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
  };
}

/**
 * Rows written whose result is a failure, as score counts them: final failures (rows with no reference to compare
 * with aside: never sent, not the run's failures) and rows to retry. The one meaning of "failed" in the summary,
 * the progress line and the manifest.
 */
export function failedRows(t: Pick<DomainTally, 'failed' | 'finalFailed' | 'unpaired'>): number {
  return t.finalFailed - t.unpaired + t.failed;
}

/** The tallies of a run, per domain. */
export class Tallies {
  readonly perDomain = new Map<string, DomainTally>();

  of(domain: string): DomainTally {
    let t = this.perDomain.get(domain);
    if (!t) this.perDomain.set(domain, (t = emptyTally()));
    return t;
  }

  /** Counts an output row's outcome. */
  count(domain: string, outcome: Outcome): DomainTally {
    const t = this.of(domain);
    if (outcome === 'incomplete') t.failed++;
    else t.done++;
    if (outcome === 'failed') t.finalFailed++;
    return t;
  }

  /** Rows without a final result: what makes a run incomplete. */
  remaining(): number {
    let n = 0;
    for (const t of this.perDomain.values()) n += t.total - t.done;
    return n;
  }
}

export interface ManifestStart {
  stage: Manifest['stage'];
  dataset: Manifest['dataset'];
  settings: ManifestSettings;
  upstream?: unknown;
  label?: string;
  /** Batch API batches whose replies the output holds (--batch); repeated ids are kept once. */
  batches?: string[];
  /** Forced resumes into rows made under other settings (the manifest's `mixed`). */
  mixed?: MixedRun[];
  /** When the output was first started (an earlier run's), else now. */
  startedAt: string;
}

export function newManifest(m: ManifestStart): Manifest {
  return {
    format: 'agentworldbench-manifest',
    version: 1,
    stage: m.stage,
    tool: { name: 'agentworldbench', version: VERSION },
    ...(m.label !== undefined ? { label: m.label } : {}),
    ...(m.batches?.length ? { batches: [...new Set(m.batches)] } : {}),
    dataset: m.dataset,
    settings: m.settings,
    ...(m.mixed?.length ? { mixed: m.mixed } : {}),
    ...(m.upstream !== undefined ? { upstream: m.upstream } : {}),
    started_at: m.startedAt,
    updated_at: new Date().toISOString(),
    complete: false,
    counts: { total: 0, done: 0, failed: 0, per_domain: {} },
    usage: { requests: 0, prompt_tokens: 0, completion_tokens: 0, reasoning_tokens: 0 },
  };
}

/** The manifest's counts, usage and completeness from the tallies. */
export function fillCounts(m: Manifest, tallies: Tallies, endpoints?: Record<string, { requests: number; failures: number }>): void {
  const usage: Manifest['usage'] & { reasoning_tokens: number } = {
    requests: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    reasoning_tokens: 0,
  };
  const counts: Manifest['counts'] & { to_retry: number } = { total: 0, done: 0, failed: 0, to_retry: 0, per_domain: {} };
  for (const [d, t] of tallies.perDomain) {
    const failed = failedRows(t);
    counts.total += t.total;
    counts.done += t.done;
    counts.failed += failed;
    counts.to_retry += t.failed;
    usage.prompt_tokens += t.promptTokens;
    usage.completion_tokens += t.completionTokens;
    usage.reasoning_tokens += t.reasoningTokens;
    if (t.cachedTokens !== undefined) usage.cached_tokens = (usage.cached_tokens ?? 0) + t.cachedTokens;
    counts.per_domain[d] = {
      total: t.total,
      done: t.done,
      failed,
      to_retry: t.failed,
      empty: t.empty,
      truncated: t.truncated,
      no_output: t.noOutput,
    };
  }
  if (endpoints) {
    for (const s of Object.values(endpoints)) usage.requests += s.requests;
    m.endpoints = endpoints;
  }
  m.counts = counts;
  m.usage = usage;
  m.updated_at = new Date().toISOString();
  m.complete = counts.done === counts.total;
  if (m.complete) m.finished_at = m.updated_at;
}

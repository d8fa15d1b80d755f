import type { z } from 'zod';
import type { BatchStatus, BatchTarget, EndpointNotice, EndpointPool, KeySource } from '../endpoints/index.js';
import type { BatchPhase, BatchPhaseOptions, RowChat } from '../runner/index.js';
import type { DatasetRow } from '../schemas/index.js';
import type { MemberValue } from './config.js';

/** What a stage command asks of the endpoints besides its rows' requests: one pool's, or a panel's over its members' pools. */
export type StagePool = Pick<
  EndpointPool,
  'stopSending' | 'batchTarget' | 'encode' | 'chat' | 'preflight' | 'noteAnswered' | 'stats' | 'usageLost' | 'pacing' | 'endNotices'
>;

/**
 * A panel's members' pools as one, for the run's checks, interrupts and summary: each member's
 * endpoints checked and counted (stats keyed by member and URL). The rows' requests go to the
 * members' chats (panelStage, PanelBatches); encode, chat and batchTarget are the first member's,
 * never used by a panel's rows: with --batch each member has its own batches (PanelBatches).
 */
export class PanelPools implements StagePool {
  constructor(private readonly members: readonly { name: string; pool: EndpointPool }[]) {}

  private get first(): EndpointPool {
    return this.members[0]!.pool;
  }

  stopSending(): void {
    for (const m of this.members) m.pool.stopSending();
  }

  batchTarget(): ReturnType<EndpointPool['batchTarget']> {
    return this.first.batchTarget();
  }

  encode(...args: Parameters<EndpointPool['encode']>): ReturnType<EndpointPool['encode']> {
    return this.first.encode(...args);
  }

  chat(...args: Parameters<EndpointPool['chat']>): ReturnType<EndpointPool['chat']> {
    return this.first.chat(...args);
  }

  async preflight(): Promise<EndpointNotice[]> {
    const warnings = await Promise.all(this.members.map((m) => m.pool.preflight()));
    return warnings.flat();
  }

  noteAnswered(): void {
    for (const m of this.members) m.pool.noteAnswered();
  }

  stats(): ReturnType<EndpointPool['stats']> {
    return Object.fromEntries(
      this.members.flatMap((m) => Object.entries(m.pool.stats()).map(([url, s]) => [`${m.name} ${url}`, s] as const)),
    );
  }

  /** The members' pacing: the first member that is held back by its limits, if any. */
  pacing(): ReturnType<EndpointPool['pacing']> {
    return this.members.map((m) => m.pool.pacing()).find((p) => p !== undefined);
  }

  get usageLost(): number {
    return this.members.reduce((n, m) => n + m.pool.usageLost, 0);
  }

  endNotices(): EndpointNotice[] {
    return this.members.flatMap((m) => m.pool.endNotices());
  }
}

/** What building a panel needs from judge's config. */
export interface PanelRequest {
  models: readonly string[];
  /** --judge-base-url: every member's unless --member-base-url names its own. */
  urls: readonly string[];
  apiKey: string;
  key: KeySource;
  memberUrls: readonly MemberValue[];
  memberKeys: readonly MemberValue[];
}

/**
 * Each member's pool: its own URLs and key, else the judge's (the config checked that every
 * member has an endpoint and every name is a member); `make` builds a pool (the run's settings).
 */
export function panelMembers(
  r: PanelRequest,
  make: (o: { urls: string[]; apiKey: string; model: string; key: KeySource }) => EndpointPool,
): { name: string; pool: EndpointPool }[] {
  return r.models.map((name) => {
    const own = r.memberUrls.filter((u) => u.member === name).map((u) => u.value);
    const key = r.memberKeys.filter((k) => k.member === name).at(-1)?.value;
    const source: KeySource = key === undefined ? r.key : { from: 'option', option: `--member-api-key ${name}=KEY` };
    return { name, pool: make({ urls: own.length ? own : [...r.urls], apiKey: key ?? r.apiKey, model: name, key: source }) };
  });
}

/** What every batch of a run shares: where the run writes, its rows and settings, the limits and the stop. */
export type BatchCommon = Omit<BatchPhaseOptions, keyof BatchTarget | 'stem' | 'onStatus'>;

/** The status reports of the batches of `who` (a panel's member). */
export type BatchProgress = (who: string) => (s: BatchStatus) => void;

/** What a run asks of its batches: one BatchPhase's surface. */
export type StageBatch = Pick<BatchPhase<z.ZodType<DatasetRow>>, 'check' | 'run' | 'chat' | 'ids' | 'notInBatch' | 'clear' | 'close'>;

/** A pool's chat for a row's requests, without a batch. */
export function poolChat(pool: Pick<StagePool, 'encode' | 'chat'>): RowChat {
  return { encode: (request) => pool.encode(request), send: (_n, body, signal) => pool.chat(body, signal) };
}

import type { EndpointNotice, EndpointPool, KeySource } from '../../core/endpoints/index.js';
import { UserError } from '../../core/errors.js';

/** What a stage command asks of the endpoints besides its rows' requests: one pool's, or a panel's over its members' pools. */
export type StagePool = Pick<
  EndpointPool,
  'stopSending' | 'batchTarget' | 'encode' | 'chat' | 'preflight' | 'noteAnswered' | 'stats' | 'pacing' | 'endNotices'
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

  endNotices(): EndpointNotice[] {
    return this.members.flatMap((m) => m.pool.endNotices());
  }
}

/** What building a panel needs from judge's options. */
export interface PanelRequest {
  models: readonly string[];
  /** --judge-base-url: every member's unless --member-base-url names its own. */
  urls: readonly string[];
  apiKey: string;
  key: KeySource;
  memberUrls: readonly { member: string; value: string }[];
  memberKeys: readonly { member: string; value: string }[];
}

/**
 * Each member's pool (its own URLs and key, else the judge's), refusing names that are no
 * member and members left without an endpoint; `make` builds a pool (the run's settings).
 */
export function panelMembers(
  r: PanelRequest,
  make: (o: { urls: string[]; apiKey: string; model: string; key: KeySource }) => EndpointPool,
): { name: string; pool: EndpointPool }[] {
  for (const { member } of [...r.memberUrls, ...r.memberKeys]) {
    if (!r.models.includes(member)) throw new UserError(`${member} is not a member of the panel (--judge-model ${r.models.join(',')})`);
  }
  const unserved = r.models.filter((m) => !r.urls.length && !r.memberUrls.some((u) => u.member === m));
  if (unserved.length) {
    throw new UserError(`--judge-base-url is required (or --member-base-url NAME=URL for ${unserved.join(', ')})`);
  }
  return r.models.map((name) => {
    const own = r.memberUrls.filter((u) => u.member === name).map((u) => u.value);
    const key = r.memberKeys.filter((k) => k.member === name).at(-1)?.value;
    const source: KeySource = key === undefined ? r.key : { from: 'option', option: `--member-api-key ${name}=KEY` };
    return { name, pool: make({ urls: own.length ? own : [...r.urls], apiKey: key ?? r.apiKey, model: name, key: source }) };
  });
}

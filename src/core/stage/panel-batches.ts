import type { EndpointPool } from '../endpoints/index.js';
import type { PanelStage } from '../judge/index.js';
import { BatchPhase, type RowChat } from '../runner/index.js';
import type { predictionRowSchema } from '../schemas/index.js';
import { poolChat, type BatchCommon, type BatchProgress, type StageBatch } from './pools.js';

/**
 * `judge --batch` with a panel: a batch holds one model, so each member has its own batches, to its
 * own endpoint (its first base URL), with its own state `OUTPUT.member-N.batches.json`, holding its
 * request for every row that asks it something. A row's members then answer from their batches first
 * and online for what the batches lack, as one judge's --batch does.
 */
export class PanelBatches {
  private phases: BatchPhase<typeof predictionRowSchema>[] = [];

  constructor(private readonly members: readonly { name: string; pool: EndpointPool }[]) {}

  /**
   * Member `n`'s chat for a row: its batch's reply first, else its pool. A request's place is its
   * place among the member's own requests of the row (0, or one of --repeat's K), as in its batch.
   */
  chat(n: number, key: string): RowChat {
    const online = poolChat(this.members[n]!.pool);
    const phase = this.phases[n];
    return phase ? phase.chat(key, online) : online;
  }

  /** The members' batches, as the run sees one (runStage's `batches`). */
  open(stage: PanelStage, common: BatchCommon, progress: BatchProgress): StageBatch {
    const phases = this.members.map((m, n) => {
      const own = { ...stage, requests: (row: Parameters<PanelStage['requests']>[0], key: string) => stage.memberRequests(n, row, key) };
      return new BatchPhase(own, {
        ...m.pool.batchTarget(),
        ...common,
        stem: `${common.output}.member-${n + 1}`,
        onStatus: progress(m.name),
      });
    });
    this.phases = phases;
    const all = async (each: (p: BatchPhase<typeof predictionRowSchema>) => Promise<void>) => {
      await Promise.all(phases.map(each));
    };
    return {
      check: () => all((p) => p.check()),
      run: (doneKeys) => all((p) => p.run(doneKeys)),
      // The panel's rows ask through their members' chats (chat above), never the run's.
      chat: (_key, online) => online,
      get ids() {
        return phases.flatMap((p) => p.ids);
      },
      get notInBatch() {
        return phases.reduce((n, p) => n + p.notInBatch, 0);
      },
      clear: () => all((p) => p.clear()),
      close: () => all((p) => p.close()),
    };
  }
}

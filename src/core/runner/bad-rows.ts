import { fail, type FaultError } from '../errors.js';
import type { RunnerFault } from './faults.js';
import type { BadRow, BadRowMode } from '../rows/index.js';
import type { Tallies } from './accounting.js';

/**
 * The bad rows a run meets while sending. With `skip` each is reported and
 * leaves the count of rows to do. With `stop` the first bad row in plan order
 * found so far ends the run: the schedule reads rows out of file order, so
 * rows before it may not have been sent yet and still are, while rows after
 * it are no longer sent (those already in flight finish and are saved).
 */
export class BadRows {
  private cutoff: { index: number; bad: BadRow } | undefined;

  constructor(
    private readonly mode: BadRowMode,
    private readonly tallies: Tallies,
    private readonly onSkipped: (bad: BadRow) => void,
  ) {}

  /** The row at plan position `index`, counted under `domain`, is bad. */
  met(bad: BadRow, domain: string, index: number): void {
    if (this.mode === 'stop') {
      if (!this.cutoff || index < this.cutoff.index) this.cutoff = { index, bad };
      return;
    }
    const t = this.tallies.of(domain);
    t.total = Math.max(0, t.total - 1);
    // A line whose task could not be read was counted under no domain ('?'): once skipped, nothing of it is left to show.
    if (domain === '?' && t.total === 0) this.tallies.perDomain.delete(domain);
    this.onSkipped(bad);
  }

  /** Whether the row at plan position `index` comes after the bad row that stops the run. */
  pastCutoff(index: number): boolean {
    return this.cutoff !== undefined && index > this.cutoff.index;
  }

  /** The error that ends the run once it has stopped at a bad row; `interrupted`: Ctrl-C came too. */
  stopError(interrupted: boolean): FaultError<RunnerFault> | undefined {
    if (!this.cutoff) return undefined;
    return fail({ kind: 'stopped-at-bad-row', bad: this.cutoff.bad, rowsBefore: this.cutoff.index > 0 && !interrupted });
  }
}

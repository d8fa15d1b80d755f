import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { FaultError } from '../errors.js';
import { withOwnSignal } from '../signals.js';

/** What a task leaves to do once its slot is free. */
export type AfterSlot = () => Promise<void>;

/**
 * The slots: at most `concurrency` tasks run at once, and a quarter as many
 * more wait ready (read and built), so when a burst of answers frees many
 * slots at once they are refilled without waiting for the next multi-MB rows
 * to be read one by one (a ready request is memory held before it is sent,
 * so no more than that; the schedule's byte budget counts them).
 *
 * A task may hand back what is left to do once its request is answered
 * (saving the result): that runs outside the slot, so a burst of answers
 * waiting on one file's writes does not keep slots empty; at most about
 * `concurrency` of those wait at once.
 *
 * Each task gets its own signal, aborted by cancel(): the openai client
 * hooks a listener onto the signal it is given and never unhooks it, so a
 * signal per row keeps the listeners to the rows in flight.
 */
export class Dispatcher {
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly cancelled = new AbortController();
  private firstError: { error: unknown } | undefined;
  private stopped = false;
  /** Waiters for the next freed slot or finished task. */
  private waiters: (() => void)[] = [];

  /** Set once finish() has begun the grace: the tasks in flight are let finish until it ends. */
  private graceBegun = false;

  /**
   * `graceMs`: once the dispatch is told to finish (finish(): a first Ctrl-C, or a task's fault that stops the run for
   * the user to fix something), how long the tasks in flight may go on, so that answers already under way (and paid
   * for) are saved; undefined: a fault cancels them at once.
   */
  constructor(
    private readonly concurrency: number,
    private readonly readAhead = Math.ceil(concurrency / 4),
    private readonly graceMs?: number,
  ) {
    this.limit = pLimit(concurrency);
    setMaxListeners(0, this.cancelled.signal);
  }

  /** The first error a task threw; once there is one, no new task starts (the ones in flight: see graceMs). */
  get error(): { error: unknown } | undefined {
    return this.firstError;
  }

  /** Resolves once there is room for one more task (running or ready), and answered ones are not piling up unsaved. */
  async room(): Promise<void> {
    while (
      this.limit.activeCount + this.limit.pendingCount >= this.concurrency + this.readAhead ||
      this.inFlight.size >= 2 * this.concurrency + this.readAhead
    )
      await this.change();
  }

  /** Resolves once a queued task has freed its slot or ended: true, or false at once when none is queued. */
  async settled(): Promise<boolean> {
    if (!this.inFlight.size) return false;
    await this.change();
    return true;
  }

  private change(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private changed(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Queues a task; what it hands back runs once its slot is free. A task (or what it hands back) that
   * throws ends the dispatch (failWith).
   */
  submit(task: (signal: AbortSignal) => Promise<AfterSlot | void>): void {
    const p: Promise<void> = this.limit(async () => {
      if (this.stopped || this.firstError || this.cancelled.signal.aborted) return undefined;
      // Noted before the slot is freed, so the task queued next sees it and does not start.
      return this.run(task).catch((error: unknown) => this.failWith(error, true));
    })
      .then((after) => {
        this.changed();
        return after?.();
      })
      // Saving failed (a full disk): the answers in flight could not be saved either.
      .catch((error: unknown) => this.failWith(error, false))
      .finally(() => {
        this.inFlight.delete(p);
        this.changed();
      });
    this.inFlight.add(p);
  }

  /**
   * The first error ends the dispatch: the tasks in flight are cancelled, or, for a fault a task's
   * request met (`asking`), let finish within graceMs.
   */
  private failWith(error: unknown, asking: boolean): undefined {
    if (this.firstError) return undefined;
    this.firstError = { error };
    if (asking && error instanceof FaultError && this.graceMs !== undefined) this.finish();
    else this.cancel();
    return undefined;
  }

  private run(task: (signal: AbortSignal) => Promise<AfterSlot | void>): Promise<AfterSlot | void> {
    return withOwnSignal(this.cancelled.signal, task);
  }

  /** Starts no queued task; the ones running go on for graceMs (without one, until they end), then are cancelled. */
  finish(): void {
    this.stopped = true;
    if (this.graceBegun || this.graceMs === undefined) return;
    this.graceBegun = true;
    setTimeout(() => this.cancel(), this.graceMs).unref();
  }

  /** Aborts the tasks in flight; queued ones never start. */
  cancel(): void {
    this.cancelled.abort();
  }

  /** Whether a fault has stopped the dispatch and tasks in flight are being let finish (graceMs). */
  get finishing(): boolean {
    return this.firstError !== undefined && !this.cancelled.signal.aborted && this.inFlight.size > 0;
  }

  /** Waits for every queued task. */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.all(this.inFlight);
  }
}

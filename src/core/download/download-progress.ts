/* Progress events for each file, at most one every PROGRESS_INTERVAL_MS while bytes arrive, the latest always shown. */

export interface DownloadProgress {
  file: string;
  bytes: number;
  total: number;
  done: boolean;
  skipped?: boolean;
}

/** Chunks arrive every few KB; a tenth of a second is plenty for a progress bar. */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * The throttle (pure): an event at `now`, the last one sent at `sentAt` (undefined: none yet), is sent at once
 * (`'now'`) when it is a file's first or last (`edge`: its start at 0 bytes, its end) or the interval has passed;
 * otherwise it is held and the latest held one is sent when the interval ends (the time returned). Trailing edge:
 * a body that stalls right after a chunk still shows that chunk's bytes.
 */
export function progressDue(sentAt: number | undefined, now: number, edge: boolean, interval = PROGRESS_INTERVAL_MS): 'now' | number {
  if (edge || sentAt === undefined || now - sentAt >= interval) return 'now';
  return sentAt + interval;
}

/** How the reporter reads the time and waits for a held event's turn (a test's own clock; by default Date.now and an unref'd timer). */
export interface ProgressClock {
  now(): number;
  /** Runs `fn` after `ms`; returns what cancels it. */
  after(ms: number, fn: () => void): () => void;
}

const SYSTEM_CLOCK: ProgressClock = {
  now: Date.now,
  after: (ms, fn) => {
    // Never keeps the process alive: a held event is worth showing, not waiting for.
    const timer = setTimeout(fn, ms).unref();
    return () => clearTimeout(timer);
  },
};

export interface ProgressReporter {
  /** A file's byte count so far; `done` once it is complete (`skipped`: it was already here). */
  report(bytes: number, done: boolean, skipped?: boolean): void;
  /**
   * Reports a transfer: 0 bytes as it starts, each count `fetch` gives, and the whole file once it resolves. When it
   * fails (a fault, Ctrl-C), an event still held is dropped, so nothing is shown after the failure.
   */
  transfer<T>(fetch: (onBytes: (bytes: number) => void) => Promise<T>): Promise<T>;
}

export function progressReporter(
  onProgress: ((e: DownloadProgress) => void) | undefined,
  file: string,
  total: number,
  clock: ProgressClock = SYSTEM_CLOCK,
): ProgressReporter {
  let sentAt: number | undefined;
  let held: DownloadProgress | undefined;
  let cancel: (() => void) | undefined;
  const close = () => {
    cancel?.();
    cancel = held = undefined;
  };
  const send = (e: DownloadProgress) => {
    close();
    sentAt = clock.now();
    onProgress?.(e);
  };
  const report = (bytes: number, done: boolean, skipped?: boolean) => {
    if (!onProgress) return;
    // Progress never passes 100%, whatever a server sends before it is cut off.
    const e = { file, bytes: Math.min(bytes, total), total, done, ...(skipped ? { skipped: true } : {}) };
    const now = clock.now();
    const due = progressDue(sentAt, now, done || bytes === 0);
    if (due === 'now') return send(e);
    held = e;
    cancel ??= clock.after(due - now, () => held && send(held));
  };
  return {
    report,
    async transfer(fetch) {
      report(0, false);
      try {
        const done = await fetch((bytes) => report(bytes, false));
        report(total, true);
        return done;
      } catch (err) {
        close();
        throw err;
      }
    },
  };
}

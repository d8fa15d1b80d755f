import type { BatchStatus, EndpointNotice } from '../endpoints/index.js';
import type { HubKind } from '../dataset/index.js';
import type { BadRow } from '../rows/index.js';
import type { Notice } from '../errors.js';
import type { DryRunCount, Spending, StageEvent, StageResult } from '../runner/index.js';

/*
 * What a stage tells the one who shows it (in the manner of inspect_ai's
 * display): typed events in, nothing back. Core never words them; the
 * command's display turns them into a progress bar, lines and a summary.
 */

/** A median and a 90th percentile over `rows` rows. */
export interface Spread {
  median: number;
  p90: number;
  rows: number;
}

/** How a run ended, for its last words and exit code. */
export interface Ending {
  stopped: boolean;
  /** Rows left to do: the same command does them. */
  remaining: number;
  /** Rows whose final result is a failure (an empty generation, a reply that never parsed), unpaired rows left out. */
  failed: number;
  /**
   * --max-cost stopped the run: the cap, what the output's requests cost, and `next`, a cap likely to finish the rows
   * left (the mean cost per row so far for each, plus the headroom of the request the cap refused).
   */
  capped?: { cap: number; spent: number; next: number };
}

export type StageNotice =
  /** infer without --data: the dataset is fetched (or taken from the cache). */
  | { type: 'fetching'; repo: string; revision: string; hub: HubKind }
  /**
   * infer --data: files that differ from what their download of `repo`@`commit` recorded (edited since); the run goes on,
   * recording their own hashes and no commit. `dir`: the download folder that recorded them (a cache snapshot has none).
   */
  | { type: 'data-edited'; files: string[]; repo: string; commit: string; dir?: string }
  /** The endpoint check set endpoints aside (unreachable, silent); the run goes on with the others. */
  | { type: 'set-aside'; warnings: EndpointNotice[] }
  /** judge: the predictions' infer run has rows still to write: this run judges only those there. */
  | { type: 'upstream-unfinished'; predictions: string; unwritten: number; total: number }
  /** pairwise: rows of one side only (keys as row keys): `candidate` rows are written unpaired, `reference` ones left out. */
  | { type: 'unpaired'; side: 'candidate' | 'reference'; keys: readonly string[]; predictions: string; reference: string }
  /** --dry-run with --on-bad-row skip: a row the run would skip. */
  | { type: 'would-skip'; stage: string; bad: BadRow }
  /** --dry-run: the count, nothing sent or written. */
  | {
      type: 'dry-run';
      stage: string;
      count: DryRunCount;
      output: string;
      /** infer --horizon: the teacher-forced run of the same rows, which this one's requests and tokens are a multiple of. */
      teacherForced?: { requests: number; promptTokens: number };
    }
  /** The run into `output` starts: `limitedBy` says what holds requests back now, when endpoints state rate limits. */
  | { type: 'running'; stage: string; output: string; limitedBy: () => string | undefined }
  /** --max-cost refused a request: no new one goes; `spending.inFlight` is the most the requests still in flight can cost. */
  | { type: 'cost-cap'; stage: string; spending: Spending }
  /** --batch: a batch's status, of a panel's member `who` when there is one. */
  | { type: 'batch'; stage: string; who?: string; status: BatchStatus }
  /**
   * The run is over: its result, how it ended, what it saw of streams (--stream) and batches (--batch), and the
   * secrets its command line holds (kept out of a command printed to run again).
   */
  | {
      type: 'finished';
      stage: string;
      output: string;
      result: StageResult;
      ending: Ending;
      timings?: { ttft?: Spread; decode?: Spread };
      /** Requests no batch held (asked online), and streams whose usage never came. */
      notInBatch: number;
      usageLost: number;
      /** What the endpoints tell at the end (whole replies given up on under way), and the predictions without output. */
      notices: Notice[];
      secrets: string[];
      /** Whether a run could resume the output: not a stream (/dev/null, stdout, a FIFO), which keeps nothing to resume from. */
      resumable: boolean;
    }
  /** A warning while the run goes on (predictions without output passing a few per cent). */
  | { type: 'warning'; notice: Notice }
  /** judge: rows with no prediction to judge, because their inference failed. */
  | { type: 'unpredicted'; rows: number; predictions: string }
  /** Every row has a result that is not a failure: the next command may run on `output`. */
  | { type: 'next-step'; stage: string; output: string }
  /** The run is over, finished or not (an error ends it too): what it drew stops. */
  | { type: 'closed'; stage: string };

/** What a display receives: the runner's events as they come, and the stage's notices. */
export type DisplayEvent = StageEvent | StageNotice;

export interface StageDisplay {
  event(e: DisplayEvent): void;
}

/** A run's stop and abort: a first Ctrl-C stops sending, a second cancels the requests in flight. */
export interface RunInterrupts {
  stop: AbortSignal;
  abort: AbortSignal;
  dispose(): void;
}

/**
 * How Ctrl-C reaches a stage: signal handling is the command's. `step` runs a step Ctrl-C ends
 * as a whole (the endpoint check, the download); `run` is installed for the run itself.
 */
export interface StageSignals {
  step<T>(step: 'check' | 'download', stage: string, work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  run(stage: string, graceSeconds: number): RunInterrupts;
}

/** No signals: for a caller that stops nothing (tests, a library use). */
export const NO_SIGNALS: StageSignals = {
  step: (_step, _stage, work) => work(new AbortController().signal),
  run: () => ({ stop: new AbortController().signal, abort: new AbortController().signal, dispose() {} }),
};

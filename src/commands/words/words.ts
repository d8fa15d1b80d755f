import type { Fault, Notice } from '../../core/errors.js';

/** Exit codes, as the README's CI section documents them. */
export const EXIT = {
  /** Rows are left that the same command run again completes. */
  rowsLeft: 1,
  /** A usage or input mistake. */
  usage: 2,
  /** An endpoint or hub that cannot be used. */
  endpoint: 3,
  /** The regression gate failed: a regression, or runs not comparable. */
  gate: 4,
  /** The gate failed on an incomplete candidate: rows missing, or failed (no generation, no readable judgement) where the baseline's are valid. */
  gateIncomplete: 5,
  /** The gate could not test Overall, or a domain asked for: too few trajectories for any drop to be significant. */
  gateUntestable: 6,
  interrupted: 130,
} as const;

/** What a fault says: its message (exit 2, a usage or input mistake), or the message and another exit code. */
export type Said = string | { message: string; exit: number };

/**
 * The words of every kind of F, each given its own fault's fields and `awb`,
 * how the user started awb (`awb`, `npx agentworldbench`), for the commands a message names.
 */
export type Words<F extends Fault> = { [K in F['kind']]: (fault: Extract<F, { kind: K }>, awb: string) => Said };

/** The words of every notice of N: one warning line, from the notice's own fields. */
export type NoticeWords<N extends Notice> = { [K in N['kind']]: (notice: Extract<N, { kind: K }>) => string };

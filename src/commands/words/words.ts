import type { GateOutcome } from '../../core/compare/index.js';
import type { Fault, Notice } from '../../core/errors.js';

/** Exit codes; what each means is EXIT_MEANING's. */
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
  /** --max-cost stopped the run: rows are left that the same command with a higher cap completes. */
  costCap: 7,
  interrupted: 130,
} as const;

/**
 * What each exit code means: `awb --help` lists them from here, and `npm run docs` writes the README's and
 * docs/running.md's lists from here (a check in `npm test` fails when they differ).
 */
export const EXIT_MEANING: Record<'ok' | keyof typeof EXIT, string> = {
  ok: 'every row has a final result',
  rowsLeft: 'rows are left that the same command run again completes',
  usage: 'a usage or input mistake',
  endpoint: 'an endpoint or hub that cannot be used (bad key, unknown model, unreachable, a setting it refuses for every row)',
  gate: 'the gate of compare --fail-below failed: a regression, or runs not comparable',
  gateIncomplete: "the gate failed on an incomplete candidate (rows missing, or failed where the baseline's are valid)",
  gateUntestable: 'the gate could not test Overall, or a domain of --domains (too few trajectories for any drop to be significant)',
  costCap: 'infer or judge stopped at its --max-cost cap: rows are left that the same command with a higher cap completes',
  interrupted: 'interrupted',
};

/**
 * The gate's outcomes (compare --fail-below): the exit code of each, apart from 1 (rows failed) and 2 (usage) so CI
 * can tell a regression from a broken or too small run, what it means and what to do. compare exits with these, and
 * `npm run docs` writes docs/ci-gate.md's table from here.
 */
export const GATE_OUTCOMES: Record<GateOutcome, { exit: number; means: string; todo: string }> = {
  passed: { exit: 0, means: 'Overall was tested, and no test finds a drop larger than DELTA', todo: 'nothing' },
  regression: {
    exit: EXIT.gate,
    means: 'a test finds the candidate worse by more than DELTA',
    todo: 'look at the regression (`--rows N`, `awb rows`)',
  },
  incomparable: {
    exit: EXIT.gate,
    means: 'the runs differ in judge, rubrics, history protocol or dataset (from their manifests)',
    todo: 'compare like with like, or `--allow-incomparable`',
  },
  incomplete: {
    exit: EXIT.gateIncomplete,
    means:
      'the candidate lacks rows of the baseline, its manifest says unfinished, or it failed rows the baseline has valid (no generation, a judge reply that could not be read, or a judge request that failed after every retry)',
    todo: 'finish the run: `awb infer … --retry-failed`, then `awb judge … --retry-failed` (the same settings as before); or `--allow-partial` to gate on the rows in common',
  },
  untestable: {
    exit: EXIT.gateUntestable,
    means: 'Overall, or a domain named by `--domains`, has so few trajectories that no drop of any size could be significant',
    todo: 'compare over more trajectories (the message says how many are needed)',
  },
};

/** Every exit code and its meaning, in ascending order. */
export function exitCodes(): { code: number; meaning: string }[] {
  const codes = { ok: 0, ...EXIT };
  return (Object.keys(EXIT_MEANING) as (keyof typeof codes)[])
    .map((k) => ({ code: codes[k], meaning: EXIT_MEANING[k] }))
    .sort((a, b) => a.code - b.code);
}

/** What a fault says: its message (exit 2, a usage or input mistake), or the message and another exit code. */
export type Said = string | { message: string; exit: number };

/**
 * The words of every kind of F, each given its own fault's fields and `awb`,
 * how the user started awb (`awb`, `npx agentworldbench`), for the commands a message names.
 */
export type Words<F extends Fault> = { [K in F['kind']]: (fault: Extract<F, { kind: K }>, awb: string) => Said };

/** The words of every notice of N: one warning line, from the notice's own fields. */
export type NoticeWords<N extends Notice> = { [K in N['kind']]: (notice: Extract<N, { kind: K }>) => string };

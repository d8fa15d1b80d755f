import { AsyncLocalStorage } from 'node:async_hooks';
import type { ChalkInstance, ColorSupportLevel } from 'chalk';

/*
 * What a command runs in: where it writes, the environment it reads, the
 * words it was started with, and the exit code it ends with. `awb` gives
 * the process's own; a caller of `main` may give another (the tests run
 * commands in their own process through one), so no command touches
 * `process.stdout`, `process.env` or `process.exitCode` itself.
 */

/** A stream a command writes to. */
export type Output = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface Terminal {
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  /** As `process.argv`: node, the script, then the words given to it. */
  argv: readonly string[];
  /** Colours for reports and other text on stdout (once `loadColors` has run: every command's action awaits it). */
  readonly outLevel: ColorSupportLevel;
  readonly outColor: ChalkInstance;
  /** For messages on stderr: coloured by stderr itself, so `2>log` gets plain text even when stdout is a terminal. */
  readonly errColor: ChalkInstance;
  /** What the command ends with when it throws nothing (0 unless set). */
  exitCode?: number;
}

/**
 * Colours only on a terminal, and never with NO_COLOR set (chalk alone does not look at it), unless
 * FORCE_COLOR asks: a CI log that renders colours sets it with no terminal. It wins over NO_COLOR, as in
 * Node itself, and chalk's level already says what it asks (`0` or `false`: none).
 */
function levelFor(stream: Output, env: NodeJS.ProcessEnv, level: ColorSupportLevel): ColorSupportLevel {
  if (env.FORCE_COLOR) return level; // set and not empty, as force-color.org has it
  return stream.isTTY && !env.NO_COLOR ? level : 0;
}

/*
 * chalk is loaded by a command's action, beside its module, not at start-up: `awb --help` prints no colour
 * and pays about 15 ms of a 100 ms start for it (bench/README.md, "Start-up").
 */
let colors: typeof import('chalk') | undefined;

/** Loads chalk for the terminals' colours; a command's action awaits it before running. */
export async function loadColors(): Promise<void> {
  colors ??= await import('chalk');
}

function loaded(): typeof import('chalk') {
  if (!colors) throw new Error('colours read before loadColors()');
  return colors;
}

export function makeTerminal(t: Pick<Terminal, 'stdout' | 'stderr' | 'env' | 'argv'>): Terminal {
  // chalk reads its levels from this process's streams and environment; another terminal's streams decide whether they apply.
  let out: { level: ColorSupportLevel; color: ChalkInstance } | undefined;
  let err: ChalkInstance | undefined;
  const outColors = () => {
    if (out) return out;
    const { default: chalk, Chalk } = loaded();
    const level = levelFor(t.stdout, t.env, chalk.level);
    return (out = { level, color: new Chalk({ level }) });
  };
  return {
    ...t,
    get outLevel() {
      return outColors().level;
    },
    get outColor() {
      return outColors().color;
    },
    get errColor() {
      const { Chalk, chalkStderr } = loaded();
      return (err ??= new Chalk({ level: levelFor(t.stderr, t.env, chalkStderr.level) }));
    },
  };
}

let own: Terminal | undefined;

/** The process's own streams, environment and words. */
export function processTerminal(): Terminal {
  return (own ??= makeTerminal({ stdout: process.stdout, stderr: process.stderr, env: process.env, argv: process.argv }));
}

const current = new AsyncLocalStorage<Terminal>();

/** Runs `work` with `t` as the terminal of every command it runs. */
export function inTerminal<T>(t: Terminal, work: () => Promise<T>): Promise<T> {
  return current.run(t, work);
}

/** The terminal of the command running now (the process's outside `inTerminal`). */
export function terminal(): Terminal {
  return current.getStore() ?? processTerminal();
}

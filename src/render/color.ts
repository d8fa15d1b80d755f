import chalk, { Chalk, chalkStderr, type ChalkInstance, type ColorSupportLevel } from 'chalk';

/**
 * Colours only on a terminal, and never with NO_COLOR set (chalk alone does not look at it), unless
 * FORCE_COLOR asks: a CI log that renders colours sets it with no terminal. It wins over NO_COLOR, as in
 * Node itself, and chalk's level already says what it asks (`0` or `false`: none).
 */
function levelFor(stream: NodeJS.WriteStream, level: ColorSupportLevel): ColorSupportLevel {
  if (process.env.FORCE_COLOR) return level; // set and not empty, as force-color.org has it
  return stream.isTTY && !process.env.NO_COLOR ? level : 0;
}

/** For reports on stdout. */
export function terminalColorLevel(): ColorSupportLevel {
  return levelFor(process.stdout, chalk.level);
}

/** For text on stdout other than the rendered reports (download's row counts). */
export const outColor: ChalkInstance = new Chalk({ level: terminalColorLevel() });

/** For messages on stderr: coloured by stderr itself, so `2>log` gets plain text even when stdout is a terminal. */
export const errColor: ChalkInstance = new Chalk({ level: levelFor(process.stderr, chalkStderr.level) });

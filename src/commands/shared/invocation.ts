import { realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';

/*
 * How the user started awb, for the commands awb prints to be pasted (resume
 * lines, next steps, remedies): apart from run-ui so that commands without a
 * progress bar (compare, merge) print them without loading one.
 */

/** A word as a POSIX shell reads it back: plain when safe, else single-quoted. */
export function shellWord(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/** Where the running script could be found under another name: PATH's `awb`, compared through links. */
export interface InvocationContext {
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The real path of a file, or undefined when there is none. */
  realpath: (path: string) => string | undefined;
}

/**
 * How to start awb again the way it was started: `npx agentworldbench` under
 * npx (its cache is not on PATH) or from a project's node_modules/.bin (`npx
 * awb` in a project that installed it), `awb` when the `awb` on PATH is this
 * very script, else `node <script>` (relative to the current folder when inside it).
 */
export function invocation(c: InvocationContext): string {
  if (c.script.split(/[\\/]/).includes('_npx')) return 'npx agentworldbench';
  const self = c.realpath(c.script);
  const dirs = (c.env.PATH ?? '').split(delimiter).filter(Boolean);
  const onPath = self && dirs.find((d) => c.realpath(join(d, 'awb')) === self);
  // A project's node_modules/.bin is on PATH only inside npx and npm scripts: the shell the command is pasted into runs it with npx.
  if (onPath) return /(^|[\\/])node_modules[\\/]\.bin[\\/]*$/.test(onPath) ? 'npx agentworldbench' : 'awb';
  const rel = relative(c.cwd, c.script);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : c.script;
  return `node ${shellWord(shown)}`;
}

/** This process's invocation, for commands printed to be pasted. */
export function thisInvocation(): string {
  const realpath = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  return invocation({ script: process.argv[1] ?? 'awb', cwd: process.cwd(), env: process.env, realpath });
}

import { readFileSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { visible } from '../../core/shown.js';
import { terminal } from './terminal.js';

/*
 * How the user started awb, for the commands awb prints to be pasted (resume
 * lines, next steps, remedies): apart from run-ui so that commands without a
 * progress bar (compare, merge) print them without loading one.
 */

/**
 * A word as a shell reads it back: plain when safe, else single-quoted; one holding control characters
 * (a newline, an escape, a bidi override) in `$'…'` with them spelled out, so the command stays one
 * plain line that bash, zsh and ksh read back as the same word.
 */
export function shellWord(a: string): string {
  if (/^[\w@%+=:,./-]+$/.test(a)) return a;
  if (visible(a) === a) return `'${a.replace(/'/g, `'\\''`)}'`;
  return `$'${visible(a.replace(/[\\']/g, (c) => `\\${c}`))}'`;
}

/** Where the running script could be found under another name: PATH's `awb`, compared through links. */
export interface InvocationContext {
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The real path of a file, or undefined when there is none. */
  realpath: (path: string) => string | undefined;
  /** A file's text, or undefined when it cannot be read: npx's folder names the packages it was given. */
  readText?: (path: string) => string | undefined;
}

/** The package name npx runs as plain `npx agentworldbench`; any other spec is repeated with --package. */
const PACKAGE = 'agentworldbench';

/**
 * The package specs npx was given (`npx agentworldbench@0.1.0`, `npx --package ./awb.tgz awb`): npm writes
 * them to the package.json of the folder it installs them in (`_npx.packages`), and the ones given with
 * --package to npm_config_package as well (one per line, blank lines between).
 */
function npxPackages(c: InvocationContext): string[] {
  const parts = c.script.split(/[\\/]/);
  const at = parts.indexOf('_npx');
  const folder = at >= 0 && parts[at + 1] ? parts.slice(0, at + 2).join('/') : undefined;
  const text = folder === undefined ? undefined : c.readText?.(`${folder}/package.json`);
  try {
    const listed = text === undefined ? undefined : (JSON.parse(text) as { _npx?: { packages?: unknown } })._npx?.packages;
    if (Array.isArray(listed) && listed.length && listed.every((p) => typeof p === 'string' && p)) return listed as string[];
  } catch {
    // Not npm's JSON: the variable says what it can.
  }
  return (c.env.npm_config_package ?? '').split('\n').filter((p) => p.trim() !== '');
}

/**
 * How to start awb again the way it was started: under npx, `npx agentworldbench` (with --yes when it was given), or `npx --package
 * <spec> awb` when it was given another spec (a version, a tarball, a git URL: what the user ran, not
 * the registry's latest); from a project's node_modules/.bin (`npx awb` in a project that installed
 * it) `npx agentworldbench`; `awb` when the `awb` on PATH is this very script; else `node <script>`
 * (relative to the current folder when inside it).
 */
export function invocation(c: InvocationContext): string {
  // npx --yes (npm_config_yes=true in what it runs) is repeated: where npm's config says yes=false, npx without it stops to ask.
  const npx = c.env.npm_config_yes === 'true' ? 'npx --yes' : 'npx';
  if (c.script.split(/[\\/]/).includes('_npx')) {
    const specs = npxPackages(c);
    if (specs.length === 0 || (specs.length === 1 && specs[0] === PACKAGE)) return `${npx} ${PACKAGE}`;
    return [npx, ...specs.flatMap((p) => ['--package', shellWord(p)]), 'awb'].join(' ');
  }
  const self = c.realpath(c.script);
  const dirs = (c.env.PATH ?? '').split(delimiter).filter(Boolean);
  const onPath = self && dirs.find((d) => c.realpath(join(d, 'awb')) === self);
  // A project's node_modules/.bin is on PATH only inside npx and npm scripts: the shell the command is pasted into runs it with npx.
  if (onPath) return /(^|[\\/])node_modules[\\/]\.bin[\\/]*$/.test(onPath) ? `${npx} ${PACKAGE}` : 'awb';
  const rel = relative(c.cwd, c.script);
  const shown = rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : c.script;
  return `node ${shellWord(shown)}`;
}

/** How awb is started when `script` is its entry point, run from `cwd` with `env` (the demo names the awb it runs). */
export function invocationFor(script: string, cwd: string, env: NodeJS.ProcessEnv): string {
  const realpath = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return undefined;
    }
  };
  const readText = (p: string) => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  };
  return invocation({ script, cwd, env, realpath, readText });
}

/** This process's invocation, for commands printed to be pasted. */
export function thisInvocation(): string {
  return invocationFor(terminal().argv[1] ?? 'awb', process.cwd(), terminal().env);
}

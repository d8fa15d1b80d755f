import { spawn } from 'node:child_process';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { AWB_BIN, awbEnv } from './cli.js';

/*
 * Runs what a workflow, an Action or a Kubernetes manifest in our docs says to run, as the engine would: `run:`
 * scripts through bash with the engine's variables, `${{ … }}` expressions and `$(VAR)` references substituted.
 * `npx agentworldbench…` runs this checkout's build (a shim on PATH), so the commands are tested as written.
 */

const PACKAGE_VERSION = (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The fenced blocks of a language in a markdown file, parsed when YAML. */
export async function fencedBlocks(doc: URL, lang: string): Promise<string[]> {
  const text = await readFile(doc, 'utf8');
  return [...text.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);
}

export const parseYaml = (text: string): unknown => parse(text) as unknown;

/**
 * A folder holding an `npx` that runs this checkout's awb for `npx [--yes] agentworldbench[@VERSION] ARGS`:
 * any other package, or another version than package.json's, fails the step, as a wrong spec would.
 */
export async function npxShim(dir: string): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  const script = `#!/bin/sh
while [ "$1" = "--yes" ] || [ "$1" = "-y" ]; do shift; done
case "$1" in
  agentworldbench|agentworldbench@${PACKAGE_VERSION}) shift ;;
  *) echo "npx shim: not this package or version: $1" >&2; exit 127 ;;
esac
exec "${process.execPath}" "${AWB_BIN}" "$@"
`;
  await writeFile(join(bin, 'npx'), script);
  await chmod(join(bin, 'npx'), 0o755);
  return bin;
}

/** `${{ expr }}` replaced from `context` (keys as written: `vars.MODEL_URL`, `strategy.job-index`); an unknown one is an error. */
export function expressions(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    if (!Object.hasOwn(context, expr)) throw new Error(`workflow expression not known to the test: \${{ ${expr} }}`);
    return context[expr]!;
  });
}

/** Kubernetes' `$(VAR)` in command and args: replaced from the container's env, left as written when unknown; `$$` escapes. */
export function kubernetesRefs(arg: string, env: Record<string, string>): string {
  return arg.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string | undefined) =>
    name === undefined ? '$' : Object.hasOwn(env, name) ? env[name]! : m,
  );
}

export interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A process run to its end with awb's test environment plus `env`, PATH led by `bin` (the npx shim). */
export function runProcess(argv: string[], opts: { cwd: string; env: Record<string, string>; bin: string }): Promise<StepResult> {
  const env = awbEnv({ ...opts.env, PATH: `${opts.bin}:${process.env.PATH ?? ''}` });
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A `run:` script as GitHub's runner runs it on Linux: `bash --noprofile --norc -eo pipefail`. */
export const runScript = (script: string, opts: { cwd: string; env: Record<string, string>; bin: string }): Promise<StepResult> =>
  runProcess(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', script], opts);

/** Lines `name=value` (or `name<<EOF … EOF`) appended to a GITHUB_OUTPUT file, as the runner reads them. */
export function githubOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      while (++i < lines.length && lines[i] !== heredoc[2]) body.push(lines[i]!);
      out[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return out;
}

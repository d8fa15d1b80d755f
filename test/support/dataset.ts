/*
 * Synthetic AgentWorldBench data and small file helpers for the reliability
 * tests (faults, resume, bad input, content, secrets). Rows follow the
 * official layout: one `{domain}_test.jsonl` per domain, each row one turn of
 * a trajectory with the turns up to `turn_idx`.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { mulberry32 } from '../../src/core/score/bootstrap.js';
import { AWB_BIN } from './cli.js';
import { lastUserText, requestHash, type ChatRequest, type ReplyFn } from './openai-server.js';

/** A seeded Fisher-Yates shuffle of a copy. */
export function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const rand = mulberry32(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export const DOMAINS = ['mcp', 'search', 'terminal', 'swe', 'android', 'web', 'os'] as const;

export interface SynthRow {
  task: string;
  id: number | string;
  prompt: string[];
  response: string[];
  current_prompt: string;
  system_str: string;
  turn_idx: number;
  total_turns: number;
  [k: string]: unknown;
}

export interface Dataset {
  dir: string;
  /** domain → file path. */
  files: Map<string, string>;
  /** Every input line, as written (without its newline). */
  lines: string[];
  rows: SynthRow[];
}

/**
 * The text that identifies a row's current action. Brackets keep one marker
 * from being a substring of another (`/1]` vs `/11]`), so a fault script can
 * single a row out by its marker.
 */
export function markerOf(domain: string, id: number | string, turn: number): string {
  return `[row ${domain}/${id}/${turn}]`;
}

/** The marker of a row's current action. */
export function rowMarker(row: Pick<SynthRow, 'task' | 'id' | 'turn_idx'>): string {
  return markerOf(row.task.slice(row.task.lastIndexOf('/') + 1), row.id, row.turn_idx);
}

/**
 * N rows spread round-robin over `domains`, in trajectories of up to three
 * turns. Every row is distinct in content, so every request is distinct too
 * (the server's repeatedSuccesses() relies on that).
 */
export function synthRows(n: number, domains: readonly string[] = DOMAINS): SynthRow[] {
  const rows: SynthRow[] = [];
  let traj = 0;
  while (rows.length < n) {
    const domain = domains[traj % domains.length]!;
    const id = 1000 + traj;
    const turns = 1 + (traj % 3);
    const prompt: string[] = [];
    const response: string[] = [];
    for (let t = 1; t <= turns && rows.length < n; t++) {
      prompt.push(`### Turn ${t}\n**Action:**\nrun step ${t} ${markerOf(domain, id, t)}`);
      response.push(`observation ${t} of ${domain} trajectory ${id}: ok`);
      rows.push({
        task: domain === 'terminal' ? 'agentworld/terminal' : domain,
        id,
        prompt: [...prompt],
        response: [...response],
        current_prompt: prompt[t - 1]!,
        system_str: `You simulate the ${domain} environment. Answer inside <predicted_observation></predicted_observation>.`,
        turn_idx: t,
        total_turns: turns,
      });
    }
    traj++;
  }
  return rows;
}

/** Writes rows (or ready-made lines) into `{domain}_test.jsonl` files under dir. */
export async function writeDataset(dir: string, rowsOrLines: Array<SynthRow | string>): Promise<Dataset> {
  await mkdir(dir, { recursive: true });
  const byDomain = new Map<string, string[]>();
  const lines: string[] = [];
  const rows: SynthRow[] = [];
  for (const r of rowsOrLines) {
    const line = typeof r === 'string' ? r : JSON.stringify(r);
    const row = (typeof r === 'string' ? JSON.parse(r) : r) as SynthRow;
    const domain = row.task.slice(row.task.lastIndexOf('/') + 1);
    if (!byDomain.has(domain)) byDomain.set(domain, []);
    byDomain.get(domain)!.push(line);
    lines.push(line);
    rows.push(row);
  }
  const files = new Map<string, string>();
  for (const [domain, ls] of byDomain) {
    const path = join(dir, `${domain}_test.jsonl`);
    await writeFile(path, ls.map((l) => `${l}\n`).join(''));
    files.set(domain, path);
  }
  return { dir, files, lines, rows };
}

/** The output as an interrupted run leaves it: its last `drop` lines not yet written. */
export async function dropLastLines(out: string, drop: number): Promise<void> {
  const { lines } = await readJsonlFile(out);
  await writeFile(
    out,
    lines
      .slice(0, -drop)
      .map((l) => `${l}\n`)
      .join(''),
  );
}

/** Rows as JSONL text, a line each. */
export function jsonl(rows: readonly object[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** Writes rows as a JSONL file, making its folder first. */
export async function writeJsonl(path: string, rows: readonly object[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, jsonl(rows));
}

/** A synthetic dataset of n rows in a fresh folder under `parent`. */
export async function makeDataset(parent: string, n: number, domains: readonly string[] = DOMAINS): Promise<Dataset> {
  return writeDataset(join(parent, 'data'), synthRows(n, domains));
}

/** Temporary folders removed by cleanup(); one per test file. */
export function tempDirs(prefix: string) {
  const made: string[] = [];
  return {
    async make(): Promise<string> {
      const d = await mkdtemp(join(tmpdir(), `awb-${prefix}-`));
      made.push(d);
      return d;
    },
    async cleanup(): Promise<void> {
      await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}

/**
 * A file's lines split on `\n` only (raw U+2028 stays inside its line), and
 * whether the file ends with a newline, i.e. has no cut last line.
 */
export async function readJsonlFile(path: string): Promise<{ lines: string[]; terminated: boolean }> {
  const text = await readFile(path, 'utf8');
  if (text === '') return { lines: [], terminated: true };
  const terminated = text.endsWith('\n');
  const parts = text.split('\n');
  if (terminated) parts.pop();
  return { lines: parts.filter((l) => l.trim() !== ''), terminated };
}

export async function readRowsOf(path: string): Promise<Record<string, unknown>[]> {
  const { lines } = await readJsonlFile(path);
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** `(task, id, turn_idx)`: unique in the synthetic data. */
export function keyOf(row: Record<string, unknown>): string {
  return `${String(row.task)}|${String(row.id)}|${String(row.turn_idx)}`;
}

/** Counts `\n` in a file without parsing it; 0 when it does not exist yet. */
export async function countNewlines(path: string): Promise<number> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    return 0;
  }
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * Resolves once `ready()` holds; rejects if `exited` settles first or the
 * deadline passes, so a test waiting on a child that died fails instead of hanging.
 */
export async function waitFor(
  ready: () => boolean | Promise<boolean>,
  exited: Promise<unknown>,
  what: string,
  timeoutMs = 120_000,
): Promise<void> {
  let done = false;
  const gone = exited.then(() => {
    done = true;
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready()) return;
    if (done) throw new Error(`awb exited before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Promise.race([gone, new Promise((r) => setTimeout(r, 5))]);
  }
}

/**
 * Resolves once `ready()` holds, or after `timeoutMs` in any case: for a stand-in server that waits for the
 * client's next move (its test then fails on what it asserts, not by hanging).
 */
export async function waitUntil(ready: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

/** Resolves once `path` holds at least n lines; rejects if `exited` settles first. */
export async function waitForLines(path: string, n: number, exited: Promise<unknown>, timeoutMs = 120_000): Promise<number> {
  let count = 0;
  await waitFor(async () => (count = await countNewlines(path)) >= n, exited, `${n} lines in ${path}`, timeoutMs);
  return count;
}

/** A world-model reply that depends only on the request, so runs can be compared line for line. */
export const worldReply: ReplyFn = (req: ChatRequest) =>
  `<think>short</think><predicted_observation>prediction ${requestHash(req)} for ${lastUserText(req).slice(-40)}</predicted_observation>`;

/** A valid judge reply whose scores depend only on the request. */
export const judgeReply: ReplyFn = (req: ChatRequest) => {
  const h = createHash('sha256').update(requestHash(req)).digest();
  const s = (i: number) => 1 + (h[i]! % 5);
  const scores = { format: s(0), factuality: s(1), consistency: s(2), realism: s(3), quality: s(4) };
  return `The prediction is plausible.\n<final_evaluation>${JSON.stringify({ scores, strengths: ['format'], weaknesses: [] })}</final_evaluation>`;
};

/** Lines of stderr that are awb's own error lines. */
export function errorLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('awb: '));
}

/** Stack frames in output: a user mistake must never show one. */
export function stackLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\s{4}at /.test(l));
}

/**
 * Splits the resume command awb prints back into arguments, as a POSIX shell
 * would: plain words, '…' with '\'' escapes, and "…" where $NAME expands
 * from `env`. The leading invocation is dropped; it must be one that starts
 * this very build (`node <bin/awb.js>`, relative to `cwd` or absolute), as tests run it.
 */
export function parseResumeCommand(stderr: string, env: Record<string, string> = {}, cwd = process.cwd()): string[] {
  const m =
    /Resume with:\n\s+(node .*)\n/.exec(stderr) ??
    /retry only those:\n\s+(node .*)\n/.exec(stderr) ??
    /a higher cap .*:\n\s+(node .*)\n/.exec(stderr);
  if (!m) throw new Error(`no resume command in stderr:\n${stderr}`);
  const cmd = m[1]!;
  const args: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (c === "'") {
      const end = cmd.indexOf("'", i + 1);
      cur += cmd.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      const end = cmd.indexOf('"', i + 1);
      cur += cmd.slice(i + 1, end).replace(/\$(\w+)/g, (_all, name: string) => env[name] ?? '');
      i = end;
      inWord = true;
    } else if (c === '\\' && i + 1 < cmd.length) {
      cur += cmd[++i];
      inWord = true;
    } else if (c === ' ') {
      if (inWord) args.push(cur);
      cur = '';
      inWord = false;
    } else {
      if (c === '$') throw new Error(`unquoted $ in the resume command: ${cmd}`);
      cur += c;
      inWord = true;
    }
  }
  if (inWord) args.push(cur);
  if (args[0] !== 'node' || resolve(cwd, args[1] ?? '') !== AWB_BIN) throw new Error(`resume command does not start this awb: ${cmd}`);
  return args.slice(2);
}

/** A port nothing listens on (taken from the OS and released). */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A predictions file as `awb infer` would write it (input line plus `gen`),
 * without running infer: judge tests start from it.
 */
export async function writePredictions(
  ds: Dataset,
  path: string,
  gen: (row: SynthRow, i: number) => string = (r) => `<predicted_observation>${r.response[r.turn_idx - 1]}</predicted_observation>`,
): Promise<string[]> {
  const lines = ds.lines.map((l, i) => `${l.slice(0, l.lastIndexOf('}'))},"gen":${JSON.stringify(gen(ds.rows[i]!, i))}}`);
  await writeFile(path, lines.map((l) => `${l}\n`).join(''));
  return lines;
}

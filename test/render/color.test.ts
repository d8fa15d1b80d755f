/*
 * Colours on stderr follow stderr and NO_COLOR: a run whose stdout is a
 * terminal but whose stderr goes to a file (`awb infer … 2>log`) writes no
 * escape codes into the file, and NO_COLOR=1 on a terminal gets none either.
 * A real pseudo-terminal comes from util-linux `script`, skipped without it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AWB_BIN, awbEnv, runAwb } from '../support/cli.js';
import { judgeReply, makeDataset, tempDirs, worldReply } from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';

const temps = tempDirs('color');
after(() => temps.cleanup());
const server = useServers();
const hasScript = spawnSync('script', ['--version']).status === 0;
/** SGR sequences only: the progress bar's cursor moves are not colours. */
const SGR = /\x1b\[[0-9;]*m/;

/** A colour terminal outside CI, whatever the machine running the tests (chalk gives CI=1 or TERM=dumb no colours). */
const TERMINAL = { TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined, FORCE_COLOR: undefined };

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs awb under a pseudo-terminal (asynchronously: the fake server lives in this process); `redirect` is appended to the shell command (e.g. `2>file`). */
function underPty(args: string[], env: Record<string, string | undefined>, redirect = ''): Promise<{ status: number | null; out: string }> {
  const cmd = `${[process.execPath, AWB_BIN, ...args].map(quote).join(' ')} ${redirect}`;
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: awbEnv({ ...TERMINAL, ...env }), stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out }));
  });
}

/** A small infer run under a pseudo-terminal; `redirect(dir)` is appended to its shell command. */
async function inferUnderPty(env: Record<string, string>, redirect: (dir: string) => string = () => '') {
  const dir = await temps.make();
  const data = await makeDataset(dir, 3, ['terminal']);
  const s = await server({ reply: worldReply });
  const r = await underPty(inferArgs(s.url, data.dir, join(dir, 'p.jsonl'), ['--no-progress']), env, redirect(dir));
  assert.equal(r.status, 0, r.out);
  return { dir, out: r.out };
}

describe('colours on stderr', { skip: hasScript ? false : 'util-linux script not available' }, () => {
  it('writes no colour codes into a stderr that is not a terminal, even when stdout is one', async () => {
    const { dir } = await inferUnderPty({}, (d) => `2>${quote(join(d, 'err.log'))}`);
    const err = await readFile(join(dir, 'err.log'), 'utf8');
    assert.match(err, /infer: done: /);
    assert.doesNotMatch(err, SGR);
  });

  it('honours NO_COLOR on a terminal', async () => {
    const { out } = await inferUnderPty({ NO_COLOR: '1' });
    assert.match(out, /infer: done: /);
    assert.doesNotMatch(out, SGR);
  });

  it('still colours a terminal without NO_COLOR', async () => {
    const { out } = await inferUnderPty({});
    assert.match(out, SGR);
  });
});

describe('FORCE_COLOR', () => {
  /** Stderr and stdout are pipes here, as in a CI job whose log renders colours. */
  it('colours piped stderr and the score table when FORCE_COLOR asks, even with NO_COLOR, and never JSON', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 3, ['terminal']);
    const s = await server({ reply: worldReply });
    const judge = await server({ reply: judgeReply });
    const predictions = join(dir, 'p.jsonl');
    const judged = join(dir, 'j.jsonl');
    const forced = { FORCE_COLOR: '1', NO_COLOR: '1' };
    const infer = await runAwb(inferArgs(s.url, data.dir, predictions), { env: forced });
    assert.equal(infer.code, 0, infer.stderr);
    assert.match(infer.stderr, SGR);
    assert.equal((await runAwb(judgeArgs(judge.url, predictions, judged))).code, 0);
    const table = await runAwb(['score', judged], { env: forced });
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, SGR);
    const json = await runAwb(['score', judged, '--format', 'json'], { env: forced });
    assert.doesNotMatch(json.stdout, SGR);
    JSON.parse(json.stdout);
    // FORCE_COLOR=0 is no colour, as chalk reads it.
    const off = await runAwb(['score', judged], { env: { FORCE_COLOR: '0', NO_COLOR: undefined } });
    assert.doesNotMatch(off.stdout, SGR);
  });
});

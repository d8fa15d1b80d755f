/*
 * Hostile input, third round (issue 52), as a shell runs awb: outputs given as
 * /dev/stdout with stdout appended to a log or sharing a file with stderr,
 * SIGTERM while a command waits on a FIFO nobody reads, names and paths that
 * hold control characters, and next commands printed after a stream.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AWB_BIN, awbEnv, runAwb, type AwbResult } from '../support/cli.js';
import { judgeReply, makeDataset, tempDirs, worldReply, writePredictions } from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';
import { refusalLine } from '../support/refusal.js';
import { judgedRow, writeJudged } from '../fixtures/judged/rows.js';

const temps = tempDirs('streams');
after(() => temps.cleanup());
const server = useServers();

/** A word for sh: single-quoted. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `awb ARGS REDIRECTIONS` through sh in `cwd`, as a user's shell or CI step would. */
function shell(args: readonly string[], redirections: string, cwd: string): Promise<AwbResult> {
  const line = `${q(process.execPath)} ${q(AWB_BIN)} ${args.map(q).join(' ')} ${redirections}`;
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', line], { cwd, env: awbEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const EARLIER = 'earlier line of the log\nand another\n';

/** Lines of a file that parse as JSON objects with an `id`: the rows among messages. */
function rowLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The folder holds exactly `names`: nothing was written beside the target (no manifest for /dev/stdout, no temp file). */
async function holdsOnly(dir: string, names: readonly string[]): Promise<void> {
  assert.deepEqual((await readdir(dir)).sort(), [...names].sort());
}

describe("-o /dev/stdout writes at stdout's offset: an appended log keeps its lines, stderr never overwrites output", () => {
  it('infer: >> log keeps the earlier lines and gets every row; > f 2>&1 holds every row whole beside the messages', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 14, ['mcp', 'web']);
    const s = await server({ reply: worldReply });
    const run = join(work, 'run');
    await mkdir(run);
    await writeFile(join(run, 'build.log'), EARLIER);
    const appended = await shell(inferArgs(s.url, ds.dir, '/dev/stdout'), '>> build.log', run);
    assert.equal(appended.code, 0, appended.stderr);
    const log = await readFile(join(run, 'build.log'), 'utf8');
    assert.ok(log.startsWith(EARLIER), log.slice(0, 200));
    assert.equal(rowLines(log.slice(EARLIER.length)).length, 14);
    assert.equal(log.slice(EARLIER.length).split('\n').filter(Boolean).length, 14, 'only rows went to stdout');

    const both = await shell(inferArgs(s.url, ds.dir, '/dev/stdout'), '> all.log 2>&1', run);
    assert.equal(both.code, 0, both.stderr);
    const all = await readFile(join(run, 'all.log'), 'utf8');
    const rows = rowLines(all);
    assert.equal(rows.length, 14, all);
    assert.ok(rows.every((r) => typeof r.gen === 'string' && r.gen.length > 0));
    assert.match(all, /infer: done/);
    await holdsOnly(run, ['build.log', 'all.log']);
  });

  it('judge: the same, and no "score it with" naming a stream', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 10, ['terminal']);
    const predictions = join(work, 'p.jsonl');
    await writePredictions(ds, predictions);
    const s = await server({ reply: judgeReply });
    const run = join(work, 'run');
    await mkdir(run);
    await writeFile(join(run, 'build.log'), EARLIER);
    const appended = await shell(judgeArgs(s.url, predictions, '/dev/stdout'), '>> build.log', run);
    assert.equal(appended.code, 0, appended.stderr);
    assert.doesNotMatch(appended.stderr, /score it with/);
    const log = await readFile(join(run, 'build.log'), 'utf8');
    assert.ok(log.startsWith(EARLIER));
    assert.equal(rowLines(log).length, 10);

    const both = await shell(judgeArgs(s.url, predictions, '/dev/stdout'), '> all.log 2>&1', run);
    assert.equal(both.code, 0, both.stderr);
    const rows = rowLines(await readFile(join(run, 'all.log'), 'utf8'));
    assert.equal(rows.length, 10);
    assert.ok(rows.every((r) => r.failed === 0));
    await holdsOnly(run, ['build.log', 'all.log']);
  });

  it('report: >> log keeps the earlier lines, the page follows them whole; > f 2>&1 has the page, then the message', async () => {
    const dir = await temps.make();
    const judged = writeJudged(dir, 'j.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2 })]);
    await writeFile(join(dir, 'build.log'), EARLIER);
    const appended = await shell(['report', judged, '-o', '/dev/stdout'], '>> build.log', dir);
    assert.equal(appended.code, 0, appended.stderr);
    const log = await readFile(join(dir, 'build.log'), 'utf8');
    assert.ok(log.startsWith(`${EARLIER}<!doctype html>`), log.slice(0, 200));
    assert.ok(log.trimEnd().endsWith('</html>'));

    const both = await shell(['report', judged, '-o', '/dev/stdout'], '> all.log 2>&1', dir);
    assert.equal(both.code, 0, both.stderr);
    const all = await readFile(join(dir, 'all.log'), 'utf8');
    assert.ok(all.startsWith('<!doctype html>'), all.slice(0, 100));
    assert.match(all, /<\/html>\n(?:.*\n)*awb: wrote \/dev\/stdout/);
    await holdsOnly(dir, ['j.jsonl', 'build.log', 'all.log']);
  });

  it('report: a log of JSON lines appended to is not taken for a judged file given as the page', async () => {
    const dir = await temps.make();
    const judged = writeJudged(dir, 'j.jsonl', [judgedRow({ id: 1 })]);
    await writeFile(join(dir, 'events.jsonl'), '{"event":"started"}\n');
    const r = await shell(['report', judged, '-o', '/dev/stdout'], '>> events.jsonl', dir);
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await readFile(join(dir, 'events.jsonl'), 'utf8')).startsWith('{"event":"started"}\n<!doctype html>'));
  });

  it('merge: >> log keeps the earlier lines and gets every row of the shards', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 8, ['mcp']);
    const s = await server({ reply: worldReply });
    const dir = join(work, 'run');
    await mkdir(dir);
    const shards = [join(work, 'p1.jsonl'), join(work, 'p2.jsonl')];
    for (const [i, out] of shards.entries()) {
      const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--shard', `${i + 1}/2`]));
      assert.equal(r.code, 0, r.stderr);
    }
    await writeFile(join(dir, 'build.log'), EARLIER);
    const r = await shell(['merge', '-o', '/dev/stdout', ...shards], '>> build.log', dir);
    assert.equal(r.code, 0, r.stderr);
    const log = await readFile(join(dir, 'build.log'), 'utf8');
    assert.ok(log.startsWith(EARLIER));
    assert.equal(rowLines(log).length, 8);
    const both = await shell(['merge', '-o', '/dev/stdout', ...shards], '> all.log 2>&1', dir);
    assert.equal(both.code, 0, both.stderr);
    const all = await readFile(join(dir, 'all.log'), 'utf8');
    assert.equal(rowLines(all).length, 8);
    assert.match(all, /merge: wrote 8 rows/);
    await holdsOnly(dir, ['build.log', 'all.log']);
  });

  it('compare --summary /dev/stdout: > out keeps the summary and the table, >> log the earlier lines too', async () => {
    const dir = await temps.make();
    const a = writeJudged(dir, 'a.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2 })]);
    const b = writeJudged(dir, 'b.jsonl', [judgedRow({ id: 1, dims: [3, 3, 3, 3, 3] }), judgedRow({ id: 2 })]);
    const r = await shell(['compare', a, b, '--summary', '/dev/stdout'], '> out.txt', dir);
    assert.equal(r.code, 0, r.stderr);
    const out = await readFile(join(dir, 'out.txt'), 'utf8');
    assert.match(out, /^## awb compare/);
    assert.match(out, /\nBaseline: /, 'the table follows the summary');
    await writeFile(join(dir, 'build.log'), EARLIER);
    const appended = await shell(['compare', a, b, '--summary', '/dev/stdout', '--format', 'json'], '>> build.log 2>&1', dir);
    assert.equal(appended.code, 0, appended.stderr);
    const log = await readFile(join(dir, 'build.log'), 'utf8');
    assert.ok(log.startsWith(`${EARLIER}## awb compare`), log.slice(0, 200));
    assert.match(log, /\n\{\n/, 'the JSON follows');
    await holdsOnly(dir, ['a.jsonl', 'b.jsonl', 'out.txt', 'build.log']);
  });
});

describe('SIGTERM ends a command waiting on a FIFO nobody reads with 130', () => {
  /** Starts awb, waits for its first warning on stderr (it is then past start-up), sends SIGTERM. */
  async function terminatedAfterWarning(args: string[]): Promise<AwbResult> {
    const child = spawn(process.execPath, [AWB_BIN, ...args], { env: awbEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (!sent && stderr.includes('warning')) {
        sent = true;
        child.kill('SIGTERM');
      }
    });
    return new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  }

  /** A judged file whose last line is cut short: every command reading it warns, then goes on. */
  function cutJudged(dir: string, name: string): string {
    return writeJudged(dir, name, [judgedRow({ id: 1 }), judgedRow({ id: 2 })], '{"task": "mcp", "id"');
  }

  it('report -o FIFO', async () => {
    const dir = await temps.make();
    const judged = cutJudged(dir, 'j.jsonl');
    const fifo = join(dir, 'page.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await terminatedAfterWarning(['report', judged, '-o', fifo]);
    assert.equal(r.signal, null, 'awb died by the signal');
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr.trim().split('\n').at(-1)!, /^awb: .*interrupted/);
  });

  it('compare --summary FIFO', async () => {
    const dir = await temps.make();
    const a = cutJudged(dir, 'a.jsonl');
    const b = writeJudged(dir, 'b.jsonl', [judgedRow({ id: 1 }), judgedRow({ id: 2 })]);
    const fifo = join(dir, 'summary.fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await terminatedAfterWarning(['compare', a, b, '--summary', fifo]);
    assert.equal(r.signal, null, 'awb died by the signal');
    assert.equal(r.code, 130, r.stderr);
  });
});

describe('names and paths from outside are shown as one plain line', () => {
  it('--model-name and --judge-model holding control characters are refused, as --label is', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const s = await server({ reply: worldReply });
    for (const name of ['evil\n::error::FORGED', 'title\x1b]0;pwned\x07', 'rtl\u202egnp.exe', 'split\u2028line']) {
      const line = refusalLine(await runAwb(inferArgs(s.url, ds.dir, join(work, 'p.jsonl'), [], name)), 2);
      assert.match(line, /--model-name/);
      assert.ok(!/[\n\x1b\x07\u202e\u2028]/.test(line), line);
      const judged = refusalLine(await runAwb(judgeArgs(s.url, join(work, 'p.jsonl'), join(work, 'j.jsonl'), [], name)), 2);
      assert.match(judged, /--judge-model/);
    }
    assert.equal(s.stats.requests, 0);
  });

  it('an output path holding a newline and escapes: every message and printed command stays one line', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 3, ['mcp']);
    const s = await server({ reply: () => '' });
    const dir = join(work, 'shared\n::error::FORGED\x1b]0;title\x07');
    await mkdir(dir);
    const r = await runAwb(inferArgs(s.url, ds.dir, join(dir, 'p.jsonl')));
    assert.equal(r.code, 1, r.stderr);
    for (const line of r.stderr.split('\n')) assert.ok(!line.startsWith('::error::'), r.stderr);
    assert.ok(!/[\x1b\x07]/.test(r.stderr), r.stderr);
    // The printed retry is one line that a shell reads back as the same words.
    const retry = r.stderr.split('\n').find((l) => l.includes('--retry-failed'));
    assert.ok(retry, r.stderr);
    const words = execFileSync('bash', ['-c', 'eval "set -- $1"; printf "%s\\0" "$@"', 'bash', retry.trim()]);
    assert.ok(words.toString('utf8').split('\0').includes(join(dir, 'p.jsonl')), words.toString('utf8'));
  });
});

describe('no next command into a stream', () => {
  it('infer -o /dev/null: no "judge it with", and failed rows get no --retry-failed that could not resume', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 3, ['mcp']);
    const ok = await server({ reply: worldReply });
    const done = await runAwb(inferArgs(ok.url, ds.dir, '/dev/null'));
    assert.equal(done.code, 0, done.stderr);
    assert.doesNotMatch(done.stderr, /judge it with/);
    const empty = await server({ reply: () => '' });
    const failed = await runAwb(inferArgs(empty.url, ds.dir, '/dev/null'));
    assert.equal(failed.code, 1, failed.stderr);
    assert.doesNotMatch(failed.stderr, /--retry-failed|Resume with/);
    assert.match(failed.stderr, /stream/);
  });
});

describe('JSON from others nests no deeper than awb reads', () => {
  it('a shard whose manifest nests 5,000 levels deep: merge refuses it in one line naming the file, and writes nothing', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 4, ['mcp']);
    const s = await server({ reply: worldReply });
    const shards = [join(work, 'p1.jsonl'), join(work, 'p2.jsonl')];
    for (const [i, out] of shards.entries()) {
      const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--shard', `${i + 1}/2`]));
      assert.equal(r.code, 0, r.stderr);
    }
    const manifest = `${shards[1]}.manifest.json`;
    const m = JSON.parse(await readFile(manifest, 'utf8')) as Record<string, unknown>;
    await writeFile(
      manifest,
      JSON.stringify({ ...m, upstream: 0 }).replace('"upstream":0', `"upstream":${'['.repeat(5000)}${']'.repeat(5000)}`),
    );
    const out = join(work, 'merged.jsonl');
    const line = refusalLine(await runAwb(['merge', '-o', out, ...shards]), 2);
    assert.ok(line.includes(manifest) && /deep/.test(line), line);
    await assert.rejects(readFile(out));
  });
});

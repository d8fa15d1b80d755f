/*
 * awb run from a CI job or a shell script: pipes rather than a terminal,
 * readers that go away, exit codes a script branches on.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { mergeShards } from '../../src/core/merge/index.js';
import { AWB_BIN, awbEnv, runAwb, startAwb } from '../support/cli.js';
import {
  errorLines,
  judgeReply,
  keyOf,
  makeDataset,
  readRowsOf,
  stackLines,
  tempDirs,
  waitFor,
  waitForLines,
  worldReply,
} from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';

const temps = tempDirs('ci');
after(() => temps.cleanup());
const server = useServers();

/** The exit code of an awb started here with pipes of the test's choosing. */
function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => resolve(c));
  });
}

describe('a reader of stderr that goes away', () => {
  it('does not end the run: every row is written, the lock removed, exit 0', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 8, ['terminal']);
    const s = await server({ reply: worldReply, latencyMs: 150 });
    const out = join(dir, 'p.jsonl');
    // `awb infer … 2>&1 | head -1`: the pipe is closed after the first message, with rows still to send and progress lines due.
    const child = spawn(process.execPath, [AWB_BIN, ...inferArgs(s.url, data.dir, out, ['-c', '2']).filter((a) => a !== '--no-progress')], {
      env: awbEnv({ AWB_PROGRESS_INTERVAL: '0.05' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.once('data', () => child.stderr!.destroy());
    const code = await exitCode(child);
    assert.equal(code, 0);
    const rows = await readRowsOf(out);
    assert.equal(new Set(rows.map(keyOf)).size, 8);
    assert.equal(rows.length, 8);
    assert.deepEqual((await readdir(dir)).sort(), ['data', 'p.jsonl', 'p.jsonl.manifest.json']);
  });
});

describe('judging predictions whose infer run is unfinished', () => {
  /** An infer run of 8 rows ended by `signal` once 2 are written, then judged: the judge's run, and the rows written. */
  async function judgedUnfinished(signal: NodeJS.Signals) {
    const dir = await temps.make();
    const data = await makeDataset(dir, 8, ['terminal']);
    // Two rows answered, the others held until the signal is seen: the run stops with rows left, however fast it goes.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked = 0;
    const world = await server({
      reply: async (req, ctx) => {
        if (++asked > 2) await held;
        return worldReply(req, ctx);
      },
    });
    const judge = await server({ reply: judgeReply });
    const predictions = join(dir, 'p.jsonl');
    const infer = startAwb(inferArgs(world.url, data.dir, predictions, ['-c', '2']));
    await waitForLines(predictions, 2, infer.exited);
    infer.child.kill(signal);
    // Ctrl-C lets the requests in flight finish: they are answered once awb has said it stops sending.
    if (signal === 'SIGKILL') await infer.exited;
    else await waitFor(() => /finishing the requests in flight/.test(infer.stderr()), infer.exited, 'the signal to be seen');
    release();
    const ended = await infer.exited;
    const written = (await readRowsOf(predictions)).length;
    assert.ok(written >= 2 && written < 8, String(written));
    const partial = await runAwb(judgeArgs(judge.url, predictions, join(dir, 'j.jsonl')));
    assert.equal(partial.code, 0, partial.stderr);
    return { dir, data, world, judge, predictions, ended, written, partial };
  }

  it('warns that only the rows written are judged, naming how many are not; finished predictions get no warning', async () => {
    const { dir, data, world, judge, predictions, ended, written, partial } = await judgedUnfinished('SIGINT');
    assert.equal(ended.code, 130);
    assert.match(partial.stderr, new RegExp(`warning: .*p\\.jsonl is unfinished \\(${8 - written} of its 8 rows are not in it yet\\)`));
    // Scored as CSV, whose rows have no place for it, the note that the run is incomplete goes to stderr.
    const csv = await runAwb(['score', join(dir, 'j.jsonl'), '--format', 'csv']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.match(csv.stderr, /^awb: note: .*the manifest says the run is incomplete/m);
    assert.doesNotMatch(csv.stdout, /incomplete/);
    const finished = await runAwb(inferArgs(world.url, data.dir, predictions));
    assert.equal(finished.code, 0, finished.stderr);
    const whole = await runAwb(judgeArgs(judge.url, predictions, join(dir, 'j.jsonl')));
    assert.equal(whole.code, 0, whole.stderr);
    assert.doesNotMatch(whole.stderr, /unfinished/);
  });

  it('after infer was killed (kill -9: its manifest kept the counts of the start), counts the rows the file holds', async () => {
    const { written, partial } = await judgedUnfinished('SIGKILL');
    assert.match(partial.stderr, new RegExp(`p\\.jsonl is unfinished \\(${8 - written} of its 8 rows are not in it yet\\)`));
  });
});

describe('a file name too long for the file system', () => {
  it('is one line naming it and exit 2, for an output and an input alike, with nothing left behind', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 2, ['terminal']);
    const s = await server({ reply: worldReply });
    const out = join(dir, 'out');
    // Too long itself, and long enough that only the names awb adds beside it (.lock…, .manifest.json) are too long.
    for (const [name, says] of [
      ['b'.repeat(270), /^awb: .*b\.jsonl: the name is too long for the file system$/],
      // Named as given, not as the lock file awb failed to make beside it.
      [
        'a'.repeat(240),
        /^awb: cannot write --output .*a\.jsonl: the names of the files awb keeps beside it .* too long for the file system; choose a name of at most 212 bytes$/,
      ],
    ] as const) {
      const r = await runAwb(inferArgs(s.url, data.dir, join(out, `${name}.jsonl`)));
      assert.equal(r.code, 2, r.stderr);
      assert.deepEqual(stackLines(r.stderr), []);
      assert.match(errorLines(r.stderr).join('\n'), says);
    }
    // Refused before anything is made: not even the output's folder.
    assert.equal(existsSync(out), false);
    const score = await runAwb(['score', join(dir, `${'c'.repeat(270)}.jsonl`)]);
    assert.equal(score.code, 2, score.stderr);
    assert.match(score.stderr, /the name is too long for the file system/);
  });
});

describe('merge interrupted', () => {
  it('drops the merged file it was writing: no temporary file is left, and nothing under the name', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 4, ['terminal']);
    const s = await server({ reply: worldReply });
    const shard = join(dir, 'p.jsonl');
    assert.equal((await runAwb(inferArgs(s.url, data.dir, shard))).code, 0);
    const out = join(dir, 'merged');
    // Ctrl-C once the merged rows are being written: the signal reads as aborted from the moment a temporary file is there.
    const writing = () => existsSync(out) && readdirSync(out).some((name) => name.endsWith('.tmp'));
    const interrupted = {
      throwIfAborted() {
        if (writing()) throw new DOMException('interrupted', 'AbortError');
      },
    } as unknown as AbortSignal;
    await assert.rejects(
      mergeShards({ out: join(out, 'm.jsonl'), shards: [shard], allowGaps: false, force: false, signal: interrupted }),
      (err: Error) => err.name === 'AbortError',
    );
    assert.deepEqual(await readdir(out), []);
  });
});

describe('a reader of stdout that stops early', () => {
  it('leaves the gate its exit code (5 for an incomplete candidate, under set -o pipefail) and the step summary written', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 4, ['terminal']);
    const world = await server({ reply: worldReply });
    const judge = await server({ reply: judgeReply });
    let asked = 0;
    const garbled = await server({ reply: (req, ctx) => (asked++ % 2 ? 'no verdict here' : judgeReply(req, ctx)) });
    const predictions = join(dir, 'p.jsonl');
    assert.equal((await runAwb(inferArgs(world.url, data.dir, predictions))).code, 0);
    const baseline = join(dir, 'base.jsonl');
    const candidate = join(dir, 'cand.jsonl');
    assert.equal((await runAwb(judgeArgs(judge.url, predictions, baseline))).code, 0);
    // Half the candidate rows failed where the baseline's are valid (judge exits 1 on them): an incomplete candidate fails the gate.
    assert.equal((await runAwb(judgeArgs(garbled.url, predictions, candidate, ['--parse-attempts', '1']))).code, 1);
    const summary = join(dir, 'summary.md');
    const args = ['compare', baseline, candidate, '--fail-below', '1', '--format', 'json', '--summary', summary];
    // `awb compare … | head -c 0`: the reader is gone before awb writes a byte.
    const child = spawn(process.execPath, [AWB_BIN, ...args], { env: awbEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await exitCode(child);
    assert.equal(code, 5, stderr);
    assert.match(await readFile(summary, 'utf8'), /^## awb compare/m);
  });
});

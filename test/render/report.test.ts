import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import fsPromises, { type FileHandle } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, it, mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { MAX_TEXT, MIN_TEXT, collectReport, cut, fitLimit, rowRef } from '../../src/core/report/index.js';
import { packedJson, scriptSafeJson } from '../../src/render/html/report.js';
import { readJudged, scoreInputs } from '../../src/core/score/index.js';
import { judgedRow, repeatRow, scoreRequestOf, tempDir, writeJudged } from '../fixtures/judged/rows.js';
import { awb } from '../support/cli.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dir = tempDir('awb-report-');

describe('report texts', () => {
  it('cuts long texts and says how long they were, never splitting a surrogate pair', () => {
    assert.equal(cut('short', 10), 'short');
    assert.deepEqual(cut('abcdefghij', 4), { head: 'abcd', length: 10 });
    // '😀' is two code units: a cut inside it keeps neither half.
    assert.deepEqual(cut('abc😀def', 4), { head: 'abc', length: 8 });
  });

  it('lowers the limit for every text alike until they fit the budget, long texts first', () => {
    assert.equal(fitLimit([10, 20, 30], 1000), MAX_TEXT);
    const lengths = [100, 100, 50_000, 50_000];
    const limit = fitLimit(lengths, 10_000);
    const kept = (l: number) => lengths.reduce((n, x) => n + Math.min(x, l), 0);
    assert.ok(kept(limit) <= 10_000 && kept(limit + 1) > 10_000, `limit ${limit}`);
    assert.equal(fitLimit([1e6, 1e6], 10), MIN_TEXT);
  });

  it('names rows domain/id/turn_idx with the exact id', () => {
    assert.equal(rowRef('android', '12345678901234567890', 3), 'android/12345678901234567890/3');
  });

  it('embeds data so that no `<` can close its script block', () => {
    const hostile = { p: '</script><script>alert(1)</script><!--' };
    const safe = scriptSafeJson(hostile);
    assert.ok(!safe.includes('<'));
    assert.deepEqual(JSON.parse(safe), hostile);
    const packed = packedJson(hostile);
    assert.match(packed, /^[A-Za-z0-9+/=]+$/);
    assert.deepEqual(JSON.parse(gunzipSync(Buffer.from(packed, 'base64')).toString('utf8')), hostile);
  });
});

describe('collectReport', () => {
  it('keeps what the judge saw: the cleaned prediction, the ground truth of the turn, the action', async () => {
    const rows = [
      {
        ...judgedRow({ domain: 'web', id: 9, turn: 2, dims: [5, 4, 3, 2, 1] }),
        gen: '<think>plan</think>noise<predicted_observation>\n<html>PAGE</html>\n</predicted_observation>',
        strengths: ['s1', 's2'],
        weaknesses: 'one string',
        judge_raw_output: 'RAW',
      },
      // No current_prompt: the action is prompt[turn_idx-1].
      judgedRow({ domain: 'mcp', id: 1, turn: 2 }),
      judgedRow({ domain: 'mcp', id: 2, bare: true }),
    ];
    // A line with a repeated key takes the JSON.parse path (the last value wins, as in JSON.parse).
    const repeated = JSON.stringify(judgedRow({ domain: 'os', id: 3 })).replace(/^\{/, '{"gen":"first",');
    const file = writeJudged(dir, 'collect.jsonl', rows, repeated + '\n');
    const got = (await collectReport(scoreRequestOf([file]))).rows;
    assert.equal(got.rows.length, 4);
    const [web, mcp, bare, os] = got.rows;
    assert.equal(web!.prediction, '<html>PAGE</html>');
    assert.equal(web!.truth, 'observation 9.2');
    assert.equal(web!.ref, 'web/9/2');
    assert.deepEqual(web!.grades, [5, 4, 3, 2, 1]);
    assert.equal(web!.scoreText, '50.00');
    assert.deepEqual(web!.strengths, ['s1', 's2']);
    assert.deepEqual(web!.weaknesses, ['one string']);
    assert.equal(web!.judge, 'RAW');
    assert.equal(mcp!.action, 'action 1.2');
    assert.equal(bare!.failed, true);
    assert.equal(bare!.score, undefined);
    assert.equal(bare!.scoreText, 'n/a');
    assert.equal(bare!.error, 'empty generation');
    assert.equal(os!.prediction, 'simulated observation');
    assert.equal(os!.line, 4);
  });
});

describe('reading for the report and for score', () => {
  // 40 rows of 100 KB: 4 MB, four times the reader's 1 MiB chunk, so a second reading cannot hide in the look at the first row.
  const big = (row: Record<string, unknown>) => ({ ...row, gen: 'g'.repeat(100_000) });
  const rubricFile = writeJudged(
    dir,
    'once.jsonl',
    Array.from({ length: 40 }, (_, i) => big(judgedRow({ domain: 'mcp', id: i + 1 }))),
  );
  const repeatFile = writeJudged(
    dir,
    'once-repeat.jsonl',
    Array.from({ length: 40 }, (_, i) => big(repeatRow({ domain: 'mcp', id: i + 1 }, [3, 4 + (i % 2)]))),
  );

  /** Bytes read from `file` by `work`. */
  async function bytesRead(file: string, work: () => Promise<unknown>): Promise<number> {
    let bytes = 0;
    const open = fsPromises.open;
    mock.method(fsPromises, 'open', async (...args: Parameters<typeof open>) => {
      const handle: FileHandle = await open(...args);
      if (args[0] !== file) return handle;
      const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
      Object.assign(handle, {
        read: async (...a: unknown[]) => {
          const r = await read(...a);
          bytes += r.bytesRead;
          return r;
        },
      });
      return handle;
    });
    syncBuiltinESMExports();
    try {
      await work();
    } finally {
      mock.restoreAll();
      syncBuiltinESMExports();
    }
    return bytes;
  }

  for (const [kind, file] of [
    ['a rubric file', rubricFile],
    ['a --repeat file', repeatFile],
  ] as const) {
    it(`reads ${kind} once, besides a look at its first row`, async () => {
      // One reading as the leaderboard does it: the lines that span a chunk are read again whole, by design of the reader.
      const once = await bytesRead(file, () => readJudged(file));
      assert.ok(once >= statSync(file).size, `the file was read (${once} bytes)`);
      // The look at the first row reads up to two 64 KiB chunks and the first line (100 KB) whole.
      const budget = once + 2 * (1 << 16) + 110_000;
      const report = await bytesRead(file, () => collectReport(scoreRequestOf([file])));
      assert.ok(report <= budget, `${report} bytes read for the report, ${once} for one reading of the file`);
      // awb score reads its files through scoreInputs.
      const score = await bytesRead(file, () => scoreInputs(scoreRequestOf([file])));
      assert.ok(score <= budget, `${score} bytes read for score, ${once} for one reading of the file`);
    });
  }
});

describe('awb report (command)', () => {
  it('refuses to write over one of its inputs', async () => {
    const file = writeJudged(dir, 'input.jsonl', [judgedRow({ domain: 'mcp', id: 1 })]);
    const before = readFileSync(file, 'utf8');
    const r = await awb('report', file, '-o', file);
    assert.equal(r.code, 2, r.stderr);
    // One line naming the output and saying it is an input.
    assert.ok(r.stderr.includes(`${file} is also the input ${file};`), r.stderr);
    assert.equal(readFileSync(file, 'utf8'), before);
  });

  it('replaces an earlier report, but never a JSON file (a judged file given to -o by mistake)', async () => {
    const file = writeJudged(dir, 'kinds.jsonl', [judgedRow({ domain: 'mcp', id: 1 })]);
    const other = writeJudged(dir, 'other-run.jsonl', [judgedRow({ domain: 'mcp', id: 2 })]);
    const before = readFileSync(other, 'utf8');
    const report = (out: string) => awb('report', file, '-o', out, '--no-ci');
    const r = await report(other);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `awb: ${other} exists and holds JSON: report -o writes an HTML page over it; name another file\n`);
    assert.equal(readFileSync(other, 'utf8'), before);
    const page = join(dir, 'again.html');
    assert.equal((await report(page)).code, 0);
    const again = await report(page);
    assert.equal(again.code, 0, again.stderr);
    assert.match(readFileSync(page, 'utf8'), /^<!doctype html>/);
  });

  it('writes into a pipe or device given as -o (`/dev/stdout`) instead of replacing it with a file', async () => {
    const file = writeJudged(dir, 'piped.jsonl', [judgedRow({ domain: 'mcp', id: 1 })]);
    const fifo = join(dir, 'report.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // A reader at the other end, as a shell pipe has; stopped below if awb never opens the pipe.
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    reader.stdout.on('data', (c: Buffer) => chunks.push(c));
    const closed = once(reader, 'close');
    const r = spawnSync(process.execPath, [join(root, 'bin/awb.js'), 'report', file, '-o', fifo, '--no-ci'], { encoding: 'utf8' });
    const stillPipe = statSync(fifo).isFIFO();
    // awb that failed may never have opened the pipe: the reader would wait for a writer for ever.
    if (!stillPipe || r.status !== 0) reader.kill();
    await closed;
    assert.equal(r.status, 0, r.stderr);
    assert.ok(stillPipe, 'the pipe was replaced by a regular file');
    assert.match(Buffer.concat(chunks).toString('utf8'), /^<!doctype html>[^]*<\/html>\n?$/);
  });

  it('writes a page whose policy forbids every request and admits only its own script and style', async () => {
    const file = writeJudged(dir, 'one.jsonl', [judgedRow({ domain: 'mcp', id: 1 })]);
    const out = join(dir, 'one.html');
    writeFileSync(out, 'old');
    const r = await awb('report', file, '-o', out, '--no-ci');
    assert.equal(r.code, 0, r.stderr);
    const html = readFileSync(out, 'utf8');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!;
    assert.match(csp, /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
    // The one address in the page is the SVG namespace, a name that is never loaded.
    assert.doesNotMatch(html.replaceAll("'http://www.w3.org/2000/svg'", ''), /https?:\/\//, 'no address to load anything from');
    assert.equal((html.match(/<script>/g) ?? []).length, 1, 'one executable script');
  });
});

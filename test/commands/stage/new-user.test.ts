/*
 * What a demanding new user runs into first: a file saved by a Windows
 * editor, an output path in a folder that does not exist yet (or that is a
 * folder), an endpoint answering with an empty `choices` list, and the
 * summary's words for an empty reply. Each is the real binary against real
 * HTTP servers on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAwb, startAwb } from '../../support/cli.js';
import {
  countNewlines,
  errorLines,
  judgeReply,
  keyOf,
  makeDataset,
  readRowsOf,
  stackLines,
  tempDirs,
  waitFor,
  worldReply,
  writeJsonl,
  type Dataset,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import type { FakeServer } from '../../support/openai-server.js';
import { chatServer, json, models, rawServer } from '../../support/raw-server.js';
import { refusalLine, snapshot } from '../../support/refusal.js';
import { manifestPathFor } from '../../../src/core/schemas/index.js';
import { RUN_WORDS } from '../../../src/commands/words/stage/run.js';

const temps = tempDirs('new-user');
const server = useServers();
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** A finished run of 14 rows (predictions, then judged) that the probes below start from. */
let root: string;
let ds: Dataset;
let judged: string;
let world: FakeServer;
let judge: FakeServer;

before(async () => {
  root = await temps.make();
  ds = await makeDataset(root, 14);
  const pred = join(root, 'run', 'pred.jsonl');
  judged = join(root, 'run', 'judged.jsonl');
  [world, judge] = await Promise.all([server({ reply: worldReply }), server({ reply: judgeReply })]);
  assert.equal((await runAwb(inferArgs(world.url, ds.dir, pred))).code, 0);
  assert.equal((await runAwb(judgeArgs(judge.url, pred, judged))).code, 0);
});

after(() => temps.cleanup());

/** The finished run's judged rows at `path`, those that `failing` picks failed with `error` (every grade 0). */
async function writeFailed(
  path: string,
  error: string,
  failing: (row: Record<string, unknown>) => boolean,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const failed = {
    failed: 1,
    total_score: 0,
    format: 0,
    factuality: 0,
    consistency: 0,
    realism: 0,
    quality: 0,
    error_message: error,
    ...extra,
  };
  await writeJsonl(
    path,
    (await readRowsOf(judged)).map((row) => (failing(row) ? { ...row, ...failed } : row)),
  );
}

/** The same file with a UTF-8 byte order mark in front, as Notepad saves it. */
async function withBom(from: string, to: string): Promise<void> {
  await mkdir(join(to, '..'), { recursive: true });
  await writeFile(to, Buffer.concat([BOM, await readFile(from)]));
}

describe('a file that starts with a UTF-8 byte order mark', { concurrency: 3 }, () => {
  it('infer reads its first row, and no output line carries the mark', async () => {
    const data = join(root, 'bom-data');
    for (const [domain, path] of ds.files) await withBom(path, join(data, `${domain}_test.jsonl`));
    const out = join(root, 'bom-infer', 'pred.jsonl');
    const r = await runAwb(inferArgs(world.url, data, out));
    assert.equal(r.code, 0, r.stderr);
    const rows = await readRowsOf(out);
    assert.deepEqual(new Set(rows.map(keyOf)), new Set(ds.rows.map((row) => keyOf(row as unknown as Record<string, unknown>))));
    assert.equal((await readFile(out)).includes(BOM), false);
  });

  it('judge and score read it as the file without the mark', async () => {
    const preds = join(root, 'bom-judge', 'pred.jsonl');
    await withBom(join(root, 'run', 'pred.jsonl'), preds);
    const out = join(root, 'bom-judge', 'judged.jsonl');
    const j = await runAwb(judgeArgs(judge.url, preds, out));
    assert.equal(j.code, 0, j.stderr);
    assert.equal((await readRowsOf(out)).length, ds.rows.length);

    const bomJudged = join(root, 'bom-score', 'judged.jsonl');
    await withBom(judged, bomJudged);
    const plain = await runAwb(['score', judged, '--format', 'json', '--no-ci']);
    const marked = await runAwb(['score', bomJudged, '--format', 'json', '--no-ci']);
    assert.equal(marked.code, 0, marked.stderr);
    const runOf = (stdout: string) => (JSON.parse(stdout) as { runs: Array<{ domains: unknown; rows: number }> }).runs[0]!;
    assert.deepEqual(runOf(marked.stdout).domains, runOf(plain.stdout).domains);
    assert.equal(runOf(marked.stdout).rows, ds.rows.length);
  });
});

describe('output paths', { concurrency: 3 }, () => {
  it('report -o a folder: one line, exit 2, no stack', async () => {
    const folder = join(root, 'a-folder');
    await mkdir(folder, { recursive: true });
    assert.match(refusalLine(await runAwb(['report', judged, '-o', folder]), 2), /a-folder: is a folder/);
  });

  it('report -o and merge -o in a folder that does not exist yet create it, as infer does', async () => {
    const page = join(root, 'new', 'reports', 'report.html');
    const r = await runAwb(['report', judged, '-o', page]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(await readFile(page, 'utf8'), /<html/i);

    const shards = [1, 2].map((k) => join(root, 'shards', `pred-${k}.jsonl`));
    for (const [k, out] of shards.entries()) {
      const s = await runAwb(inferArgs(world.url, ds.dir, out, ['--shard', `${k + 1}/2`]));
      assert.equal(s.code, 0, s.stderr);
    }
    const merged = join(root, 'new', 'merged', 'pred.jsonl');
    const m = await runAwb(['merge', '-o', merged, ...shards]);
    assert.equal(m.code, 0, m.stderr);
    assert.equal((await readRowsOf(merged)).length, ds.rows.length);
  });

  it('report -o and merge -o refused for their inputs leave no new folder behind', async () => {
    const report = join(root, 'refused', 'reports', 'r.html');
    const r = await runAwb(['report', join(root, 'no-such.jsonl'), '-o', report]);
    assert.equal(r.code, 2, r.stderr);
    const merged = join(root, 'refused', 'merged', 'm.jsonl');
    const m = await runAwb(['merge', '-o', merged, join(root, 'no-such-1.jsonl'), join(root, 'no-such-2.jsonl')]);
    assert.notEqual(m.code, 0, m.stderr);
    assert.deepEqual(stackLines(m.stderr), []);
    assert.equal(existsSync(join(root, 'refused')), false);
  });

  it('report -o under a regular file: one line, exit 2, nothing written', async () => {
    const before = await snapshot([judged]);
    refusalLine(await runAwb(['report', judged, '-o', join(judged, 'report.html')]), 2);
    assert.deepEqual(await snapshot([judged]), before);
  });
});

describe('replies without an answer', () => {
  it('an empty choices list is a malformed reply: asked again, and the row left for the next run (exit 1), not an empty generation', async () => {
    const s = await server({ faults: () => 'no-choices' });
    const out = join(root, 'no-choices', 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--domains', 'mcp', '--max-retries', '1']));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.ok(rows.length > 0);
    for (const row of rows) assert.equal(row.error, `${s.url} returned a reply without choices`);
    assert.equal(s.stats.requests, 2 * rows.length, 'each malformed reply asked again once, as --max-retries 1 says');
  });

  it('with --stream, a server that answers plain JSON instead of events leaves its rows failed (exit 1), not empty', async () => {
    const s = await server({ faults: () => 'unstreamed' });
    const out = join(root, 'no-events', 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--domains', 'mcp', '--stream', '--max-retries', '0']));
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.ok(rows.length > 0);
    for (const row of rows) assert.match(String(row.error), /no choice in its stream/);
    assert.ok(!r.stderr.includes(RUN_WORDS.summaryWarn.empty), r.stderr);
  });

  it('with --stream and --extra-body {"stream_options": null}, a server that then sends no usage leaves rows answered without token counts (exit 0)', async () => {
    const s = await server({});
    const out = join(root, 'no-usage', 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--domains', 'mcp', '--stream', '--extra-body', '{"stream_options": null}']));
    assert.equal(r.code, 0, r.stderr);
    const rows = await readRowsOf(out);
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.ok(row.gen, JSON.stringify(row));
      assert.equal(row.usage, null, JSON.stringify(row));
    }
  });

  it('the summary names empty replies as such, not as an unknown error', async () => {
    const empty = await server({ reply: () => '' });
    const out = join(root, 'empty', 'pred.jsonl');
    const r = await runAwb(inferArgs(empty.url, ds.dir, out, ['--domains', 'mcp']));
    // Empty generations are final failures: exit 1, counted.
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /infer: \d+ rows? ended failed/);
    assert.ok(existsSync(out));
    assert.doesNotMatch(r.stderr, /unknown error/);
    assert.match(r.stderr, /× empty reply/);
  });
});

describe('replies that are not what they claim', { concurrency: 3 }, () => {
  /** An endpoint answering every chat completion with `body` (status 200, as `type`), its models list in order. */
  const answering = (body: string, type = 'application/json') =>
    chatServer((req, res) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    });
  const choice = (c: object) => JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'test-model', choices: [c] });
  const cases: Array<[string, string, string | undefined, RegExp]> = [
    [
      'content that is a number',
      choice({ index: 0, message: { role: 'assistant', content: 42 }, finish_reason: 'stop' }),
      undefined,
      /content is not text/,
    ],
    ['a choice without a message', choice({ index: 0, finish_reason: 'stop' }), undefined, /a choice without a message/],
    [
      'reasoning that is an object',
      choice({ index: 0, message: { role: 'assistant', content: 'x', reasoning_content: { a: 1 } }, finish_reason: 'stop' }),
      undefined,
      /reasoning_content is not text/,
    ],
    ['a web page', '<!doctype html><html><body>Sign in</body></html>', 'text/html', /not JSON: "<!doctype html>/],
  ];
  for (const [what, body, type, why] of cases) {
    it(`${what}: asked again, then the row is left failed (exit 1) with the reason; infer never writes it, nor judge`, async () => {
      const { url, seen } = await answering(body, type);
      const dir = join(root, `odd-${what.replace(/\W+/g, '-')}`);
      const out = join(dir, 'pred.jsonl');
      const r = await runAwb(inferArgs(url, ds.dir, out, ['--domains', 'mcp', '--max-retries', '1']));
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(stackLines(r.stderr), []);
      const rows = await readRowsOf(out);
      assert.ok(rows.length > 0);
      for (const row of rows) {
        assert.equal(row.gen, '');
        assert.match(String(row.error), why);
        assert.equal(row.gen_reasoning, undefined);
      }
      assert.equal(
        seen.filter((s) => s.startsWith('POST')).length,
        2 * rows.length,
        'each malformed reply asked again once, as --max-retries 1 says',
      );
      const judgedOut = join(dir, 'judged.jsonl');
      const j = await runAwb(judgeArgs(url, join(root, 'run', 'pred.jsonl'), judgedOut, ['--domains', 'mcp', '--max-retries', '0']));
      assert.equal(j.code, 1, j.stderr);
      for (const row of await readRowsOf(judgedOut)) {
        assert.match(String(row.error_message), why);
        assert.ok(row.judge_raw_output === undefined || typeof row.judge_raw_output === 'string', JSON.stringify(row.judge_raw_output));
      }
    });
  }
});

describe('an empty --domains', () => {
  it('("$DOMAINS" unset in a CI script) is refused, not read as every domain', async () => {
    const before = world.stats.requests;
    const out = join(root, 'no-domains', 'pred.jsonl');
    for (const value of ['', ' , ']) {
      const r = await runAwb(inferArgs(world.url, ds.dir, out, ['--domains', value]));
      assert.equal(r.code, 2, r.stderr);
      assert.deepEqual(errorLines(r.stderr), [`awb: --domains names no domain (got "${value}"); leave the option out for every domain`]);
    }
    assert.equal(world.stats.requests, before);
    assert.equal(existsSync(out), false);
  });
});

describe('--domains', () => {
  it('names a selection, not an order: the same domains in another order, spelling or twice resume the run', async () => {
    const out = join(root, 'domain-order', 'pred.jsonl');
    const first = await runAwb(inferArgs(world.url, ds.dir, out, ['--domains', 'os,mcp']));
    assert.equal(first.code, 0, first.stderr);
    const rows = await countNewlines(out);
    const before = world.stats.requests;
    for (const value of ['mcp,os', 'MCP,OS,os']) {
      const r = await runAwb(inferArgs(world.url, ds.dir, out, ['--domains', value]));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /0 of \d+ rows to do/);
    }
    // A manifest that recorded the domains as typed, before they were recorded in one order.
    const manifest = `${out}.manifest.json`;
    const m = JSON.parse(await readFile(manifest, 'utf8')) as { settings: { domains: string[] } };
    assert.deepEqual(m.settings.domains, ['mcp', 'os']);
    m.settings.domains = ['os', 'mcp'];
    await writeFile(manifest, JSON.stringify(m));
    const old = await runAwb(inferArgs(world.url, ds.dir, out, ['--domains', 'mcp,os']));
    assert.equal(old.code, 0, old.stderr);
    assert.equal(world.stats.requests, before, 'no row was sent again');
    assert.equal(await countNewlines(out), rows);
  });
});

describe('a data file named in another case (Web_test.jsonl)', () => {
  it('is the web domain for --domains too, as domain names are case-insensitive everywhere', async () => {
    const dir = join(await temps.make(), 'data');
    await mkdir(dir);
    await writeFile(join(dir, 'Web_test.jsonl'), await readFile(ds.files.get('web')!));
    const r = await runAwb(inferArgs(world.url, dir, join(dir, '..', 'out', 'pred.jsonl'), ['--domains', 'web', '--dry-run']));
    assert.equal(r.code, 0, r.stderr);
    const web = ds.rows.filter((row) => row.task === 'web').length;
    assert.ok(web > 0);
    assert.match(r.stderr, new RegExp(`infer dry run: ${web} requests for ${web} rows`));
  });
});

describe('score --failures-as-lowest', () => {
  it('scores a file whose rows all failed (0, each row at the lowest grade) instead of refusing it', async () => {
    const failed = join(root, 'all-failed', 'judged.jsonl');
    await writeFailed(failed, 'Judge scoring failed: reply could not be parsed: no JSON object', () => true);
    const refused = await runAwb(['score', failed]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /no valid judged rows \(all \d+ rows failed\)/);
    const r = await runAwb(['score', failed, '--failures-as-lowest', '--format', 'json', '--no-ci']);
    assert.equal(r.code, 0, r.stderr);
    const run = (JSON.parse(r.stdout) as { runs: Array<{ rows: number; valid: number; domains: Record<string, { score: number }> }> })
      .runs[0]!;
    assert.equal(run.rows, ds.rows.length);
    assert.equal(run.valid, 0);
    for (const d of Object.values(run.domains)) assert.equal(d.score, 0);
  });
});

describe('Ctrl-C while requests wait to be tried again', () => {
  it('stops at once: a request waiting out a Retry-After is not sent again, and its row is left for the next run', async () => {
    const limited = await server({ reply: worldReply, faults: () => ({ kind: '429', retryAfter: 60 }) });
    const out = join(root, 'rate-limited', 'pred.jsonl');
    const run = startAwb(inferArgs(limited.url, ds.dir, out, ['-c', '2', '--grace', '60']));
    // The first 429 pauses the endpoint for its Retry-After (the pacing), so one request may be all that goes.
    await waitFor(() => limited.log.some((e) => e.outcome === '429'), run.exited, 'the first 429');
    const started = Date.now();
    run.child.kill('SIGINT');
    const { code, stderr } = await run.exited;
    assert.equal(code, 130, stderr);
    // The retries were due in 60 s and the grace is 60 s: an exit well before either means nobody waited for them.
    assert.ok(Date.now() - started < 30_000, 'the stop waited for the Retry-After');
    // Each request went once: none was tried again after Ctrl-C. (A request of the second slot may be on its way when
    // Ctrl-C comes, however long the test waits, so what counts is a second attempt, not a late first one.)
    const sent = limited.log.filter((e) => e.hash).map((e) => e.hash);
    assert.deepEqual([...new Set(sent)], sent, 'a request was sent again after Ctrl-C');
    assert.equal(await countNewlines(out), 0);
    assert.match(stderr, /interrupted with \d+ rows left/);
  });
});

describe('a run with a domain whose rows all failed', () => {
  it('is not ranked best on Overall against a complete run, and one note says what its Overall averages', async () => {
    const holed = join(root, 'holed', 'judged.jsonl');
    // Averaged over six domains against seven, either Overall could come out higher: neither may be marked best.
    await writeFailed(holed, 'x', (row) => row.task === 'swe');
    const r = await runAwb(['score', judged, holed, '--format', 'json', '--no-ci']);
    assert.equal(r.code, 0, r.stderr);
    type Cell = { score: number; best: boolean; domains?: number };
    const report = JSON.parse(r.stdout) as {
      runs: Array<{ file: string; overall: { macro: Cell; micro: Cell } }>;
      notes: string[];
    };
    const [complete, partial] = report.runs;
    assert.equal(partial!.overall.macro.domains, complete!.overall.macro.domains! - 1);
    for (const run of report.runs) for (const cell of [run.overall.macro, run.overall.micro]) assert.equal(cell.best, false);
    // The coverage note names the set each Overall averages: all seven, and six without SWE.
    const coverage = report.notes.filter((n) => /Overall/.test(n));
    assert.equal(coverage.length, 1, report.notes.join('\n'));
    assert.match(
      coverage[0]!,
      /^domains differ, so Overall averages different sets and is not ranked \(all seven in [^;]+; ((?!swe)\w+, ){5}(?!swe)\w+ in /,
    );
    const alone = await runAwb(['score', holed, '--format', 'json', '--no-ci']);
    const notes = (JSON.parse(alone.stdout) as { notes: string[] }).notes.filter((n) => /Overall/.test(n));
    assert.equal(notes.length, 1, notes.join('\n'));
    assert.match(notes[0]!, /judged\.jsonl: no valid rows in SWE, so its Overall leaves that domain out \(macro: 6 of 7 domains\)$/);
  });
});

describe('Ctrl-C during the preflight check', () => {
  /** Starts `args` against an endpoint that takes the models check and never answers, and presses Ctrl-C during it. */
  async function interruptCheck(seen: string[], args: string[]) {
    const run = startAwb(args);
    await waitFor(() => seen.length >= 1, run.exited, 'the models check');
    run.child.kill('SIGINT');
    return run.exited;
  }

  it('ends the run as interrupted (130) at once, not as a dead endpoint (3), and writes nothing', async () => {
    const { url, seen } = await rawServer(() => undefined);
    const out = join(root, 'preflight-stop', 'pred.jsonl');
    const r = await interruptCheck(seen, inferArgs(url, ds.dir, out));
    assert.match(refusalLine(r, 130), /^awb: infer interrupted during the endpoint check: nothing was sent or written$/);
    assert.doesNotMatch(r.stderr, /did not answer the models check/);
    assert.equal(existsSync(join(root, 'preflight-stop')), false);
  });

  it('without --data (the check comes before the download): the same line, exit 130, nothing fetched or written', async () => {
    const { url, seen } = await rawServer(() => undefined);
    const hub = await rawServer((_req, res) => json(res, 500, { error: 'not to be asked' }));
    const out = join(root, 'preflight-nodata', 'pred.jsonl');
    const args = inferArgs(url, ds.dir, out).filter((a, i, all) => a !== '--data' && all[i - 1] !== '--data');
    const run = startAwb(args, { env: { HF_ENDPOINT: hub.url, HF_HOME: join(root, 'preflight-nodata-hf') } });
    await waitFor(() => seen.length >= 1, run.exited, 'the models check');
    run.child.kill('SIGINT');
    const r = await run.exited;
    assert.match(refusalLine(r, 130), /^awb: infer interrupted during the endpoint check: nothing was sent or written$/);
    assert.equal(hub.seen.length, 0, 'nothing asked of the hub');
    assert.equal(existsSync(join(root, 'preflight-nodata')), false);
  });

  it('leaves an output it would resume as it was', async () => {
    // Fails every row at first (left for the next run to redo; the same 500 every time stops the run, exit 3), then takes the
    // models check and never answers.
    let hang = false;
    const { url, seen } = await rawServer((req, res) => {
      if (hang) return;
      if (req.url?.endsWith('/models')) models(res);
      else json(res, 500, { error: { message: 'down' } });
    });
    const out = join(root, 'preflight-resume', 'pred.jsonl');
    const args = inferArgs(url, ds.dir, out, ['--max-retries', '0']);
    assert.equal((await runAwb(args)).code, 3);
    const files = [out, manifestPathFor(out), `${out}.lock`];
    const before = await snapshot(files);
    hang = true;
    seen.length = 0;
    const r = await interruptCheck(seen, args);
    assert.match(refusalLine(r, 130), /interrupted during the endpoint check/);
    assert.deepEqual(await snapshot(files), before);
  });
});

describe('output piped into a reader that stops early (`awb rows … | head`)', () => {
  it('ends quietly, exit 0, without a stack trace', async () => {
    const many = join(root, 'many', 'judged.jsonl');
    const rows = await readRowsOf(judged);
    // Far more than a pipe holds, so awb is still writing when the reader goes.
    await writeJsonl(
      many,
      Array.from({ length: 60 }, (_, copy) => rows.map((row) => ({ ...row, id: `${String(row.id)}-${copy}` }))).flat(),
    );
    for (const format of ['table', 'json']) {
      const { child, exited } = startAwb(['rows', many, '--format', format]);
      child.stdout!.once('data', () => child.stdout!.destroy());
      const { code, stderr } = await exited;
      assert.equal(code, 0, stderr);
      assert.deepEqual(stackLines(stderr), []);
      assert.doesNotMatch(stderr, /EPIPE/);
    }
  });
});

describe('judge-mode tables', () => {
  it('name the domains as the leaderboard does (MCP, SWE), not by their file spelling', async () => {
    const picker = await server({ reply: () => 'The first is real. \\boxed{A}' });
    const out = join(root, 'turing', 'judged.jsonl');
    const j = await runAwb(judgeArgs(picker.url, join(root, 'run', 'pred.jsonl'), out, ['--mode', 'turing']));
    assert.equal(j.code, 0, j.stderr);
    const r = await runAwb(['score', out, '--no-ci']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^MCP +\d+\/\d+/m);
    assert.match(r.stdout, /^SWE +\d+\/\d+/m);
    assert.doesNotMatch(r.stdout, /^(mcp|swe) /m);
  });
});

describe('the same command started twice on one output', () => {
  it('the second is refused while the first runs (no row sent or written twice); a lock left by a killed run is taken over', async () => {
    // Answers are held until the second run has been refused, so the first is surely still running then.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow = await server({
      reply: async (req, ctx) => {
        await held;
        return worldReply(req, ctx);
      },
    });
    const out = join(root, 'twice', 'pred.jsonl');
    const first = startAwb(inferArgs(slow.url, ds.dir, out, ['-c', '2']));
    await waitFor(() => slow.stats.requests >= 1, first.exited, 'the first request');
    const second = await runAwb(inferArgs(slow.url, ds.dir, out, ['-c', '2']));
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /pred\.jsonl is being written by another awb run \(pid \d+\)/);
    release();
    const done = await first.exited;
    assert.equal(done.code, 0, done.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, ds.rows.length);
    assert.equal(new Set(rows.map(keyOf)).size, rows.length);
    assert.equal(existsSync(`${out}.lock`), false);

    // A run killed with -9 leaves its lock; its process is gone, so the next run goes on.
    const gone = startAwb(['--version']);
    await gone.exited;
    await writeFile(`${out}.lock`, `${gone.child.pid} ${hostname()}\n`);
    const again = await runAwb(inferArgs(slow.url, ds.dir, out));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(existsSync(`${out}.lock`), false);
  });
});

describe('the regression gate and a candidate domain that failed whole', () => {
  it('fails unless --allow-partial: a domain without one valid row has no delta, so no test could see it fall', async () => {
    const broken = join(root, 'broken-swe', 'judged.jsonl');
    await writeFailed(broken, 'No model generation', (row) => row.task === 'swe', { gen: '' });
    const gated = await runAwb(['compare', judged, broken, '--fail-below', '1']);
    assert.equal(gated.code, 5, gated.stdout + gated.stderr);
    assert.match(
      gated.stdout,
      /incomplete candidate: SWE: (\d+) of \1 candidate rows have no generation \(their inference failed\) where the baseline's are valid/,
    );
    assert.match(
      gated.stdout,
      /ask its failed rows again: run the commands that made it once more with --retry-failed added \(`.+ infer \.\.\. --retry-failed` for rows without a generation, then `.+ judge \.\.\. --retry-failed`\)/,
    );
    // Allowed, the rows in common are gated: 7 trajectories over 7 tests are too few to test Overall, so it fails as untestable, never passes.
    const allowed = await runAwb(['compare', judged, broken, '--fail-below', '1', '--allow-partial']);
    assert.equal(allowed.code, 6, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout, /Overall could not be tested: 7 trajectories/);
  });
});

describe('an output named like an input manifest, or the pairwise reference', { concurrency: 3 }, () => {
  /** Byte-for-byte copies of the finished run, to be left untouched. */
  async function copyRun(name: string): Promise<{ dir: string; files: string[] }> {
    const dir = join(root, name);
    await mkdir(dir, { recursive: true });
    const names = ['pred.jsonl', 'pred.jsonl.manifest.json', 'judged.jsonl', 'judged.jsonl.manifest.json'];
    for (const f of names) await writeFile(join(dir, f), await readFile(join(root, 'run', f)));
    return { dir, files: names.map((f) => join(dir, f)) };
  }

  it('report -o and compare --summary never write over the manifest of an input', async () => {
    const { dir, files } = await copyRun('manifest-out');
    const before = await snapshot(files);
    const input = join(dir, 'judged.jsonl');
    const report = await runAwb(['report', input, '-o', `${input}.manifest.json`]);
    assert.equal(report.code, 2, report.stderr);
    assert.match(report.stderr, /is also the manifest of the input/);
    const compare = await runAwb(['compare', input, judged, '--summary', `${input}.manifest.json`]);
    assert.equal(compare.code, 2, compare.stderr);
    assert.deepEqual(await snapshot(files), before);
  });

  it('judge -o over its predictions manifest or its pairwise --reference is refused, even with --force', async () => {
    const { dir, files } = await copyRun('reference-out');
    const before = await snapshot(files);
    const preds = join(dir, 'pred.jsonl');
    const overManifest = await runAwb(judgeArgs(judge.url, preds, `${preds}.manifest.json`, ['--force']));
    assert.equal(overManifest.code, 2, overManifest.stderr);
    const reference = join(dir, 'judged.jsonl');
    for (const out of [reference, `${reference}.manifest.json`]) {
      const r = await runAwb(judgeArgs(judge.url, preds, out, ['--mode', 'pairwise', '--reference', reference, '--force']));
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /awb never writes over an input/);
    }
    assert.deepEqual(await snapshot(files), before);
  });
});

describe('first-time mistakes get one line saying what to do', { concurrency: 4 }, () => {
  it('a dataset file given to judge is refused before anything is sent, and nothing is written', async () => {
    const out = join(root, 'dataset-judged', 'judged.jsonl');
    const sent = judge.stats.requests;
    const line = refusalLine(await runAwb(judgeArgs(judge.url, ds.files.get('mcp')!, out)), 2);
    assert.match(line, /mcp_test\.jsonl: holds dataset rows \(no gen\), not predictions; run `(awb|node \S+) infer` first/);
    assert.equal(judge.stats.requests, sent);
    assert.equal(existsSync(out), false);
  });

  it('rows --domain with a typo names the domains the file has, where a selection matching nothing is no error', async () => {
    const typo = refusalLine(await runAwb(['rows', judged, '--domain', 'termnal']), 2);
    assert.match(typo, /judged\.jsonl: no rows of domain "termnal"; it has .*\bterminal\b/);
    const none = await runAwb(['rows', judged, '--domain', 'Terminal', '--failed']);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stderr, /no rows match/);
  });

  it('merge given a shard that does not exist, or a folder, says so', async () => {
    const out = join(root, 'merge-typo', 'merged.jsonl');
    const missing = refusalLine(await runAwb(['merge', '-o', out, join(root, 'run', 'pred.jsonl'), join(root, 'run', 'pred-2.jsonl')]), 2);
    assert.match(missing, /pred-2\.jsonl: no such file$/);
    const folder = refusalLine(await runAwb(['merge', '-o', out, join(root, 'run')]), 2);
    assert.match(folder, /run: is a folder, not a file; merge takes the shard files$/);
    assert.equal(existsSync(out), false);
  });

  it('a rejected key names where the key came from, or that none was given', async () => {
    const locked = await server({ apiKey: 'sk-right', reply: judgeReply });
    const preds = join(root, 'run', 'pred.jsonl');
    const out = join(root, 'key', 'judged.jsonl');
    const none = refusalLine(await runAwb(judgeArgs(locked.url, preds, out)), 3);
    assert.match(
      none,
      /rejected the API key \(401 Unauthorized\): no key was given: set AWB_JUDGE_API_KEY or OPENAI_API_KEY, or pass --judge-api-key KEY$/,
    );
    const fromEnv = refusalLine(await runAwb(judgeArgs(locked.url, preds, out), { env: { OPENAI_API_KEY: 'sk-wrong' } }), 3);
    assert.match(fromEnv, /: check the key in \$OPENAI_API_KEY, or pass another with --judge-api-key$/);
    const models = refusalLine(await runAwb(['models', '--base-url', locked.url, '--api-key', 'sk-wrong']), 3);
    assert.match(models, /: check the key given with --api-key$/);
    assert.doesNotMatch(fromEnv + models, /sk-wrong/);
  });

  it('an https URL to a plain HTTP server says to use http://', async () => {
    const tls = world.url.replace(/^http:/, 'https:');
    const infer = refusalLine(await runAwb(inferArgs(tls, ds.dir, join(root, 'tls', 'pred.jsonl'))), 3);
    assert.match(
      infer,
      /cannot reach world model endpoint https:\S+ \(\S+\): the server does not speak TLS: is it a plain HTTP server \(http:\/\/, not https:\/\/\)\?$/,
    );
    const models = refusalLine(await runAwb(['models', '--base-url', tls]), 3);
    assert.match(models, /the server does not speak TLS/);
  });

  it('a path or URL typed without its option says which option takes it, and never repeats a URL (its query may hold a key)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['infer', ds.dir, '--model-base-url', world.url, '--model-name', 'test-model'],
        /^awb: infer takes no arguments: give the dataset folder as --data DIR$/,
      ],
      [['judge', join(root, 'run', 'pred.jsonl'), '--judge-base-url', judge.url, '--judge-model', 'test-model'], /--predictions FILE$/],
      [['models', `${world.url}?key=sk-secret`], /^awb: models takes no arguments: give the endpoint as --base-url URL$/],
      [['download', join(root, 'nowhere')], /--dir DIR$/],
    ];
    for (const [args, want] of cases) {
      const r = await runAwb(args);
      assert.match(refusalLine(r, 2), want);
      assert.doesNotMatch(r.stderr, /sk-secret/);
    }
    assert.equal(existsSync(join(root, 'nowhere')), false);
  });

  it('a base URL without /v1 (the models check finds nothing there) says the URL usually ends in /v1', async () => {
    const bare = world.url.replace(/\/v1$/, '');
    const line = refusalLine(await runAwb(inferArgs(bare, ds.dir, join(root, 'bare', 'pred.jsonl'))), 3);
    assert.match(
      line,
      /does not know model "test-model" or the chat completions route \(404\): .*; is the model name right \(--model-name\), and does the URL end in \/v1\?$/,
    );
  });
});

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { manifestSchema, type Manifest } from '../../../src/core/schemas/manifest.js';
import { runAwb } from '../../support/cli.js';
import { closedPort } from '../../support/dataset.js';
import { startOpenAIServer, type FakeServer, type ServerOptions } from '../../support/openai-server.js';

/*
 * Several replicas behind one `awb infer`: the real binary against local
 * servers, one of which is broken. Every row must still be predicted, and the
 * broken one must stop receiving work once it has shown it is broken.
 */

const FIXTURES = fileURLToPath(new URL('../../../fixtures/data', import.meta.url));
const COPIES = 4;

let work: string;
let data: string;
let rowCount = 0;
const servers: FakeServer[] = [];

async function start(opts: ServerOptions = {}): Promise<FakeServer> {
  const s = await startOpenAIServer({ models: ['wm'], ...opts });
  servers.push(s);
  return s;
}

/**
 * The fixture rows several times over, each copy under new ids, so a run is
 * long enough for load spreading and setting aside to show. Ids are rewritten
 * in the text: one is beyond 2^53 and must not go through JSON.parse.
 */
async function writeRepeatedData(dir: string): Promise<number> {
  let n = 0;
  for (const name of await readdir(FIXTURES)) {
    const rows = (await readFile(join(FIXTURES, name), 'utf8')).split('\n').filter((l) => l.trim());
    const out: string[] = [];
    for (let copy = 1; copy <= COPIES; copy++) {
      for (const line of rows) {
        const renamed = line.replace(/(?<!\\)"id":\s*(\d+)/, (_m, id: string) => `"id": ${copy}${id}`);
        assert.notEqual(renamed, line, `${name}: no top-level id found`);
        out.push(renamed);
      }
    }
    await writeFile(join(dir, name), `${out.join('\n')}\n`);
    n += out.length;
  }
  return n;
}

function inferArgs(urls: string[], output: string, ...extra: string[]): string[] {
  return [
    'infer',
    '--data',
    data,
    ...urls.flatMap((u) => ['--model-base-url', u]),
    '--model-name',
    'wm',
    '--output',
    output,
    '--no-progress',
    ...extra,
  ];
}

async function outputRows(file: string): Promise<Array<Record<string, unknown>>> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function manifestOf(file: string): Promise<Manifest> {
  return manifestSchema.parse(JSON.parse(await readFile(`${file}.manifest.json`, 'utf8')));
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'awb-endpoints-'));
  data = join(work, 'data');
  await mkdir(data);
  rowCount = await writeRepeatedData(data);
  // A precondition of the tests below, not a test: too few rows and setting aside could not show.
  assert.equal(rowCount, 28 * COPIES);
});

after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  if (work) await rm(work, { recursive: true, force: true });
});

describe('awb infer over several endpoints', () => {
  for (const fault of ['500', 'reset', 'malformed'] as const) {
    it(`one endpoint failing every request (${fault}): every row done, the broken one set aside early`, async () => {
      // Listed first: among equally idle endpoints the first is picked, so it is certain to be tried.
      const broken = await start({ faults: () => fault });
      const good = [await start({ latencyMs: 5 }), await start({ latencyMs: 5 })];
      const output = join(work, `dead-${fault}.jsonl`);
      const r = await runAwb(inferArgs([broken.url, ...good.map((s) => s.url)], output, '--max-retries', '2', '--concurrency', '4'));
      assert.equal(r.code, 0, r.stderr);

      const rows = await outputRows(output);
      assert.equal(rows.length, rowCount);
      assert.deepEqual(
        rows.filter((row) => row.error !== undefined),
        [],
      );
      assert.ok(rows.every((row) => typeof row.gen === 'string' && row.gen !== ''));
      assert.ok(!rows.some((row) => row.endpoint === broken.url), 'no row is credited to the broken endpoint');

      const sent = broken.stats.requests + good[0]!.stats.requests + good[1]!.stats.requests;
      // Set aside after three failed attempts in a row; the requests already on their way there add a few more.
      assert.ok(broken.stats.requests >= 3, `the broken endpoint was tried (${broken.stats.requests})`);
      assert.ok(broken.stats.requests <= 8, `the broken endpoint got ${broken.stats.requests} of ${sent} requests`);
      assert.ok(broken.stats.requests < sent / 10);
      assert.equal(broken.stats.successes, 0);
      assert.equal(good[0]!.stats.successes + good[1]!.stats.successes, rowCount, 'each row answered once');

      const m = await manifestOf(output);
      assert.equal(m.complete, true);
      const eps = m.endpoints ?? {};
      assert.deepEqual(Object.keys(eps).sort(), [broken.url, ...good.map((s) => s.url)].sort());
      // `requests` counts HTTP attempts, the model-list check before the run included.
      const b = eps[broken.url]!;
      assert.equal(b.failures, broken.stats.requests, 'every attempt on the broken endpoint is a failure');
      assert.ok(
        b.requests >= broken.stats.requests && b.requests <= broken.stats.requests + broken.stats.modelListRequests,
        JSON.stringify(b),
      );
      for (const s of good) {
        const e = eps[s.url]!;
        assert.equal(e.failures, 0);
        assert.ok(e.requests >= s.stats.requests && e.requests <= s.stats.requests + s.stats.modelListRequests, JSON.stringify(e));
      }
      assert.match(r.stderr, new RegExp(`endpoint ${broken.url.replace(/[.]/g, '\\.')}: ${b.requests} requests, ${b.failures} failed`));
    });
  }

  it('an endpoint that never answers is set aside too, not waited on for every row', async () => {
    // Listed first, and one row at a time: every row goes to it first while it is in use (among idle endpoints the
    // first is picked), and only its --timeout moves a row on. Three timeouts set it aside; the rows after go
    // straight to the others, however slow or fast the machine. Retries to spare: a timeout is all it tests.
    const hung = await start({ faults: () => 'hang' });
    const good = [await start(), await start()];
    const output = join(work, 'hung.jsonl');
    const r = await runAwb(
      inferArgs(
        [hung.url, ...good.map((s) => s.url)],
        output,
        '--domains',
        'mcp',
        '--timeout',
        '1',
        '--max-retries',
        '3',
        '--concurrency',
        '1',
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    const rows = await outputRows(output);
    assert.equal(rows.length, 4 * COPIES);
    assert.deepEqual(
      rows.filter((row) => row.error !== undefined),
      [],
    );
    // Not set aside, it would have held up every row: 16 requests here.
    assert.equal(hung.stats.requests, 3, `the hung endpoint got ${hung.stats.requests} requests for ${rows.length} rows`);
    const e = (await manifestOf(output)).endpoints?.[hung.url];
    assert.equal(e?.failures, 3, `timeouts count as failures: ${JSON.stringify(e)}`);
  });

  it('a replica rate-limiting with a long Retry-After: its rows go to the other one at once, not after its wait', async () => {
    // Listed first: among equally idle endpoints the first is picked, so it is certain to be tried.
    const limited = await start({ faults: () => ({ kind: '429', retryAfter: 30 }) });
    const good = await start({ latencyMs: 5 });
    const output = join(work, 'rate-limited.jsonl');
    const began = Date.now();
    const r = await runAwb(inferArgs([limited.url, good.url], output, '--concurrency', '2', '--domains', 'mcp'));
    assert.equal(r.code, 0, r.stderr);
    // Nor does a first attempt queue behind the paused replica's limits while the other is free.
    assert.ok(Date.now() - began < 30_000, 'a row waited out the 30 s the limited replica asked for');
    assert.ok(limited.stats.requests > 0, 'the limited replica was tried');
    for (const e of limited.log.filter((x) => x.outcome === '429')) {
      const retried = good.log.find((g) => g.hash === e.hash && g.receivedAt >= e.receivedAt);
      assert.ok(retried, 'the row was retried on the other replica');
      // Waiting out the 30 s the limited replica asked for would hold the row, and its trajectory's next turns, that long.
      const waited = retried.receivedAt - (e.receivedAt + e.ms);
      assert.ok(waited < 10_000, `the retry waited ${waited} ms`);
    }
  });

  it('an endpoint that cannot be reached at the start is set aside with a warning; the others do the run', async () => {
    const good = await start({ latencyMs: 5 });
    const dead = `http://127.0.0.1:${await closedPort()}/v1`;
    const output = join(work, 'dead-at-start.jsonl');
    const r = await runAwb(inferArgs([dead, good.url], output, '--concurrency', '4'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`warning: cannot reach world model endpoint ${dead.replace(/[.]/g, '\\.')} \\(ECONNREFUSED\\): set aside`),
    );
    const rows = await outputRows(output);
    assert.equal(rows.length, rowCount);
    assert.ok(rows.every((row) => row.error === undefined && row.endpoint === good.url));
    assert.equal((await manifestOf(output)).complete, true);

    // Every endpoint out of reach is still the end of the run: exit 3, one line, nothing sent.
    const none = await runAwb(inferArgs([dead, `http://127.0.0.1:${await closedPort()}/v1`], join(work, 'none.jsonl')));
    assert.equal(none.code, 3, none.stderr);
    assert.match(none.stderr, /cannot reach world model endpoint/);
  });

  it('spreads rows over equally fast healthy endpoints (least in flight)', async () => {
    const pair = [await start({ latencyMs: 20 }), await start({ latencyMs: 20 })];
    const output = join(work, 'pair.jsonl');
    const r = await runAwb(
      inferArgs(
        pair.map((s) => s.url),
        output,
        '--concurrency',
        '4',
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    const total = pair[0]!.stats.successes + pair[1]!.stats.successes;
    assert.equal(total, rowCount);
    for (const s of pair) {
      assert.ok(s.stats.successes > total * 0.3, `${s.url} answered ${s.stats.successes} of ${total}`);
    }
    const rows = await outputRows(output);
    for (const s of pair)
      assert.equal(rows.filter((row) => row.endpoint === s.url).length, s.stats.successes, 'rows record the endpoint that answered');
    const eps = (await manifestOf(output)).endpoints ?? {};
    for (const s of pair) assert.equal(eps[s.url]?.failures, 0);
  });
  it('the same URL given twice (a trailing slash apart) is counted whole in the manifest, not as one of its copies', async () => {
    const s = await start({ latencyMs: 5 });
    const output = join(work, 'twice.jsonl');
    const r = await runAwb(inferArgs([s.url, `${s.url}/`], output, '--concurrency', '4'));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.stats.requests, rowCount);
    const m = await manifestOf(output);
    assert.equal(m.endpoints?.[s.url]?.requests, rowCount, JSON.stringify(m.endpoints));
    assert.equal(m.usage?.requests, rowCount);
  });
});

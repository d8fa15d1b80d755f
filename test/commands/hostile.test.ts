/*
 * Hostile endpoints, paths and files (issue 11, outside download): outputs
 * that reach an input through a link, secrets in base URLs and error bodies,
 * terminal escapes from servers and files, a server that never answers, and
 * token counts no price can be computed from.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { brief } from '../../src/core/shown.js';
import { runAwb, type AwbResult } from '../support/cli.js';
import {
  judgeReply,
  makeDataset,
  synthRows,
  tempDirs,
  worldReply,
  writeDataset,
  writeJsonl,
  writePredictions,
} from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';
import { json, models, rawServer } from '../support/raw-server.js';
import { refusalLine } from '../support/refusal.js';
import { judgedRow, writeJudged } from '../fixtures/judged/rows.js';

const temps = tempDirs('hostile');
after(() => temps.cleanup());
const server = useServers();

/** Screen clear, window title, and an OSC 8 hyperlink (no slash: task values take the part after the last one). */
const ESCAPES = '\x1b[2J\x1b]0;pwned\x07\x1b]8;;mailto:evil@example.com\x1b\\click\x1b]8;;\x1b\\';

function assertNoEscapes(text: string, where: string): void {
  assert.ok(!/[\x1b\x07\x9b\x9d]/.test(text), `raw control characters in ${where}: ${JSON.stringify(text)}`);
}

/** A random-looking key, so that no 6-character window of it occurs by chance. */
const KEY = 'sk-Zq8Vw3Lm5Xr7Tn2Yb4Kc9Hd6Jf1Gp0Q';

function assertNoPieceOf(secret: string, text: string, where: string): void {
  for (let i = 0; i + 6 <= secret.length; i++) {
    assert.ok(!text.includes(secret.slice(i, i + 6)), `"${secret.slice(i, i + 6)}" of the secret appears in ${where}`);
  }
}

/** Everything awb left in a folder, as text. */
async function allFiles(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return (await Promise.all(files.map((f) => readFile(join(f.parentPath, f.name), 'utf8')))).join('\n');
}

/** A refusal whose one `awb:` line is all of stderr. */
function oneLine(r: AwbResult): string {
  const line = refusalLine(r);
  assert.equal(r.stderr.trim(), line);
  return line;
}

describe('--force never writes over an input reached through a link', () => {
  it('infer: -o through a linked folder onto the input file is refused, the input kept', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 6, ['terminal']);
    const input = ds.files.get('terminal')!;
    const before = await readFile(input, 'utf8');
    await symlink(ds.dir, join(work, 'alias'));
    const out = join(work, 'alias', 'terminal_test.jsonl');
    const s = await server({ reply: worldReply });
    const line = oneLine(await runAwb(inferArgs(s.url, ds.dir, out, ['--force'])));
    assert.ok(line.includes(out) && line.includes(input), line);
    assert.equal(await readFile(input, 'utf8'), before);
    assert.equal(s.stats.requests, 0);
  });

  it('judge: -o through a linked folder onto the predictions is refused, the predictions kept', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 6);
    await mkdir(join(work, 'res'));
    const predictions = join(work, 'res', 'p.jsonl');
    await writePredictions(ds, predictions);
    const before = await readFile(predictions, 'utf8');
    await symlink(join(work, 'res'), join(work, 'resalias'));
    const out = join(work, 'resalias', 'p.jsonl');
    const s = await server({ reply: judgeReply });
    const line = oneLine(await runAwb(judgeArgs(s.url, predictions, out, ['--force'])));
    assert.ok(line.includes(out) && line.includes(predictions), line);
    assert.equal(await readFile(predictions, 'utf8'), before);
  });

  it('infer: -o as a file link to the input is refused too', async () => {
    const work = await temps.make();
    const ds = await makeDataset(work, 3, ['mcp']);
    const input = ds.files.get('mcp')!;
    const before = await readFile(input, 'utf8');
    await symlink(input, join(work, 'out.jsonl'));
    const s = await server({ reply: worldReply });
    oneLine(await runAwb(inferArgs(s.url, ds.dir, join(work, 'out.jsonl'), ['--force'])));
    assert.equal(await readFile(input, 'utf8'), before);
  });
  it('compare --summary onto one of the judged files, through a link: refused, the file kept', async () => {
    const dir = await temps.make();
    const a = writeJudged(dir, 'a.jsonl', [judgedRow({ id: 1 })]);
    const b = writeJudged(dir, 'b.jsonl', [judgedRow({ id: 1, dims: [3, 3, 3, 3, 3] })]);
    await symlink(a, join(dir, 'summary.md'));
    const before = await readFile(a, 'utf8');
    const r = await runAwb(['compare', a, b, '--summary', join(dir, 'summary.md')]);
    const line = oneLine(r);
    assert.ok(line.includes(a), line);
    // Refused before the comparison: no report on stdout that reads as a run that went through.
    assert.equal(r.stdout, '');
    assert.equal(await readFile(a, 'utf8'), before);
  });
});

describe('secrets in base URLs and error bodies', () => {
  it('a key the cut at 300 characters would split is removed whole from the 403 message', async () => {
    const message = `${'a'.repeat(258)} Authorization: Bearer ${KEY} was refused`;
    const { url } = await rawServer((req, res) =>
      req.url?.startsWith('/v1/models') ? models(res) : json(res, 403, { error: { message, type: 'forbidden' } }),
    );
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const r = await runAwb(inferArgs(url, ds.dir, join(work, 'out.jsonl'), ['--model-api-key', KEY]));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /403/);
    assertNoPieceOf(KEY, r.stderr, 'stderr');
    assertNoPieceOf(KEY, await allFiles(work), 'the files written');
    // The same rule in one place, for every caller.
    assertNoPieceOf(KEY, brief(`${'x'.repeat(290)}${KEY}`, [KEY]), 'brief');
  });

  it('user:key@ in a base URL is refused in one line that shows neither, before any request', async () => {
    const { url, seen } = await rawServer((_req, res) => models(res));
    const withCreds = url.replace('http://', `http://alice:${KEY}@`);
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const line = oneLine(await runAwb(inferArgs(withCreds, ds.dir, join(work, 'out.jsonl'))));
    assert.match(line, /credentials/);
    assert.match(line, /--model-api-key/);
    assert.ok(!line.includes('alice'), line);
    assertNoPieceOf(KEY, line, 'the refusal');
    assert.deepEqual(seen, []);
  });

  it('a key in the query is sent with every request but shown nowhere: not in the exit-3 error, not in the manifest', async () => {
    const { url, seen } = await rawServer((req, res) => {
      if (req.url?.startsWith('/v1/models')) return models(res);
      // Servers echo the URL they got, query and all.
      json(res, 404, { error: { message: `no route for ${req.url}` } });
    });
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const r = await runAwb(inferArgs(`${url}?key=${KEY}`, ds.dir, join(work, 'out.jsonl')));
    assert.equal(r.code, 3, r.stderr);
    assert.ok(seen.includes(`GET /v1/models?key=${KEY}`), seen.join('\n'));
    assert.ok(seen.includes(`POST /v1/chat/completions?key=${KEY}`), seen.join('\n'));
    assertNoPieceOf(KEY, r.stderr, 'stderr');
    assertNoPieceOf(KEY, await allFiles(work), 'the files written');
  });

  it('a key in the query is not in the resume line after failed rows', async () => {
    const { url } = await rawServer((req, res) =>
      req.url?.startsWith('/v1/models') ? models(res) : json(res, 500, { error: { message: 'down' } }),
    );
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const r = await runAwb(inferArgs(`${url}?key=${KEY}`, ds.dir, join(work, 'out.jsonl'), ['--max-retries', '0']));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /retry only those:\n\s+node \S+ infer/);
    assertNoPieceOf(KEY, r.stderr, 'stderr');
    assertNoPieceOf(KEY, await allFiles(work), 'the files written');
  });
});

describe('terminal escapes from servers and files are shown spelled out', () => {
  it('model ids in the preflight error', async () => {
    const s = await server({ models: [`other${ESCAPES}`, ESCAPES] });
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const r = await runAwb(inferArgs(s.url, ds.dir, join(work, 'out.jsonl')));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /does not serve model/);
    assert.match(r.stderr, /\\x1b\[2J/);
    assertNoEscapes(r.stderr, 'stderr');
  });

  it('an error body in the 403 message', async () => {
    const { url } = await rawServer((req, res) =>
      req.url?.startsWith('/v1/models') ? models(res) : json(res, 403, { error: { message: `denied ${ESCAPES}` } }),
    );
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const r = await runAwb(inferArgs(url, ds.dir, join(work, 'out.jsonl')));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /403 Forbidden\): .*denied/);
    assertNoEscapes(r.stderr, 'stderr');
  });

  it('a stream event that is not JSON: one reason per failed row, no client log of the raw event, no key from the URL', async () => {
    const { url } = await rawServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/v1/models')) return models(res);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: {"choices": ${ESCAPES}\n\ndata: [DONE]\n\n`);
    });
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const keyed = `${url}?api-key=${KEY}`;
    // OPENAI_LOG=debug would have the client log each request, its URL with the query included.
    const r = await runAwb(inferArgs(keyed, ds.dir, join(work, 'out.jsonl'), ['--stream', '--max-retries', '0']), {
      env: { OPENAI_LOG: 'debug' },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /Could not parse message|From chunk|sending request/);
    assertNoEscapes(r.stderr, 'stderr');
    assertNoPieceOf(KEY, r.stderr + r.stdout, 'the output');
  });

  it('task values in the infer summary', async () => {
    const work = await temps.make();
    const rows = synthRows(2, ['mcp']).map((r) => ({ ...r, task: `mcp${ESCAPES}` }));
    const ds = await writeDataset(join(work, 'data'), []);
    await writeJsonl(join(ds.dir, 'mcp_test.jsonl'), rows);
    const s = await server({ reply: worldReply });
    const r = await runAwb(inferArgs(s.url, ds.dir, join(work, 'out.jsonl')));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /summary\n[^]*\\x1b\[2J/);
    assertNoEscapes(r.stderr, 'stderr');
  });

  it('task values in score and compare, in every format', async () => {
    const dir = await temps.make();
    const rows = (lift: number) =>
      [1, 2, 3].map((id) => ({ ...judgedRow({ id, dims: Array(5).fill(2 + lift) }), task: `mcp|x${ESCAPES}` }));
    const a = writeJudged(dir, 'a.jsonl', rows(0));
    const b = writeJudged(dir, 'b.jsonl', rows(1));
    for (const format of ['table', 'markdown', 'csv', 'json']) {
      const r = await runAwb(['score', a, b, '--format', format]);
      assert.equal(r.code, 0, r.stderr);
      assertNoEscapes(r.stdout + r.stderr, `score --format ${format}`);
      assert.match(r.stdout, /(x1b|u001b)\\?\[2J/);
      if (format === 'markdown') assert.ok(r.stdout.includes('\\|x'), r.stdout);
    }
    for (const format of ['table', 'markdown', 'json']) {
      const r = await runAwb(['compare', a, b, '--format', format]);
      assert.equal(r.code, 0, r.stderr);
      assertNoEscapes(r.stdout + r.stderr, `compare --format ${format}`);
    }
  });
});

describe('smaller', () => {
  it('a server that accepts the connection and never answers: the preflight says so, in the preflight time', async () => {
    const { url, seen } = await rawServer(() => undefined);
    const work = await temps.make();
    const ds = await makeDataset(work, 2, ['mcp']);
    const r = await runAwb(inferArgs(url, ds.dir, join(work, 'out.jsonl'), ['--timeout', '1']));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /accepted the connection but did not answer the models check within 1 s/);
    assert.doesNotMatch(r.stderr, /cannot reach/);
    assert.ok(seen.length >= 1);
  });

  for (const [what, value] of [
    ['negative', -5],
    ['1e308', 1e308],
    ['fractional', 2.5],
  ] as const) {
    it(`a ${what} token count with prices: one line naming file, line and field`, async () => {
      const dir = await temps.make();
      const file = writeJudged(dir, 'j.jsonl', [
        judgedRow({ id: 1, usage: { prompt_tokens: 10, completion_tokens: 5 } }),
        judgedRow({ id: 2, usage: { prompt_tokens: value, completion_tokens: 5 } }),
      ]);
      const line = oneLine(await runAwb(['score', file, '--price-input', '1', '--price-output', '2']));
      assert.ok(line.includes(`${file}:2: usage.prompt_tokens`), line);
    });
  }
});

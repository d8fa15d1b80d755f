/*
 * Bodies as real servers send them, not only as OpenAI does. What a server says
 * when it refuses a request reaches the user, whatever the shape of its error
 * body: OpenAI's `{"error": {"message"}}`, but also SGLang's and older vLLM's
 * `{"object": "error", "message"}` and FastAPI's `{"detail"}`; and a completion
 * is read as JSON whatever its content type says.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { errorLines, makeDataset, readRowsOf, rowMarker, tempDirs } from '../../support/dataset.js';
import { inferArgs } from '../../support/harness.js';
import { json, models, rawServer } from '../../support/raw-server.js';

const temps = tempDirs('error-bodies');
after(() => temps.cleanup());

describe('error bodies that are not shaped as OpenAI shapes them', () => {
  it("a row's error and the summary carry SGLang's and vLLM's top-level message, not 'no body'", async () => {
    const message = "This model's maximum context length is 4096 tokens. However, you requested 33000 tokens.";
    const { url } = await rawServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/v1/models')) return models(res);
      json(res, 400, { object: 'error', message, type: 'BadRequestError', param: null, code: 400 });
    });
    const dir = await temps.make();
    const ds = await makeDataset(dir, 1, ['mcp']);
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(url, ds.dir, out));
    assert.equal(r.code, 1, r.stderr);
    const [row] = await readRowsOf(out);
    assert.equal(row!.error, `400 ${message}`);
    assert.ok(r.stderr.includes(`400 ${message}`), r.stderr);
    assert.ok(!r.stderr.includes('no body'), r.stderr);
  });

  it("a refusal that stops the run names the server's reason: a 404 with SGLang's body, a 403 with FastAPI's", async () => {
    const cases = [
      {
        status: 404,
        said: 'The model `test-model` does not exist.',
        body: { object: 'error', message: 'The model `test-model` does not exist.', type: 'NotFoundError', code: 404 },
      },
      { status: 403, said: 'Not authenticated for this project', body: { detail: 'Not authenticated for this project' } },
    ];
    for (const { status, said, body } of cases) {
      const { url } = await rawServer((req, res) => {
        req.resume();
        if (req.url?.startsWith('/v1/models')) return models(res);
        json(res, status, body);
      });
      const dir = await temps.make();
      const ds = await makeDataset(dir, 1, ['mcp']);
      const r = await runAwb(inferArgs(url, ds.dir, join(dir, 'pred.jsonl')));
      assert.equal(r.code, 3, r.stderr);
      const lines = errorLines(r.stderr);
      assert.equal(lines.length, 1, r.stderr);
      assert.ok(lines[0]!.includes(said), lines[0]);
      assert.ok(!lines[0]!.includes('no body'), lines[0]);
    }
  });

  it("an error sent with status 200 instead of a completion (OpenRouter's upstream errors) gives its message as the row's reason", async () => {
    const message = 'Provider returned error: upstream overloaded';
    const { url } = await rawServer((req, res) => {
      req.resume();
      if (req.url?.startsWith('/v1/models')) return models(res);
      json(res, 200, { error: { message, code: 502 } });
    });
    const dir = await temps.make();
    const ds = await makeDataset(dir, 1, ['mcp']);
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(url, ds.dir, out, ['--max-retries', '1']));
    assert.equal(r.code, 1, r.stderr);
    const [row] = await readRowsOf(out);
    assert.ok(String(row!.error).includes(message), String(row!.error));
    assert.ok(r.stderr.includes(message), r.stderr);
  });
});

describe('an error body that is a web page (a proxy in front of the API)', () => {
  it("is the row's reason as the page's title, not a screenful of markup: nginx's 413 for one row, its 502 for the others", async () => {
    const page = (title: string) =>
      `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n`;
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3, ['mcp']);
    const big = rowMarker(ds.rows[0]!);
    const { url } = await rawServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.url?.startsWith('/v1/models')) return models(res);
        const tooLarge = body.includes(big);
        res.writeHead(tooLarge ? 413 : 502, { 'content-type': 'text/html' });
        res.end(page(tooLarge ? '413 Request Entity Too Large' : '502 Bad Gateway'));
      });
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(url, ds.dir, out, ['--max-retries', '0']));
    assert.equal(r.code, 1, r.stderr);
    const proxy = ' (an HTML page: a proxy or web server in front of the API answered)';
    const rows = await readRowsOf(out);
    assert.deepEqual(rows.map((row) => row.error).sort(), [
      `413 Request Entity Too Large${proxy}`,
      `502 Bad Gateway${proxy}`,
      `502 Bad Gateway${proxy}`,
    ]);
    assert.ok(r.stderr.includes(`2 × 502 Bad Gateway${proxy}`), r.stderr);
    assert.ok(!r.stderr.includes('<'), r.stderr);
  });
});

describe('a completion sent with a content type other than JSON', () => {
  it('(text/plain, text/html, none: a hand-written server, a proxy) is read as the JSON it is', async () => {
    const completion = JSON.stringify({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    });
    for (const type of ['text/plain', 'text/html; charset=utf-8', undefined]) {
      const { url } = await rawServer((req, res) => {
        req.resume();
        if (req.url?.startsWith('/v1/models')) return models(res);
        if (type) res.setHeader('content-type', type);
        res.end(completion);
      });
      const dir = await temps.make();
      const ds = await makeDataset(dir, 2, ['mcp']);
      const out = join(dir, 'pred.jsonl');
      const r = await runAwb(inferArgs(url, ds.dir, out, ['--max-retries', '0']));
      assert.equal(r.code, 0, `${type}: ${r.stderr}`);
      const rows = await readRowsOf(out);
      assert.deepEqual(
        rows.map((row) => row.gen),
        ['ok', 'ok'],
      );
    }
  });
});

/*
 * `transformers serve <model>` pinned to one model:
 *
 * - its `/v1/models` lists the Hub cache, not the model it serves: a server
 *   started on a local path (`transformers serve /models/qwen-0.5b`) never
 *   lists that path, yet serves it; the preflight must not refuse it on the
 *   list alone;
 * - a request naming another model gets 400 `{"detail": "Server is pinned to
 *   '…'; requested '…'."}`: a 400 that quotes the requested model is an
 *   unknown model (exit 3 at once, pointing at the flag that names it), not a
 *   refusal of the settings (--max-tokens, …);
 * - a pydantic 422 (`{"detail": [{"loc", "msg", "input", …}]}`, `input`
 *   echoing the request) is shown as its fields and messages, so it is the
 *   same reason for every row and stops the run in one line.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAwb, type AwbResult } from '../../support/cli.js';
import { judgeReply, makeDataset, readRowsOf, tempDirs, worldReply, type Dataset } from '../../support/dataset.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { refusalLine } from '../../support/refusal.js';
import { startTransformersServer, type TransformersOptions, type TransformersServer } from '../../support/transformers-server.js';
import { noticed } from '../../../src/commands/words/index.js';

const temps = tempDirs('transformers-pinned');
const servers: TransformersServer[] = [];
after(() => Promise.all([temps.cleanup(), ...servers.map((s) => s.close())]));

const LOCAL = '/models/qwen-0.5b';
const CACHE = ['Qwen/Qwen2.5-0.5B-Instruct', 'HuggingFaceTB/SmolLM2-135M-Instruct'];

async function serve(opts: TransformersOptions): Promise<TransformersServer> {
  const s = await startTransformersServer({ pinned: LOCAL, cached: CACHE, ...opts });
  servers.push(s);
  return s;
}

let root: string;
let ds: Dataset;

const inferAs = (model: string, url: string, data: string, out: string, extra: string[] = []) =>
  runAwb(inferArgs(url, data, out, extra, model));

/** Predictions of the pinned server in `dir`, then `judge --judge-model <model>` of them by a judge pinned so too. */
async function judgeAs(
  model: string,
  dir: string,
  extra: string[] = [],
): Promise<{ r: AwbResult; grader: TransformersServer; out: string }> {
  const world = await serve({ reply: worldReply });
  const preds = join(root, dir, 'pred.jsonl');
  assert.equal((await inferAs(LOCAL, world.url, ds.dir, preds, ['--no-preflight'])).code, 0);
  const grader = await serve({ reply: judgeReply });
  const out = join(root, dir, 'judged.jsonl');
  return { r: await runAwb(judgeArgs(grader.url, preds, out, extra, model)), grader, out };
}

before(async () => {
  root = await temps.make();
  ds = await makeDataset(root, 12, ['mcp', 'web', 'terminal']);
});

describe('a server pinned to a model its models list does not name', () => {
  it('infer --model-name <the pinned path> passes the preflight and answers every row', async () => {
    const s = await serve({ reply: worldReply });
    const out = join(root, 'local', 'pred.jsonl');
    const r = await inferAs(LOCAL, s.url, ds.dir, out);
    assert.equal(r.code, 0, r.stderr);
    // Accepted through the one-token request, with a note that the list leaves it out.
    const unlisted = noticed({ kind: 'model-unlisted', role: 'world model', endpoint: s.url, model: LOCAL, listed: CACHE });
    assert.ok(r.stderr.includes(unlisted), r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, ds.rows.length);
    assert.ok(
      rows.every((row) => typeof row.gen === 'string' && row.gen !== '' && row.error === undefined),
      JSON.stringify(rows[0]),
    );
  });

  it('judge --judge-model <the pinned path> passes the preflight and grades every row', async () => {
    const { r, out } = await judgeAs(LOCAL, 'judge-local');
    assert.equal(r.code, 0, r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, ds.rows.length);
    assert.ok(rows.every((row) => row.failed === 0));
  });
});

describe('a 400 whose body names the requested model', () => {
  // The name is in the cache list, so the preflight's list check passes it: the chat reply is what tells.
  const WRONG = CACHE[0]!;

  for (const preflight of [[], ['--no-preflight']]) {
    it(`is an unknown model for infer${preflight.length ? ' without the preflight' : ''}: exit 3 at once, pointing at --model-name, not at --max-tokens`, async () => {
      const s = await serve({ reply: worldReply });
      const r = await inferAs(WRONG, s.url, ds.dir, join(root, `wrong${preflight.length}`, 'pred.jsonl'), ['-c', '2', ...preflight]);
      const line = refusalLine(r, 3);
      assert.ok(line.includes(WRONG), line);
      assert.ok(line.includes('--model-name'), line);
      assert.ok(!line.includes('--max-tokens'), line);
      // The first refusals stop the run: no row is retried or sent after them (at most one request per slot, and a check).
      assert.ok(s.chats.filter((c) => c.status === 400).length <= 3, `${s.chats.length} chat requests`);
    });
  }

  it('is an unknown model for judge too, pointing at --judge-model', async () => {
    const { r, grader } = await judgeAs(WRONG, 'judge-wrong', ['-c', '2']);
    const line = refusalLine(r, 3);
    assert.ok(line.includes(WRONG), line);
    assert.ok(line.includes('--judge-model'), line);
    assert.ok(!line.includes('--max-tokens'), line);
    assert.ok(grader.chats.filter((c) => c.status === 400).length <= 3, `${grader.chats.length} chat requests`);
  });
});

describe("a 422 with pydantic's list of errors (transformers serve --input-validation)", () => {
  it('is shown as each field and its message, without the request it echoes: the same reason for every row, which stops the run in one line', async () => {
    // Unstreamed requests fail its check of OpenAI's streaming request type: `stream` is required there.
    const s = await serve({ reply: worldReply, inputValidation: true });
    const out = join(root, 'validation', 'pred.jsonl');
    const r = await inferAs(LOCAL, s.url, ds.dir, out, ['-c', '2', '--no-preflight']);
    const line = refusalLine(r, 3);
    assert.match(line, /\bstream\b.*Field required/);
    assert.ok(!line.includes('"input"') && !line.includes('You simulate'), line);
    for (const row of await readRowsOf(out).catch(() => [])) {
      if (row.error === undefined) continue;
      assert.match(String(row.error), /^422 .*stream.*Field required/);
      assert.ok(!String(row.error).includes('You simulate'), String(row.error));
    }
  });
});

describe('awb models against a pinned server', () => {
  it('lists every cached name, each it refuses marked, and says why on stderr', async () => {
    const s = await serve({ reply: worldReply, cached: [...CACHE, LOCAL] });
    const r = await runAwb(['models', '--base-url', s.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), [...CACHE.map((id) => `${id}\trefused`), LOCAL]);
    const said = `400 Server is pinned to '${LOCAL}'; requested '${CACHE[0]}'.`;
    const refused = noticed({ kind: 'listed-names-refused', role: 'models', endpoint: s.url, refused: CACHE, listed: 3, said });
    assert.ok(r.stderr.includes(refused), r.stderr);
  });

  it('an unpinned server (every name answered or unknown) gets no mark', async () => {
    const s = await startTransformersServer({ cached: CACHE, reply: worldReply });
    servers.push(s);
    const r = await runAwb(['models', '--base-url', s.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), CACHE);
  });
});

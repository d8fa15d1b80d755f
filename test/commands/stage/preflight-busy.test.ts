/*
 * The models check stops a run only for what would fail every row (a refused key, an unknown
 * model, no server): an endpoint that is busy or briefly failing when asked (429, 5xx) is not
 * refused for it, since the run's own retries wait for it as for any request.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { makeDataset, readRowsOf, tempDirs } from '../../support/dataset.js';
import { inferArgs } from '../../support/harness.js';
import { json, rawServer } from '../../support/raw-server.js';

const temps = tempDirs('preflight-busy');
after(() => temps.cleanup());

const completion = {
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
};

describe('a models check answered with 429 or 5xx', () => {
  for (const status of [429, 503]) {
    it(`(${status} every time) does not stop the run: the rows are sent and done`, async () => {
      const { url, seen } = await rawServer((req, res) => {
        req.resume();
        if (req.url?.startsWith('/v1/models')) {
          res.setHeader('retry-after', '0');
          return json(res, status, { error: { message: 'Rate limit reached for requests' } });
        }
        json(res, 200, completion);
      });
      const dir = await temps.make();
      const ds = await makeDataset(dir, 3, ['mcp']);
      const out = join(dir, 'pred.jsonl');
      const r = await runAwb(inferArgs(url, ds.dir, out));
      assert.equal(r.code, 0, r.stderr);
      assert.ok(
        seen.some((s) => s.startsWith('GET /v1/models')),
        seen.join('\n'),
      );
      const rows = await readRowsOf(out);
      assert.equal(rows.length, 3);
      assert.ok(rows.every((row) => row.gen === 'ok' && row.error === undefined));
    });
  }
});

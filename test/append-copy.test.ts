import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, open, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlAppender } from '../src/core/rows/jsonl.js';
import { fieldsTail, objectEnd } from '../src/core/rows/raw-json.js';

/** What the stage does for each finished row: find where the input line's object closes, copy it, add the fields. */
async function copyWithFields(lines: string[], fields: Record<string, unknown>, window = 4096): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'awb-copy-'));
  const input = join(dir, 'in.jsonl');
  await writeFile(input, lines.join('\n') + '\n');
  const handle = await open(input, 'r');
  const out = await JsonlAppender.open(join(dir, 'out.jsonl'));
  let start = 0;
  for (const line of lines) {
    const end = start + Buffer.byteLength(line);
    const size = Math.min(window, end - start);
    const tail = Buffer.alloc(size);
    await handle.read(tail, 0, size, end - size);
    const found = objectEnd(tail);
    assert.ok(found);
    await out.appendCopy({ handle, path: input }, start, end - size + found.bodyEnd, fieldsTail(found.empty, fields));
    start = end + 1;
  }
  await out.close();
  await handle.close();
  return (await readFile(join(dir, 'out.jsonl'), 'utf8')).split('\n').slice(0, -1);
}

test('lines are copied byte for byte with the fields added, whatever their size and ending', async () => {
  const big = JSON.stringify({ id: 1, text: 'é\u2028中'.repeat(900_000) });
  const lines = [big, '{"id":2, "x": [1,2] }  \r', '{}', '{ }', JSON.stringify({ id: 3 })];
  const got = await copyWithFields(lines, { gen: 'out "q"', n: 1 });
  assert.equal(got.length, lines.length);
  assert.ok(Buffer.byteLength(big) > 3 * (1 << 20), 'the big line spans several copy chunks');
  assert.equal(got[0], `${big.slice(0, -1)},"gen":"out \\"q\\"","n":1}`);
  assert.equal(got[1], '{"id":2, "x": [1,2],"gen":"out \\"q\\"","n":1}');
  assert.equal(got[2], '{"gen":"out \\"q\\"","n":1}');
  assert.equal(got[3], '{"gen":"out \\"q\\"","n":1}');
  for (const [i, line] of got.entries()) assert.deepEqual(JSON.parse(line), { ...JSON.parse(lines[i]!), gen: 'out "q"', n: 1 });
});

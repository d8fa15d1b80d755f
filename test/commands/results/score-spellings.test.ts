import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { judgedFixtures, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { respell } from '../../support/respell.js';
import { awb } from '../../support/cli.js';

/* awb score prints the same report for any byte spelling of a judged file (core's reading of them: test/core/score/score-spellings.test.ts). */

const root = fileURLToPath(new URL('../../..', import.meta.url));
const dir = tempDir('awb-score-spellings-');
const rows = judgedFixtures();

describe('awb score (end to end) on a respelled file', () => {
  it('prints the same JSON as for the plain file', async () => {
    assert.ok(existsSync(join(root, 'dist/commands/results/score.js')), 'run `npm run build` first');
    // The same base name in two folders, since the label shown is the file's name.
    mkdirSync(join(dir, 'plain'));
    mkdirSync(join(dir, 'odd'));
    const plain = writeJudged(dir, 'plain/judged.jsonl', rows);
    const odd = join(dir, 'odd/judged.jsonl');
    writeFileSync(odd, rows.map((row, i) => `${respell(row, 990_000 + i, { repeatKeys: true, decoys: true })}\r\n`).join(''));
    const score = async (path: string) => {
      const r = await awb('score', path, '--format', 'json', '--by', 'turn');
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.replaceAll(path, 'FILE');
    };
    const expected = await score(plain);
    assert.match(expected, /"rows": 30,/);
    assert.equal(await score(odd), expected);
  });
});

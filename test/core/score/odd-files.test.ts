/*
 * Odd judged files made by hand, read by core: where a CR-only file is found, how judge and score tell a
 * dataset file, and which rows the official script's means leave out. The commands on such files:
 * test/commands/results/held-out.test.ts.
 */
import assert from 'node:assert/strict';
import { isFault } from '../../support/fault-kind.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { notPredictions } from '../../../src/core/judge/index.js';
import { readLineBytes } from '../../../src/core/rows/index.js';
import { aggregate } from '../../../src/core/score/aggregate.js';
import { formatFixed, normalizedMean } from '../../../src/core/score/exact.js';
import { readJudged } from '../../../src/core/score/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { worded } from '../../../src/commands/words/index.js';

const dir = tempDir('awb-held-out-');

const line = (r: Record<string, unknown>) => JSON.stringify(r);

describe('one file, one verdict (the readers)', () => {
  it('CR alone: found after a first row longer than a read, and never taken from JSON whitespace', async () => {
    const long = line({ ...judgedRow({ id: 1 }), gen: 'g'.repeat(300) });
    const mac = join(dir, 'mac-long.jsonl');
    writeFileSync(mac, `${long}\r${long}\r`);
    const lines = async (path: string) => {
      const out: string[] = [];
      for await (const l of readLineBytes(path, { highWaterMark: 64 })) out.push(l.bytes.toString());
      return out;
    };
    await assert.rejects(lines(mac), isFault('input-cr-endings', { path: mac }));
    // A CR between tokens is JSON whitespace: the line is one row, as JSON.parse reads it.
    const spaced = join(dir, 'cr-space.jsonl');
    writeFileSync(spaced, '{"task":"mcp",\r"id":1}\n{"id":2}\r\n');
    assert.deepEqual(await lines(spaced), ['{"task":"mcp",\r"id":1}', '{"id":2}\r']);
    // CR CR LF (a CRLF file converted once more) still ends lines, as it always did.
    const twice = join(dir, 'crcrlf.jsonl');
    writeFileSync(twice, '{"id":1}\r\r\n{"id":2}\r\r\n');
    assert.deepEqual(await lines(twice), ['{"id":1}\r\r', '{"id":2}\r\r']);
    // U+2028/U+2029 inside strings never end a line.
    const seps = join(dir, 'seps.jsonl');
    writeFileSync(seps, '{"a":"x\u2028y\u2029z"}\n');
    assert.deepEqual(await lines(seps), ['{"a":"x\u2028y\u2029z"}']);
  });
  it('judge and score tell a dataset file by the same rule, in the same words', async () => {
    const { gen: _gen, ...datasetRow } = judgedRow({ id: 1 });
    const unjudged = Object.fromEntries(
      Object.entries(datasetRow).filter(
        ([k]) => !['total_score', 'failed', 'format', 'factuality', 'consistency', 'realism', 'quality'].includes(k),
      ),
    );
    const data = writeJudged(dir, 'mcp_test.jsonl', [unjudged]);
    const opening = `${data}: holds dataset rows (no gen), not `;
    assert.deepEqual(await notPredictions(data), { kind: 'predictions-are-dataset', file: data });
    await assert.rejects(readJudged(data), isFault('judged-file-of-earlier-stage', { file: data, stage: 'dataset' }));
    assert.ok(
      worded({ kind: 'judged-file-of-earlier-stage', file: data, stage: 'dataset' }, 'awb').message.startsWith(
        `${opening}judged rows; run \`awb infer\` first`,
      ),
    );
    // A predictions row (gen, no judge results) goes on to judge; to score it is a predictions file.
    const preds = writeJudged(dir, 'predictions.jsonl', [{ ...unjudged, gen: '' }]);
    assert.equal(await notPredictions(preds), undefined);
    await assert.rejects(readJudged(preds), isFault('judged-file-of-earlier-stage', { file: preds, stage: 'prediction' }));
  });
});

describe('rows with no score, as the official script averages them', () => {
  /*
   * The official script's domain header counts every row with failed == 0 as
   * valid, but each of its means (the dimensions, the total, the final
   * Overall and its Valid count) skips zeros. So:
   *   r1 [4,4,4,4,4] total 4;  r2 [2,2,2,2,2] total 2
   *   r3 every grade 0, total 0, failed 0: in no mean at all -> failed here
   *   r4 every dimension 0 but total_score 3, failed 0: its total is in the
   *      total's mean and the Overall (3 is not 0), its dimensions in none
   * total (4+2+3)/3 = 3 -> 50.00; format (4+2)/2 = 3 -> 50.00; valid 3 of 4.
   */
  it('a row with no score at all is in no average; a total beside zero grades still counts', async () => {
    const rows = [
      judgedRow({ id: 1, dims: [4, 4, 4, 4, 4] }),
      judgedRow({ id: 2, dims: [2, 2, 2, 2, 2] }),
      judgedRow({ id: 3, dims: [0, 0, 0, 0, 0], total: 0 }),
      judgedRow({ id: 4, dims: [0, 0, 0, 0, 0], total: 3 }),
    ];
    const { records } = await readJudged(writeJudged(dir, 'zeros.jsonl', rows));
    assert.deepEqual(
      records.map((r) => r.failed),
      [false, false, true, false],
    );
    const s = aggregate(records, { failuresAsLowest: false });
    const [d] = s.domains;
    assert.deepEqual([d!.valid, d!.failed, s.valid, s.failed], [3, 1, 3, 1]);
    assert.equal(formatFixed(normalizedMean(d!.total.sum, d!.total.count)), '50.00');
    assert.equal(d!.total.count, 3);
    assert.equal(formatFixed(normalizedMean(d!.dims[0]!.sum, d!.dims[0]!.count)), '50.00');
    assert.equal(d!.dims[0]!.count, 2);
    assert.equal(s.micro.count, 3);
  });
});

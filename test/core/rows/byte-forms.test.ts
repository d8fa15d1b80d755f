/*
 * Issue 10: a row written in another byte form (escaped keys and text, `\/`,
 * reordered or repeated keys, odd whitespace, CRLF, decoy nested keys) is read
 * as its plain form, with the same key; an output line keeps its input line's bytes.
 * The CLI's runs over such rows: test/commands/stage/byte-forms.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outputLine } from '../../../src/core/rows/members.js';
import { readRow } from '../../../src/core/rows/row.js';
import { datasetRowSchema } from '../../../src/core/schemas/dataset-row.js';
import { spelledRows } from '../../support/respell.js';

const { plainLines, spelledLines, spellingOf } = spelledRows();

describe('rows in other byte forms', () => {
  it('read as JSON.parse reads them, with the same key, and an output line keeps the input bytes', () => {
    for (const [i, line] of spelledLines.entries()) {
      const plain = readRow(Buffer.from(plainLines[i]!), datasetRowSchema, { file: 'p', lineNo: 1, terminated: true });
      const spelled = readRow(Buffer.from(line), datasetRowSchema, { file: 's', lineNo: 1, terminated: true });
      assert.ok(plain.ok && spelled.ok, line);
      assert.deepEqual(spelled.parsed, JSON.parse(line));
      assert.equal(spelled.key, plain.key);
      const out = Buffer.concat(outputLine(Buffer.from(line), { gen: 'g', error: undefined }, ['gen'])).toString();
      assert.deepEqual(JSON.parse(out), { ...JSON.parse(line), gen: 'g' });
      if (!spellingOf(i).repeatKeys) assert.ok(out.startsWith(line.replace(/\s*}\s*$/, '')), out);
    }
  });

  it('an output field already in the line (repeated, escaped) is replaced everywhere, the rest kept byte for byte', () => {
    const line = '{"id":12345678901234567890,"g\\u0065n":"old","task":"mcp","gen":"older","x":"\u2028","error":"e"}';
    const out = Buffer.concat(outputLine(Buffer.from(line), { gen: 'new' }, ['gen', 'error'])).toString();
    assert.equal(out, '{"id":12345678901234567890,"task":"mcp","x":"\u2028","gen":"new"}');
  });
});

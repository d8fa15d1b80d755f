import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PART, textParts, updateText } from '../../src/core/text-parts.js';

const whole = (text: string) => createHash('sha256').update(text).digest('hex');
const inParts = (text: string) => updateText(createHash('sha256'), text).digest('hex');

test('a long text hashed in parts gives the hash of the whole text', () => {
  // A pair on every offset around the edge of a part, lone halves, and texts no longer than a part.
  for (let pad = PART - 3; pad <= PART + 1; pad++) {
    for (const text of [`${'x'.repeat(pad)}😀${'中'.repeat(PART)}`, `${'é'.repeat(pad)}\ud800${'y'.repeat(10)}\udfff`]) {
      assert.equal(inParts(text), whole(text), `pad ${pad}`);
    }
  }
  for (const text of ['', 'a', '😀', 'x'.repeat(PART)]) assert.equal(inParts(text), whole(text));
});

test('the parts of a text join to it, each at most a part long, no surrogate pair cut', () => {
  const text = `${'a'.repeat(PART - 1)}😀${'b'.repeat(3 * PART)}😀`;
  const parts = [...textParts(text)];
  assert.equal(parts.join(''), text);
  assert.equal(parts.length, 5);
  for (const p of parts) {
    assert.ok(p.length <= PART);
    assert.ok(!/[\ud800-\udbff]$/.test(p), 'a part ends in the first half of a pair');
  }
  assert.deepEqual([...textParts('')], []);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BufferPool } from '../src/core/buffer-pool.js';

test('a block given back serves the next request of its size class, at the size asked', () => {
  const pool = new BufferPool(1 << 20, 1024);
  const a = pool.take(3000);
  assert.equal(a.length, 3000);
  pool.give(a);
  const b = pool.take(4096);
  assert.equal(b.length, 4096);
  assert.ok(b.buffer === a.buffer);
  const c = pool.take(4000);
  assert.ok(c.buffer !== a.buffer, 'a block in use is never handed out twice');
});

test('giving back twice, or a buffer the pool did not make, cannot put a block in two hands', () => {
  const pool = new BufferPool(1 << 20, 1024);
  const a = pool.take(2000);
  pool.give(a);
  pool.give(a);
  const b = pool.take(2000);
  const c = pool.take(2000);
  assert.ok(b.buffer === a.buffer);
  assert.ok(c.buffer !== a.buffer);
  const stranger = Buffer.alloc(2048);
  pool.give(stranger);
  assert.ok(pool.take(2048).buffer !== stranger.buffer);
});

test('small buffers are not pooled; idle blocks beyond the cap, and blocks over a quarter of it, are let go', () => {
  const pool = new BufferPool(16384, 1024);
  const small = pool.take(100);
  pool.give(small);
  assert.ok(pool.take(1024).buffer !== small.buffer, 'a small buffer (from a shared slab) is never pooled');
  const given = Array.from({ length: 5 }, () => pool.take(4096));
  for (const b of given) pool.give(b);
  const again = Array.from({ length: 5 }, () => pool.take(4096).buffer);
  assert.equal(again.filter((b) => given.some((g) => g.buffer === b)).length, 4);
  const big = pool.take(8192);
  pool.give(big);
  assert.ok(pool.take(8192).buffer !== big.buffer);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bradleyTerry, pairwiseGames, type ChoiceRecord } from '../src/core/score/index.js';

const close = (a: number, b: number, eps = 1e-6) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);

test('two models: the strength ratio is the ratio of games won (prior included)', () => {
  const r = bradleyTerry([{ a: 'x', b: 'y', wins: 75, losses: 25 }]);
  assert.deepStrictEqual(
    r.ratings.map((m) => m.model),
    ['x', 'y'],
  );
  close(r.ratings[0]!.strength / r.ratings[1]!.strength, 75.5 / 25.5);
  close(r.ratings[0]!.strength * r.ratings[1]!.strength, 1);
  close(r.ratings[0]!.elo - r.ratings[1]!.elo, 400 * Math.log10(75.5 / 25.5));
  assert.equal(r.ratings[0]!.games, 100);
  assert.equal(r.connected, true);
});

test('three models with known strengths 4:2:1 are recovered from expected game counts', () => {
  const s = { a: 4, b: 2, c: 1 };
  const n = 100_000;
  const games = (x: 'a' | 'b' | 'c', y: 'a' | 'b' | 'c') => ({
    a: x,
    b: y,
    wins: (n * s[x]) / (s[x] + s[y]),
    losses: (n * s[y]) / (s[x] + s[y]),
  });
  // Each pair compared once, in either direction.
  const r = bradleyTerry([games('a', 'b'), games('c', 'b'), games('a', 'c')]);
  assert.deepStrictEqual(
    r.ratings.map((m) => m.model),
    ['a', 'b', 'c'],
  );
  const [a, b, c] = r.ratings.map((m) => m.strength);
  close(a! / b!, 2, 1e-3);
  close(b! / c!, 2, 1e-3);
});

test('a model that won every game keeps a finite rating; unconnected models are flagged', () => {
  const r = bradleyTerry([{ a: 'x', b: 'y', wins: 50, losses: 0 }]);
  assert.ok(Number.isFinite(r.ratings[0]!.elo) && r.ratings[0]!.elo > r.ratings[1]!.elo);
  const apart = bradleyTerry([
    { a: 'x', b: 'y', wins: 5, losses: 5 },
    { a: 'u', b: 'v', wins: 5, losses: 5 },
  ]);
  assert.equal(apart.connected, false);
});

test('pairwiseGames counts the orders of rows answered in both', () => {
  const rec = (hits: ChoiceRecord['hits']): ChoiceRecord => ({ domain: 'web', cluster: 'web:1', turn: 1, lineNo: 1, hits });
  assert.deepStrictEqual(pairwiseGames('x', 'y', [rec([true, true]), rec([true, false]), rec([false, null]), rec([false, false])]), {
    a: 'x',
    b: 'y',
    wins: 3,
    losses: 3,
  });
});

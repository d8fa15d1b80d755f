import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { fitLength, lengthBias, logLengthRatio, mulberry32Points, selfPreference } from '../../support/length-judges.js';

const SETTINGS = { resamples: 1000, seed: 7 };

test('fitLength recovers a line exactly and refuses equal lengths', () => {
  const fit = fitLength([0, 1, 2, -1].map((x) => ({ logRatio: x, total: 40 + 8 * x })))!;
  assert.ok(Math.abs(fit.slope - 8) < 1e-9 && Math.abs(fit.intercept - 40) < 1e-9);
  assert.equal(
    fitLength([
      { logRatio: 1, total: 50 },
      { logRatio: 1, total: 70 },
    ]),
    undefined,
  );
  assert.equal(logLengthRatio(200, 100), 1);
  assert.equal(logLengthRatio(0, 100), undefined);
  assert.equal(logLengthRatio(10, 0), undefined);
});

test('a length-biased judge is flagged and its LC score recovers the unbiased judge within its interval', () => {
  // The same predictions, mostly longer than the truth (mean log2 ratio 0.8), graded by two judges.
  const fair = mulberry32Points(11, 0);
  const biased = mulberry32Points(11, 12);
  const f = lengthBias(fair, SETTINGS);
  const b = lengthBias(biased, SETTINGS);
  for (const d of b.domains) {
    assert.ok(d.biased, `${d.domain}: slope ${d.fit!.slope} [${d.slopeCi!.lo}, ${d.slopeCi!.hi}]`);
    assert.ok(d.slopeCi!.lo > 6 && d.slopeCi!.hi < 18, `${d.domain}: slope near 12`);
    const fairMean = f.domains.find((x) => x.domain === d.domain)!.mean;
    assert.ok(d.lcCi!.lo <= fairMean && fairMean <= d.lcCi!.hi, `${d.domain}: ${fairMean} in [${d.lcCi!.lo}, ${d.lcCi!.hi}]`);
    // Its raw mean is inflated beyond the interval: the correction is doing something.
    assert.ok(d.mean > d.lcCi!.hi, `${d.domain}: raw ${d.mean} above its LC interval`);
  }
  assert.ok(b.lcCi!.lo <= f.mean! && f.mean! <= b.lcCi!.hi, `macro: ${f.mean} in [${b.lcCi!.lo}, ${b.lcCi!.hi}]`);
  assert.ok(b.mean! - b.lc! > 5, 'macro LC below the inflated raw mean');
});

test('an unbiased judge gives slope intervals that contain 0 and is not flagged', () => {
  const f = lengthBias(mulberry32Points(23, 0), SETTINGS);
  assert.equal(f.domains.length, 2);
  for (const d of f.domains) {
    assert.ok(d.slopeCi!.lo < 0 && d.slopeCi!.hi > 0, `${d.domain}: [${d.slopeCi!.lo}, ${d.slopeCi!.hi}]`);
    assert.equal(d.biased, false);
  }
});

test('without bootstrap settings there are no intervals and nothing is flagged; a domain of one length has no fit', () => {
  const pts = [
    { domain: 'web', cluster: 'a', total: 50, logRatio: 0 },
    { domain: 'web', cluster: 'b', total: 75, logRatio: 0 },
    { domain: 'mcp', cluster: 'c', total: 25, logRatio: -1 },
    { domain: 'mcp', cluster: 'd', total: 75, logRatio: 1 },
  ];
  const r = lengthBias(pts, undefined);
  const web = r.domains.find((d) => d.domain === 'web')!;
  assert.equal(web.fit, undefined);
  assert.equal(web.biased, false);
  const mcp = r.domains.find((d) => d.domain === 'mcp')!;
  assert.deepEqual(mcp.fit, { slope: 25, intercept: 50 });
  assert.equal(mcp.slopeCi, undefined);
  assert.equal(r.lc, 50, 'macro over the domains with a fit');
  assert.equal(r.lcCi, undefined);
});

test('self-preference is flagged only when both families are known and equal', () => {
  assert.equal(selfPreference('Qwen/Qwen3-8B', 'qwen3-235b-a22b').selfPreference, true);
  assert.equal(selfPreference('gpt-4o', 'o3-mini').selfPreference, true);
  assert.equal(selfPreference('Qwen/Qwen3-8B', 'gpt-4.1').selfPreference, false);
  assert.equal(selfPreference(undefined, 'gpt-4.1').selfPreference, false);
  assert.equal(selfPreference('my-model', 'my-model').selfPreference, false);
});

import { mulberry32 } from '../../src/core/score/bootstrap.js';
import type { LengthPoint } from '../../src/core/bias/index.js';

export { fitLength, lengthBias, logLengthRatio, selfPreference } from '../../src/core/bias/index.js';

/**
 * Rows of two domains (60 trajectories of 4 turns each): a prediction's
 * relative length log2 ratio ~ 0.8 ± 0.7, a quality that does not depend on
 * it, and a judge whose total gains `perDoubling` points per doubling of the
 * relative length (0: an unbiased judge). The same seed gives the same
 * predictions, so two judges can grade one run.
 */
export function mulberry32Points(seed: number, perDoubling: number): LengthPoint[] {
  const rng = mulberry32(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const out: LengthPoint[] = [];
  for (const [domain, base] of [
    ['mcp', 55],
    ['web', 40],
  ] as const)
    for (let t = 0; t < 60; t++) {
      const skill = 6 * normal();
      for (let turn = 0; turn < 4; turn++) {
        const logRatio = 0.8 + 0.7 * normal();
        const quality = base + skill + 10 * normal();
        const total = Math.min(100, Math.max(0, quality + perDoubling * logRatio));
        out.push({ domain, cluster: `${domain}/${t}`, total, logRatio });
      }
    }
  return out;
}

/*
 * The agreement statistics, as pure functions over plain numbers. Each one
 * returns NaN where it is undefined (no rows, or no spread to measure
 * agreement against): the renderers print that as "n/a".
 */

/** Share of pairs with the same value (0..1). */
export function exactAgreement(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0) return NaN;
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
}

function mean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/**
 * Cohen's kappa with quadratic weights: 1 − Σ(aᵢ−bᵢ)² / Σᵢⱼ(aᵢ−bⱼ)²·(1/n),
 * the observed squared disagreement over the one expected if the two judges
 * graded independently with their own marginals. With weights (i−j)² on
 * equally spaced grades this is the textbook weighted kappa (the scale of
 * the weights cancels), and it reads totals (means of grades) as well.
 * The expected term is computed from moments: mean(a²) − 2·mean(a)·mean(b) + mean(b²).
 */
export function quadraticKappa(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  if (n === 0) return NaN;
  let observed = 0;
  let a2 = 0;
  let b2 = 0;
  for (let i = 0; i < n; i++) {
    observed += (a[i]! - b[i]!) ** 2;
    a2 += a[i]! ** 2;
    b2 += b[i]! ** 2;
  }
  const expected = a2 / n - 2 * mean(a) * mean(b) + b2 / n;
  // Floating noise on a constant pair must not make 0/tiny into a number.
  if (expected <= 1e-12) return NaN;
  return 1 - observed / n / expected;
}

/** Pearson's correlation; NaN when either side has no spread. */
export function pearson(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  if (n < 2) return NaN;
  const ma = mean(a);
  const mb = mean(b);
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  if (saa <= 1e-12 || sbb <= 1e-12) return NaN;
  return sab / Math.sqrt(saa * sbb);
}

/**
 * A Krippendorff distance δ² between the i-th and j-th of the sorted
 * distinct values, given how often each value occurs among the pairable
 * values (n_c).
 */
export type Metric = (values: readonly number[], counts: readonly number[]) => (i: number, j: number) => number;

/** Ordinal: δ²(c,k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)², the grades' distance in ranks, not in points. */
export const ORDINAL: Metric = (_values, counts) => {
  const cumulative = [0];
  for (const c of counts) cumulative.push(cumulative.at(-1)! + c);
  return (i, j) => {
    const [lo, hi] = i <= j ? [i, j] : [j, i];
    return (cumulative[hi + 1]! - cumulative[lo]! - (counts[lo]! + counts[hi]!) / 2) ** 2;
  };
};

/**
 * Krippendorff's alpha: 1 − D_o / D_e over units (rows), each holding the
 * values its judges gave (missing ones left out; a unit with fewer than two
 * values cannot be paired and is dropped). From the coincidence matrix
 * o_ck = Σ_u (c-k pairs in u) / (m_u − 1), n_c = Σ_k o_ck, n = Σ n_c:
 * α = 1 − (n − 1) · Σ o_ck δ²_ck / Σ n_c n_k δ²_ck. Any number of judges.
 */
export function krippendorffAlpha(units: ReadonlyArray<readonly number[]>, metric: Metric = ORDINAL): number {
  const pairable = units.filter((u) => u.length >= 2);
  const values = [...new Set(pairable.flat())].sort((x, y) => x - y);
  const index = new Map(values.map((v, i) => [v, i]));
  const v = values.length;
  const o = Array.from({ length: v }, () => new Float64Array(v));
  for (const unit of pairable) {
    const w = 1 / (unit.length - 1);
    for (let p = 0; p < unit.length; p++)
      for (let q = 0; q < unit.length; q++) if (p !== q) o[index.get(unit[p]!)!]![index.get(unit[q]!)!]! += w;
  }
  const counts = o.map((row) => row.reduce((s, x) => s + x, 0));
  const n = counts.reduce((s, x) => s + x, 0);
  const delta = metric(values, counts);
  let observed = 0;
  let expected = 0;
  for (let c = 0; c < v; c++)
    for (let k = 0; k < v; k++) {
      const d = delta(c, k);
      observed += o[c]![k]! * d;
      expected += counts[c]! * counts[k]! * d;
    }
  if (n < 2 || expected <= 1e-12) return NaN;
  return 1 - ((n - 1) * observed) / expected;
}

/**
 * Kendall's tau-b between two scorings of the same items (leaderboards):
 * (concordant − discordant) / √((n₀ − ties in x)(n₀ − ties in y)), so tied
 * scores neither agree nor disagree. NaN with fewer than two items or when a
 * side ties everything; NaN items (no score) leave their pairs out.
 */
export function kendallTau(x: readonly number[], y: readonly number[]): number {
  let concordant = 0;
  let discordant = 0;
  let tiesX = 0;
  let tiesY = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign(x[j]! - x[i]!);
      const dy = Math.sign(y[j]! - y[i]!);
      if (Number.isNaN(dx) || Number.isNaN(dy)) continue;
      if (dx === 0 && dy === 0) continue;
      if (dx === 0) tiesX++;
      else if (dy === 0) tiesY++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  const untiedX = concordant + discordant + tiesY;
  const untiedY = concordant + discordant + tiesX;
  if (untiedX === 0 || untiedY === 0) return NaN;
  return (concordant - discordant) / Math.sqrt(untiedX * untiedY);
}

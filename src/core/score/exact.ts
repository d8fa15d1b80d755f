/*
 * Exact arithmetic for the printed scores. Every row score is a multiple of
 * 1/60, so sums are kept as integers of sixtieths and only the final
 * division is a rational. The official script's printed figures are not
 * quite that: it averages the rows' doubles exactly (statistics.mean), rounds
 * the mean to a double, normalizes in doubles and prints the double rounded
 * half to even. On a mean such as 133/40, whose score 58.125 is a tie no
 * double holds, the doubles' rounding decides the last digit (58.13), so
 * those figures follow the script's path (officialScore); `toFixed` would
 * also round exact ties such as 3.125 away from zero where the script does
 * not.
 */

/** Row scores are means of one to five integer grades, so 60 sixtieths make one grade point. */
export const SIXTIETHS = 60;

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

export class Ratio {
  /** Always reduced, `den > 0`. */
  readonly num: bigint;
  readonly den: bigint;

  private constructor(num: bigint, den: bigint) {
    if (den === 0n) throw new RangeError('Ratio with a zero denominator');
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num, den);
    this.num = g > 1n ? num / g : num;
    this.den = g > 1n ? den / g : den;
  }

  static of(num: number | bigint, den: number | bigint = 1n): Ratio {
    return new Ratio(toBig(num), toBig(den));
  }

  /** The exact value of a double (every finite double is a dyadic rational). */
  static fromDouble(x: number): Ratio {
    if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
    if (Number.isSafeInteger(x)) return new Ratio(BigInt(x), 1n);
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const hi = view.getUint32(0);
    const lo = view.getUint32(4);
    const negative = hi >>> 31 === 1;
    const biased = (hi >>> 20) & 0x7ff;
    let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let exponent: number;
    if (biased === 0) {
      exponent = -1074; // subnormal
    } else {
      mantissa |= 1n << 52n;
      exponent = biased - 1075;
    }
    if (negative) mantissa = -mantissa;
    return exponent >= 0 ? new Ratio(mantissa << BigInt(exponent), 1n) : new Ratio(mantissa, 1n << BigInt(-exponent));
  }

  add(o: Ratio): Ratio {
    return new Ratio(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  sub(o: Ratio): Ratio {
    return new Ratio(this.num * o.den - o.num * this.den, this.den * o.den);
  }

  mul(o: Ratio): Ratio {
    return new Ratio(this.num * o.num, this.den * o.den);
  }

  div(o: Ratio): Ratio {
    return new Ratio(this.num * o.den, this.den * o.num);
  }

  compare(o: Ratio): number {
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }

  /** The double nearest a positive value below 2^52 (normal, not huge), ties to even: what Python's int / int gives. */
  nearestDouble(): number {
    if (this.num <= 0n) throw new RangeError('nearestDouble needs a positive value');
    // A shift that gives the quotient its 53 bits, then one rounding on the remainder.
    let shift = 52 - (this.num.toString(2).length - this.den.toString(2).length);
    if (shift < 0) throw new RangeError('nearestDouble needs a value below 2^52');
    if ((this.num << BigInt(shift)) / this.den < 1n << 52n) shift++;
    const n = this.num << BigInt(shift);
    let q = n / this.den;
    const twice = 2n * (n - q * this.den);
    if (twice > this.den || (twice === this.den && q % 2n === 1n)) q += 1n;
    return Number(q) / 2 ** shift;
  }

  toNumber(): number {
    // Both parts stay far below 2^53 for any realistic row count, so one division rounds once.
    return Number(this.num) / Number(this.den);
  }

  /** Decimal text with `digits` places, rounding half to even on exact ties; no "-0.00". */
  toFixed(digits = 2): string {
    const scale = 10n ** BigInt(digits);
    const scaled = abs(this.num) * scale;
    let q = scaled / this.den;
    const twice = 2n * (scaled % this.den);
    if (twice > this.den || (twice === this.den && q % 2n === 1n)) q += 1n;
    const sign = this.num < 0n && q !== 0n ? '-' : '';
    if (digits === 0) return `${sign}${q}`;
    const s = q.toString().padStart(digits + 1, '0');
    return `${sign}${s.slice(0, -digits)}.${s.slice(-digits)}`;
  }
}

function toBig(n: number | bigint): bigint {
  if (typeof n === 'bigint') return n;
  if (!Number.isSafeInteger(n)) throw new RangeError(`Ratio.of needs integers, got ${n}`);
  return BigInt(n);
}

/**
 * A grade (0, or 1..5 in steps of 1/60) as an integer of sixtieths, or
 * undefined when the value is not one: the judge's means are 11/3 and the
 * like, stored as doubles, so a small tolerance absorbs their rounding.
 */
export function toSixtieths(value: number): number | undefined {
  const x = value * SIXTIETHS;
  const n = Math.round(x);
  if (Math.abs(x - n) > 1e-6) return undefined;
  if (n !== 0 && (n < SIXTIETHS || n > 5 * SIXTIETHS)) return undefined;
  return n;
}

/** The mean grade (1..5) of `count` values summing to `sum` sixtieths. */
export function rawMean(sum: number, count: number): Ratio | undefined {
  return count > 0 ? Ratio.of(sum, SIXTIETHS * count) : undefined;
}

/** The official normalization of a mean grade to 0..100: `(mean - 1) / 4 * 100`. */
export function normalizedMean(sum: number, count: number): Ratio | undefined {
  return count > 0 ? Ratio.of(25 * (sum - SIXTIETHS * count), SIXTIETHS * count) : undefined;
}

/**
 * A value entering an official mean (sixtieths, 0 or 60..300) as the
 * official script holds it, a double, in exact units of 2^-52: every double
 * from 1 to 5 is a whole number of them.
 */
export function doubleUnits(sixtieths: number): bigint {
  return BigInt((sixtieths / SIXTIETHS) * 2 ** 52);
}

/**
 * The 0-100 score the official script prints for values summing to `units`
 * (doubleUnits) over `count` values: their exact mean rounded to a double,
 * then `(mean - 1) / 4 * 100` in doubles, held exactly so that formatting
 * rounds it as Python does.
 */
export function officialScore(units: bigint, count: number): Ratio | undefined {
  if (count === 0) return undefined;
  const mean = Ratio.of(units, BigInt(count) << 52n).nearestDouble();
  return Ratio.fromDouble(((mean - 1) / 4) * 100);
}

/** The same normalization in floating point, for bootstrap resamples (NaN when empty). */
export function normalizedFloat(sum: number, count: number): number {
  return count > 0 ? (25 * (sum - SIXTIETHS * count)) / (SIXTIETHS * count) : NaN;
}

/** Mean of ratios, or undefined for none. */
export function meanOf(values: readonly Ratio[]): Ratio | undefined {
  if (values.length === 0) return undefined;
  let s = Ratio.of(0);
  for (const v of values) s = s.add(v);
  return s.div(Ratio.of(values.length));
}

/** Two decimals, half to even on exact ties; "n/a" for a missing value. Doubles are taken at their exact value. */
export function formatFixed(value: Ratio | number | undefined, digits = 2): string {
  if (value === undefined || (typeof value === 'number' && Number.isNaN(value))) return 'n/a';
  return (typeof value === 'number' ? Ratio.fromDouble(value) : value).toFixed(digits);
}

/** Like formatFixed with an explicit "+" for positive values, for deltas. */
export function formatSigned(value: Ratio | number | undefined, digits = 2): string {
  const s = formatFixed(value, digits);
  return s === 'n/a' || s.startsWith('-') || /^[0.]+$/.test(s) ? s : `+${s}`;
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ORDINAL,
  agreementOf,
  exactAgreement,
  kendallTau,
  krippendorffAlpha,
  matchUnits,
  pearson,
  quadraticKappa,
  rankStability,
  type GradedRow,
  type Metric,
  type RankedRun,
} from '../../../src/core/agreement/index.js';
import { FaultError } from '../../../src/core/errors.js';
import { Ratio } from '../../../src/core/score/index.js';

const close = (actual: number, expected: number, digits = 9) =>
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `${actual} is not ${expected}`);

/* Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers, 12 units, values 1-5, some missing. */
const N = NaN;
const OBSERVERS = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
  [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
];
const CANONICAL = OBSERVERS[0]!.map((_, u) => OBSERVERS.map((o) => o[u]!).filter((v) => !Number.isNaN(v)));
const NOMINAL: Metric = () => (i, j) => (i === j ? 0 : 1);
const INTERVAL: Metric = (values) => (i, j) => (values[i]! - values[j]!) ** 2;

/* Two judges' grades, cross-checked with a plain Python implementation of the category-matrix formulas (exact fractions). */
const X = [3, 2, 4, 1, 1, 5, 1, 3, 5, 1, 5, 2, 1, 1, 4, 4, 1, 2, 1, 5, 4, 1, 5, 1, 2, 5, 1, 5, 5, 4, 1, 2, 1, 5, 2, 3, 4, 2, 5, 1];
const Y = [3, 2, 3, 1, 1, 4, 1, 2, 5, 2, 5, 2, 2, 2, 4, 4, 1, 2, 1, 4, 4, 2, 5, 2, 2, 4, 1, 5, 5, 4, 1, 3, 2, 4, 1, 3, 4, 2, 5, 2];
const pairs = (a: number[], b: number[]) => a.map((v, i) => [v, b[i]!]);

describe('agreement statistics', () => {
  it("Krippendorff's canonical example gives the published alphas: nominal 0.743, ordinal 0.815, interval 0.849", () => {
    assert.equal(krippendorffAlpha(CANONICAL, NOMINAL).toFixed(3), '0.743');
    assert.equal(krippendorffAlpha(CANONICAL, ORDINAL).toFixed(3), '0.815');
    assert.equal(krippendorffAlpha(CANONICAL, INTERVAL).toFixed(3), '0.849');
  });

  it('quadratic kappa and ordinal alpha agree with the textbook matrix formulas', () => {
    close(quadraticKappa(X, Y), 0.9182115594329335);
    close(krippendorffAlpha(pairs(X, Y)), 0.8785927671984479);
    // The scale of the grades cancels: sixtieths give the same figures.
    close(
      quadraticKappa(
        X.map((v) => v * 60),
        Y.map((v) => v * 60),
      ),
      0.9182115594329335,
    );
    close(
      krippendorffAlpha(
        pairs(
          X.map((v) => v * 60),
          Y.map((v) => v * 60),
        ),
      ),
      krippendorffAlpha(pairs(X, Y)),
    );
  });

  it('two identical judges: exact 1, kappa 1, alpha 1, r 1', () => {
    assert.equal(exactAgreement(X, X), 1);
    close(quadraticKappa(X, X), 1);
    close(krippendorffAlpha(pairs(X, X)), 1);
    close(pearson(X, X), 1);
  });

  it('a judge one grade higher on grades spread evenly over 1-4: kappa 5/7, alpha 0.711, exact 0', () => {
    const a = [1, 2, 3, 4, 1, 2, 3, 4];
    const b = a.map((v) => v + 1);
    // Observed squared difference 1; expected var(a) + var(b) + 1² = 1.25 + 1.25 + 1 = 3.5.
    close(quadraticKappa(a, b), 5 / 7);
    close(krippendorffAlpha(pairs(a, b)), 0.7106481481481481);
    assert.equal(exactAgreement(a, b), 0);
    close(pearson(a, b), 1);
  });

  it('an always-5 judge against a varied one: kappa 0, alpha below 0, r undefined', () => {
    const v = [1, 2, 3, 4, 5, 2, 3, 4];
    const five = v.map(() => 5);
    close(quadraticKappa(v, five), 0);
    assert.ok(krippendorffAlpha(pairs(v, five)) <= 0);
    close(krippendorffAlpha(pairs(v, five)), -0.5972845601436265);
    assert.ok(Number.isNaN(pearson(v, five)));
  });

  it('nothing to measure against is NaN, never a number', () => {
    assert.ok(Number.isNaN(quadraticKappa([3, 3], [3, 3])));
    assert.ok(
      Number.isNaN(
        krippendorffAlpha([
          [3, 3],
          [3, 3],
        ]),
      ),
    );
    assert.ok(Number.isNaN(exactAgreement([], [])));
    assert.ok(Number.isNaN(krippendorffAlpha([[1], [2]])), 'units of one value cannot be paired');
  });

  it("Kendall's tau-b: 1, −1, 2/3 for one swap of four, ties and unscored items", () => {
    assert.equal(kendallTau([1, 2, 3], [1, 2, 3]), 1);
    assert.equal(kendallTau([1, 2, 3], [3, 2, 1]), -1);
    close(kendallTau([1, 2, 3, 4], [1, 3, 2, 4]), 2 / 3);
    // One tie in x among three: (2 − 0) / √(2·3).
    close(kendallTau([1, 1, 2], [1, 2, 3]), 2 / Math.sqrt(6));
    assert.equal(kendallTau([1, NaN, 3], [1, 5, 3]), 1);
    assert.ok(Number.isNaN(kendallTau([1], [1])));
  });
});

const row = (key: string, grade: number, failed = false, gen?: string): GradedRow => ({
  key,
  cluster: key.split(':').slice(0, 2).join(':'),
  domain: key.split(':')[0]!,
  grades: [grade, grade, grade, grade, grade, grade].map((g) => g * 60),
  failed,
  gen,
});

describe('matching rows across judged files', () => {
  it('the android pair (same id and turn, two rows) is matched by content, whatever the order', () => {
    const a = [row('android:7:1:aaaa', 5), row('android:7:1:bbbb', 2)];
    const b = [row('android:7:1:bbbb', 2), row('android:7:1:aaaa', 5)];
    const units = matchUnits([a, b]);
    assert.equal(units.length, 2);
    for (const u of units) assert.equal(u.rows[0]!.grades[0], u.rows[1]!.grades[0]);
  });

  it('rows whose fingerprint no other file has are matched by their order', () => {
    const a = [row('android:7:1:aaaa', 5), row('android:7:1:bbbb', 2)];
    const b = [row('android:7:1:cccc', 5), row('android:7:1:dddd', 2)];
    const units = matchUnits([a, b]);
    assert.deepEqual(
      units.map((u) => u.rows.map((r) => r!.key)),
      [
        ['android:7:1:aaaa', 'android:7:1:cccc'],
        ['android:7:1:bbbb', 'android:7:1:dddd'],
      ],
    );
  });
});

describe('agreementOf', () => {
  const judged = (grades: number[], opts: { failed?: number[]; gen?: string } = {}) =>
    grades.map((g, i) => row(`mcp:${i}:1:ff`, g, opts.failed?.includes(i), opts.gen));

  it('an offset judge: mean difference 25 points, interval the point; failed rows counted and left out', () => {
    const a = [1, 2, 3, 4, 1, 2, 3, 4, 2];
    const report = agreementOf(
      [
        { file: 'a', label: 'A', rows: judged(a, { failed: [8] }) },
        { file: 'b', label: 'B', rows: judged(a.map((v) => v + 1)) },
      ],
      { resamples: 200, seed: 1 },
    );
    const mcp = report.pairs[0]!.domains[0]!;
    assert.equal(mcp.domain, 'mcp');
    assert.equal(mcp.matched, 9);
    assert.equal(mcp.failedA, 1);
    assert.equal(mcp.dims.total.rows, 8);
    close(mcp.dims.total.meanDiff, -25);
    close(mcp.dims.total.kappa, 5 / 7);
    assert.deepEqual(mcp.dims.total.ci, { lo: -25, hi: -25 });
    assert.equal(report.panel, undefined, 'two judges: the pair has the alpha');
  });

  it('three judges: every pair and alpha over all; different predictions are named in a warning', () => {
    const runs = ['A', 'B', 'C'].map((label, i) => ({ file: label, label, rows: judged(X, { gen: i === 2 ? 'other' : 'same' }) }));
    const report = agreementOf(runs, undefined);
    assert.deepEqual(
      report.pairs.map((p) => [p.a, p.b]),
      [
        [0, 1],
        [0, 2],
        [1, 2],
      ],
    );
    close(report.panel![0]!.alpha.total, 1);
    // C judged other predictions than A and B: both of its pairs say how many rows differ, and each is warned of.
    assert.deepEqual(
      report.pairs.map((p) => p.differentGen),
      [0, 40, 40],
    );
    assert.deepEqual(report.warnings, [
      { kind: 'judged-other-predictions', a: 'A', b: 'C', rows: 40 },
      { kind: 'judged-other-predictions', a: 'B', b: 'C', rows: 40 },
    ]);
  });

  it('files with no row in common: the fault names both', () => {
    assert.throws(
      () =>
        agreementOf(
          [
            { file: 'a.jsonl', label: 'A', rows: [row('mcp:1:1:ff', 3)] },
            { file: 'b.jsonl', label: 'B', rows: [row('mcp:2:1:ff', 3)] },
          ],
          undefined,
        ),
      (err: unknown) =>
        err instanceof FaultError &&
        err.fault.kind === 'agreement-no-common-rows' &&
        err.fault.a === 'a.jsonl' &&
        err.fault.b === 'b.jsonl',
    );
  });
});

describe('rankStability', () => {
  const run = (model: string, judge: string, grades: number[]): RankedRun => {
    const rows = grades.map((g, i) => row(`mcp:${i}:1:ff`, g));
    const mean = grades.reduce((s, g) => s + g, 0) / grades.length;
    return { file: `${model}-${judge}`, model, judge, rows, domainScores: new Map([['mcp', Ratio.fromDouble(((mean - 1) / 4) * 100)]]) };
  };

  it('judges that reverse the order: tau −1, every pair ordered differently', () => {
    const report = rankStability(
      [run('m1', 'j1', [5, 5, 4]), run('m2', 'j1', [2, 2, 3]), run('m1', 'j2', [1, 2, 1]), run('m2', 'j2', [4, 4, 5])],
      { resamples: 100, seed: 3 },
    );
    assert.deepEqual(report.models, ['m1', 'm2']);
    assert.equal(report.taus[0]!.tau, -1);
    assert.deepEqual(report.ranks, [
      [1, 2],
      [2, 1],
    ]);
    assert.equal(report.pairs[0]!.disagree, 1);
    assert.equal(report.pairs[0]!.judges[0]!.swapped, 0);
  });

  it('one model or two files of the same model and judge are faults', () => {
    const kind = (fn: () => unknown, k: string) => assert.throws(fn, (err: unknown) => err instanceof FaultError && err.fault.kind === k);
    kind(() => rankStability([run('m1', 'j1', [3]), run('m1', 'j2', [3])], undefined), 'agreement-too-few-runs');
    kind(() => rankStability([run('m1', 'j1', [3]), run('m1', 'j1', [4])], undefined), 'agreement-run-twice');
  });
});

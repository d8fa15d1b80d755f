import type { GateReason, GateResult, GateTest } from '../../../../src/core/compare/index.js';
import type { RunBias } from '../../../../src/core/bias/index.js';
import { NOTE_WORDS } from '../../../../src/commands/words/index.js';

/*
 * The sentences renderers are handed (NOTE_WORDS: the gate's lines, compare's and the leaderboard's footnotes), each
 * said once with plausible fields for the words snapshot: `[what, sentence]`.
 */

const test = (domain: string, name: string, p: number): GateTest => ({ name, domain, delta: -0.4, p, level: 0.05, rejected: false });

/** The gate's reasons: every code and cause, and the counts that change a word ("one test", "1 trajectory"). */
const REASONS: Record<string, GateReason> = {
  regression: { code: 'regression', domain: 'search', delta: -3.25, threshold: 1, p: 0.00123, level: 0.0125, tests: 4 },
  'regression, one test': { code: 'regression', domain: 'overall', delta: -25, threshold: 1, p: 0.002, level: 0.05, tests: 1 },
  untestable: { code: 'untestable', domain: 'overall', trajectories: 3, needed: 6, tests: 2 },
  'untestable, one trajectory': { code: 'untestable', domain: 'web', trajectories: 1, needed: 7, tests: 4 },
  'untestable, no trajectory': { code: 'untestable', domain: 'os', trajectories: 0, needed: 7, tests: 4 },
  incomparable: {
    code: 'incomparable',
    note: {
      kind: 'setting-differs',
      setting: 'judge',
      values: [
        { value: 'gpt-4o', runs: ['base'] },
        { value: 'gpt-5.2', runs: ['cand'] },
      ],
    },
  },
  'judge-failures, unreadable': { code: 'judge-failures', cause: 'unreadable', domain: 'mcp', rows: 2, paired: 40 },
  'judge-failures, request-failed': { code: 'judge-failures', cause: 'request-failed', domain: 'swe', rows: 5, paired: 40 },
  'incomplete, missing-rows': { code: 'incomplete', cause: 'missing-rows', rows: 12, emptyDomains: [] },
  'incomplete, missing-rows of whole domains': { code: 'incomplete', cause: 'missing-rows', rows: 80, emptyDomains: ['android', 'web'] },
  'incomplete, unfinished': { code: 'incomplete', cause: 'unfinished' },
  'incomplete, no-generation': { code: 'incomplete', cause: 'no-generation', domain: 'os', rows: 10, paired: 24 },
};

const gate = (g: Partial<GateResult>): GateResult => ({
  threshold: 2,
  alpha: 0.05,
  failed: false,
  outcome: 'passed',
  tests: [test('overall', 'Overall', 0.4), test('mcp', 'MCP', 0.5), test('search', 'Search', 0.6), test('os', 'OS', 0.7)],
  reasons: [],
  inconclusive: [],
  domains: undefined,
  ...g,
});
const GATES: Record<string, GateResult> = {
  passed: gate({}),
  'passed, a domain not tested': gate({ inconclusive: [{ domain: 'web', trajectories: 3, needed: 7, tests: 4 }] }),
  'passed, Overall alone': gate({ tests: [test('overall', 'Overall', 0.4)] }),
  'passed, one domain': gate({ tests: [test('overall', 'Overall', 0.4), test('mcp', 'MCP', 0.5)] }),
  failed: gate({ failed: true, outcome: 'regression' }),
  'with --domains': gate({ domains: ['mcp', 'search', 'os'] }),
};
/** A run's bias checks: only the fields the lines read matter. */
const bias = (b: Partial<RunBias>): RunBias => ({
  label: 'qwen3-8b',
  model: 'Qwen/Qwen3-8B',
  judge: 'qwen-max',
  modelFamily: 'qwen',
  judgeFamily: 'qwen',
  selfPreference: false,
  unmeasured: 0,
  length: { domains: [], lc: undefined, lcCi: undefined, mean: undefined },
  ...b,
});
const UNTESTED = { domain: 'web', trajectories: 3, needed: 7, tests: 4 };

export function renderSamples(): Array<[string, string]> {
  const { gate: g, compare: c, method: m, drift: d, bias: b, agreement: a, labels: l, rows: r } = NOTE_WORDS;
  return [
    ['note', NOTE_WORDS.note('a sentence')],
    ...Object.entries(REASONS).map(([what, r]): [string, string] => [`gate reason: ${what}`, g.reason(r, 'cand.jsonl')]),
    ...Object.entries(GATES).map(([what, r]): [string, string] => [`gate head: ${what}`, g.head(r)]),
    ['gate method', g.method(GATES.passed!)],
    ['gate method: with --domains', g.method(GATES['with --domains']!)],
    ['gate method: one test', g.method(GATES['passed, Overall alone']!)],
    ['gate remedy: infer-and-judge', g.remedy('infer-and-judge', 'cand.jsonl', 'npx agentworldbench')],
    ['gate remedy: judge', g.remedy('judge', 'cand.jsonl', 'awb')],
    ['gate untested', g.untested(UNTESTED)],
    ['gate not tested', g.notTested({ ...UNTESTED, trajectories: 1 })],
    ['compare baseline', c.baseline('base', c.about('base.jsonl', 198, []))],
    ['compare candidate', c.candidate('cand', c.about('cand.jsonl', 40, ['40 of 198 judged', 'other judge']))],
    ['compare domains', c.domains(['MCP', 'OS'])],
    ['compare intervals', c.intervals],
    ['compare verdict', c.verdict],
    ['compare changed title', c.changedTitle(10)],
    ['compare intervals method (json)', c.intervalsMethod],
    ['gate rule (json)', g.rule],
    ['compare rows command', c.rowsCommand('awb rows cand.jsonl web/5/1 os/3/2')],
    ['method scores', m.scores],
    ['method failures as lowest', m.failuresAsLowest],
    ['method bootstrap', m.bootstrap(1000, 7)],
    ['method by turn', m.byTurnIntervals],
    ['method one trajectory', m.oneTrajectory],
    ['method best', m.best],
    ['method not ranked', m.notRanked],
    ['method panel member', m.panelMember],
    ['method single judge', m.singleJudge('qwen3-8b', 'gpt-4o')],
    ['method single judge, unknown', m.singleJudge('old', undefined)],
    ['method published', m.published],
    ['usage title', m.usageTitle(undefined)],
    ['usage title, priced', m.usageTitle({ infer: '$0.2/$0.8', judge: '$1.25/$10 (cached input $0.125)' })],
    ['best marks, bold', NOTE_WORDS.best.bold],
    ['best marks, star', NOTE_WORDS.best.star],
    [
      'standing',
      NOTE_WORDS.standing.notRanked(
        (
          [
            { kind: 'incomplete', rows: 40, expected: 198 },
            { kind: 'incomplete', rows: 40, expected: undefined },
            { kind: 'mixed' },
            { kind: 'other', setting: 'judge' },
            { kind: 'other', setting: 'rubrics' },
            { kind: 'other', setting: 'history' },
            { kind: 'other', setting: 'dataset' },
          ] as const
        ).map(NOTE_WORDS.standing.reason),
      ),
    ],
    ['drift title', d.title(['qwen3-8b'])],
    ['drift run', d.run('H=2', 'qwen3-8b-h2', 'h2/judged.jsonl')],
    ['drift horizon', d.horizon],
    ['drift intervals', d.intervals(1000, 7)],
    ['drift no intervals', d.noIntervals],
    ['drift rows', d.rows],
    ...NOTE_WORDS.modes.footnotes.map((line, i): [string, string] => [`modes footnote ${i + 1}`, line]),
    ['bias heading', b.heading],
    ['bias self-preference', b.selfPreference(bias({ selfPreference: true }))],
    ['bias self-preference, none', b.selfPreference(bias({ judge: undefined, judgeFamily: undefined, modelFamily: undefined }))],
    [
      'bias length',
      b.lengthBias('qwen3-8b', [
        { domain: 'Web', slope: '+4.20' },
        { domain: 'OS', slope: '-2.00' },
      ]),
    ],
    ['bias unmeasured', b.unmeasured('qwen3-8b', 3)],
    ...b.footnotes.map((line, i): [string, string] => [`bias footnote ${i + 1}`, line]),
    ['agreement judge', a.judge('gpt-4o', 'judged-4o.jsonl', 198, 2)],
    ['agreement rows', a.rows],
    ['agreement figures', a.figures],
    ['agreement mean difference', a.meanDiff({ resamples: 1000, seed: 7 })],
    ['agreement mean difference, no bootstrap', a.meanDiff(undefined)],
    ['agreement unpaired', a.unpaired('gpt-4o', 'claude', 3, 1)],
    ['agreement more', a.more],
    ['agreement overall', a.overall(['MCP', 'OS'], ['Web'])],
    ['agreement overall, none', a.overall([], [])],
    ['agreement tau', a.tau],
    ['agreement disagree', a.disagree],
    ['agreement resamples', a.resamples({ resamples: 1000, seed: 7 })],
    ['agreement no bootstrap', a.resamples(undefined)],
    ['label n/a', l.na],
    ['label no half-width', l.noHalfWidth],
    ['label overall', l.overall],
    ['label overall macro', l.overallMacro],
    ['label overall micro', l.overallMicro],
    ['label all domains', l.allDomains],
    ...Object.entries(l.verdict).map(([k, v]): [string, string] => [`label verdict ${k}`, v]),
    ['label length bias', l.lengthBias],
    ...Object.entries(l.disagree).map(([k, v]): [string, string] => [`label disagree ${k}`, v]),
    ['label swaps', l.swaps('12.5%')],
    ['label horizon 0', l.horizon(0)],
    ['label horizon 3', l.horizon(3)],
    ['label horizon all', l.horizon('all')],
    ['label no drop', l.noDrop],
    ['label no drop called', l.noDropCalled],
    ['rows failed', r.failed('HTTP 500: upstream error')],
    ['rows failed, no error', r.failed(undefined)],
    ['rows total', r.total('3.40')],
    ['rows action', r.action('ls -la /tmp')],
    ['rows prediction', r.prediction],
    ['rows ground truth', r.groundTruth(2)],
    ['rows generated', r.generated(2)],
    ['rows real', r.real(2, 1)],
    ['rows strengths', r.strengths],
    ['rows weaknesses', r.weaknesses],
    ['rows empty', r.empty],
    ['rows more lines', r.moreLines(14)],
    ...Object.entries(NOTE_WORDS.page).map(([key, text]): [string, string] => [
      `page ${key}`,
      typeof text === 'string' ? text : text.join(' | '),
    ]),
  ];
}

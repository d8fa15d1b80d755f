import type { Prices, StagePrices } from '../../core/score/index.js';
import { domainName } from '../../core/domains.js';
import { fail } from '../../core/errors.js';
import { DOMAINS_OPTION, choiceOption, intIn, intOption, labelOption, numberOption } from '../shared/options.js';
import { EXIT } from '../words/words.js';
import { formatChoice, given, toggle, type OptionSpec, type OptionTable, type Parsed } from '../shared/option-table.js';

/* The options of score, report, compare, rows, merge and publish, each with its parser (see option-table.ts). */

/** Whose tokens a price is for: both stages, or one of them (winning over both). */
type PriceStage = 'both' | 'model' | 'judge';
type PriceKind = keyof StagePrices;

/** Every --price-* option, in --help's order: one per (stage, kind). */
const PRICES = [
  ['both', 'input'],
  ['both', 'output'],
  ['model', 'input'],
  ['model', 'output'],
  ['judge', 'input'],
  ['judge', 'output'],
  ['both', 'cachedInput'],
  ['model', 'cachedInput'],
  ['judge', 'cachedInput'],
] as const satisfies ReadonlyArray<readonly [PriceStage, PriceKind]>;

type PriceKey<S extends PriceStage, K extends PriceKind> = `price${S extends 'both' ? '' : Capitalize<S>}${Capitalize<K>}`;
type PriceOptions = { [P in (typeof PRICES)[number] as PriceKey<P[0], P[1]>]: OptionSpec<number | undefined> };

const capital = <S extends string>(s: S) => (s.charAt(0).toUpperCase() + s.slice(1)) as Capitalize<S>;
const priceKey = <S extends PriceStage, K extends PriceKind>(stage: S, kind: K) =>
  `price${stage === 'both' ? '' : capital(stage)}${capital(kind)}` as PriceKey<S, K>;
const priceFlag = (stage: PriceStage, kind: PriceKind) =>
  `--price${stage === 'both' ? '' : `-${stage}`}-${kind.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

const TOKENS: Record<PriceKind, string> = { input: 'input tokens', output: 'output tokens', cachedInput: 'cached prompt tokens' };
const WHOSE: Record<PriceStage, string> = { both: '(both stages)', model: 'of the world model (infer)', judge: 'of the judge' };
const BOTH_NOTE: Record<PriceKind, string> = {
  input: ', to turn usage into cost',
  output: '',
  cachedInput: '; the rest of the prompt costs the input price',
};

const PRICE_OPTIONS = Object.fromEntries(
  PRICES.map(([stage, kind]) => [
    priceKey(stage, kind),
    {
      flags: `${priceFlag(stage, kind)} <usd>`,
      help: `price per million ${TOKENS[kind]} ${WHOSE[stage]}${stage === 'both' ? BOTH_NOTE[kind] : `; wins over ${priceFlag('both', kind)}`}`,
      parse: (v: string | undefined, n: string) => numberOption(n, v, 0, 1e6),
    },
  ]),
) as unknown as PriceOptions;

/**
 * --price-input/--price-output price both stages; --price-model-* and
 * --price-judge-* price one stage each and win over them. Cached prompt
 * tokens cost the --price-*cached-input price when one is given (per stage
 * winning over both), else the input price. Unpriced: undefined.
 */
export function pricesOption(opts: Parsed<PriceOptions>): Prices | undefined {
  const stage = (s: 'model' | 'judge') => {
    const price = (kind: PriceKind) => opts[priceKey(s, kind)] ?? opts[priceKey('both', kind)];
    return { input: price('input'), output: price('output'), cachedInput: price('cachedInput') };
  };
  const infer = stage('model');
  const judge = stage('judge');
  if ([infer, judge].every((p) => Object.values(p).every((v) => v === undefined))) return undefined;
  const zero = (p: ReturnType<typeof stage>): StagePrices => ({
    input: p.input ?? 0,
    output: p.output ?? 0,
    ...(p.cachedInput !== undefined ? { cachedInput: p.cachedInput } : {}),
  });
  return { infer: zero(infer), judge: zero(judge) };
}

/** The intervals' options, for every command that bootstraps over trajectories. */
export const BOOTSTRAP_OPTIONS = {
  ci: toggle('--no-ci', 'no bootstrap confidence intervals'),
  bootstrap: {
    flags: '--bootstrap <n>',
    help: 'bootstrap resamples (resampling whole trajectories)',
    default: '1000',
    parse: intIn(10, 1_000_000),
  },
  seed: { flags: '--seed <n>', help: 'bootstrap seed', default: '20260624', parse: intIn(0, 2 ** 32 - 1) },
} satisfies OptionTable;

/** What score and report share: how the numbers are made. */
export const SCORE_SETTINGS = {
  failuresAsLowest: toggle('--failures-as-lowest', 'score failed rows as the lowest grade (1) instead of leaving them out: a conservative figure'),
  ...BOOTSTRAP_OPTIONS,
  withPublished: toggle('--with-published', 'add the published leaderboard rows (official README) for context'),
  ...PRICE_OPTIONS,
} satisfies OptionTable;

export type ScoreSettings = Parsed<typeof SCORE_SETTINGS>;

export const AGREEMENT_OPTIONS = {
  byModel: toggle('--by-model', "several models each judged by several judges: a leaderboard per judge, Kendall's tau between them, pairs that swap"),
  format: formatChoice(['table', 'markdown', 'csv', 'json']),
  ...BOOTSTRAP_OPTIONS,
  ci: { ...BOOTSTRAP_OPTIONS.ci, help: 'no bootstrap intervals' },
} satisfies OptionTable;

export const SCORE_OPTIONS = {
  format: formatChoice(['table', 'markdown', 'csv', 'json']),
  by: {
    flags: '--by <what>',
    help: '"turn": break each domain down by turn_idx buckets',
    parse: (v: string | undefined, n: string) => (v === undefined ? undefined : choiceOption(n, v, ['turn'] as const)),
  },
  byJudge: toggle('--by-judge', "a file judged by a panel (judge --judge-model a,b,c): each member's own scores beside the panel's"),
  bias: toggle('--bias', "bias checks beside the scores: the judge's family against the world model's, and length bias with a length-controlled score"),
  ...SCORE_SETTINGS,
} satisfies OptionTable;

export const REPORT_OPTIONS = {
  output: { flags: '-o, --output <file>', help: 'the HTML file to write', default: 'report.html', parse: (v: string) => v },
  ...SCORE_SETTINGS,
} satisfies OptionTable;

export const COMPARE_OPTIONS = {
  domains: {
    ...DOMAINS_OPTION,
    help: 'compare only these comma-separated domains: Overall is their macro, and with --fail-below each must be testable (default: all in the runs)',
  },
  failBelow: {
    flags: '--fail-below <delta>',
    help: `exit ${EXIT.gate} when the candidate is significantly worse than the baseline by more than DELTA points (Overall or any domain; 5% family-wise error), ${EXIT.gateIncomplete} when it lacks rows, ${EXIT.gateUntestable} when Overall (or a domain of --domains) has too few trajectories to test`,
    parse: (v: string | undefined, n: string) => numberOption(n, v, 0, 100),
  },
  allowPartial: toggle('--allow-partial', 'with --fail-below: let a candidate that lacks rows of the baseline, or failed rows the baseline has valid, pass on the rows in common'),
  allowIncomparable: toggle('--allow-incomparable', 'with --fail-below: let runs made with a different judge, rubrics, history protocol or dataset pass'),
  rows: {
    flags: '--rows <n>',
    help: 'also list the N rows whose total changed most',
    parse: (v: string | undefined, n: string) => intOption(n, v, 1, 100_000),
  },
  format: formatChoice(['table', 'markdown', 'json']),
  summary: given('--summary <file>', 'also write a markdown summary here (e.g. $GITHUB_STEP_SUMMARY)'),
} satisfies OptionTable;

export const DRIFT_OPTIONS = {
  domains: { ...DOMAINS_OPTION, help: 'only these comma-separated domains: Overall is their macro (default: all in the runs)' },
  format: formatChoice(['table', 'markdown', 'csv', 'json']),
  ...BOOTSTRAP_OPTIONS,
} satisfies OptionTable;

const pick = (v: string | undefined, n: string) => intOption(n, v, 1, 1_000_000);

export const ROWS_OPTIONS = {
  domain: {
    flags: '--domain <name>',
    help: 'only this domain',
    parse: (v: string | undefined) => (v === undefined ? undefined : domainName(v)),
  },
  worst: { flags: '--worst <n>', help: 'the N rows with the lowest total score', parse: pick },
  best: { flags: '--best <n>', help: 'the N rows with the highest total score', parse: pick },
  failed: toggle('--failed', 'only failed rows'),
  format: formatChoice(['table', 'json'], 'output format'),
} satisfies OptionTable;

export const MERGE_OPTIONS = {
  output: given('-o, --output <file>', 'the merged file to write'),
  data: given('--data <dir>', 'dataset folder to check coverage against (default: the cached download the shards used)'),
  allowGaps: toggle('--allow-gaps', 'write what there is and list the missing rows instead of refusing'),
  force: toggle('--force', 'overwrite the merged file if it exists'),
} satisfies OptionTable;

/** OWNER/NAME as the Hub spells a repo id. */
const repoId = (v: string | undefined, n: string) => {
  if (v !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(v)) throw fail({ kind: 'publish-repo-invalid', option: n, value: v });
  return v;
};

export const PUBLISH_OPTIONS = {
  out: given('--out <dir>', 'write .eval_results/agentworldbench.yaml (for the model repo) and eval.yaml (for the benchmark dataset) in DIR'),
  repo: {
    flags: '--repo <owner/model>',
    help: "open a pull request adding the Eval Results file on this model repo of the Hub ($HF_ENDPOINT, else huggingface.co; token: $HF_TOKEN)",
    parse: repoId,
  },
  traces: {
    flags: '--traces <owner/dataset>',
    help: "first upload the judged rows, scores (JSON), report and manifests to this dataset repo (made if missing); the results' source points there",
    parse: repoId,
  },
  name: {
    flags: '--name <folder>',
    help: "the run's folder in the traces repo (default: its label, else its model)",
    parse: (v: string | undefined, n: string) => labelOption(n, v),
  },
  allowUnranked: toggle(
    '--allow-unranked',
    'publish a run `score --with-published` would not rank (other judge, sampling, rubrics or history protocol, partial data); its notes say why',
  ),
} satisfies OptionTable;

import { command, noOperands, type AnyCommand } from './shared/option-table.js';
import { OPTION_WORDS } from './words/usage.js';

/*
 * Every command, declared once, in --help's order: a new command is an entry
 * here and a module whose `run` takes the entry's operands and parsed options.
 */

const KEY_ENV = (option: string, vars: string) =>
  `${vars}: the key when ${option} is not given${vars.includes(',') ? ', the first one set' : ''} (trimmed; empty counts as unset; OPENAI_BASE_URL is not read)`;
const OPENAI_KEY_ENV =
  "OPENAI_API_KEY: read as well, after it, only when the endpoint is https://api.openai.com (the judge's key is not sent to other hosts)";
const COLOR_ENV = 'NO_COLOR, FORCE_COLOR: colours off, or on without a terminal (FORCE_COLOR=0: never)';
/** score, agreement and report read any number of judged files; only what each accepts differs. */
const JUDGED_FILES = (accepts: string) => [{ name: '<judged...>', help: `judged JSONL files ${accepts}` }] as const;

export const COMMANDS: readonly AnyCommand[] = [
  command({
    name: 'download',
    description:
      'Download the AgentWorldBench dataset from the Hugging Face Hub or ModelScope, each file checked against its listed size and hash',
    operands: [],
    tooMany: noOperands('download', 'the folder to download into', '--dir DIR'),
    options: () => import('./data/download-options.js').then((m) => m.DOWNLOAD_OPTIONS),
    examples: ['awb download --dir ./AgentWorldBench', 'awb download --revision <commit> --domains terminal,swe'],
    environment: [
      'HF_ENDPOINT             a Hugging Face mirror, a bare http(s)://host[/path]',
      'HF_TOKEN                token for gated or private copies (hf_...)',
      'HF_HOME, HF_HUB_CACHE   where the Hugging Face cache is',
      'HF_HUB_OFFLINE=1        use the complete copy in the cache without asking the hub',
      "MODELSCOPE_ENDPOINT     ModelScope's URL (else MODELSCOPE_DOMAIN, a host)",
      'MODELSCOPE_API_TOKEN    token for private copies on ModelScope',
      "MODELSCOPE_CACHE        ModelScope's cache (default ~/.cache/modelscope)",
      'NO_COLOR, FORCE_COLOR   colours off, or on without a terminal (FORCE_COLOR=0: never)',
    ],
    load: () => import('./data/download.js'),
  }),
  command({
    name: 'infer',
    description: 'Run a world model on every row and write predictions JSONL (resumable)',
    operands: [],
    tooMany: noOperands('infer', 'the dataset folder', '--data DIR'),
    options: () => import('./stage/stage-options.js').then((m) => m.INFER_OPTIONS),
    otherNames: {
      '--judge-base-url': '--model-base-url',
      '--base-url': '--model-base-url',
      '--judge-model': '--model-name',
      '--model': '--model-name',
      '--judge-api-key': '--model-api-key',
      '--api-key': '--model-api-key',
    },
    examples: [
      'awb infer --model-base-url http://localhost:8000/v1 --model-name Qwen/Qwen3-8B -c 64',
      'awb infer --model-base-url http://localhost:8000/v1 --model-name my-model --data ./AgentWorldBench --domains terminal --limit 10',
      'awb infer --model-base-url http://localhost:8000/v1 --model-name my-model --horizon 4 --dry-run',
    ],
    environment: [
      KEY_ENV('--model-api-key', 'AWB_MODEL_API_KEY'),
      OPENAI_KEY_ENV,
      'HF_ENDPOINT, HF_TOKEN, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE: when the dataset is downloaded (awb download --help)',
      COLOR_ENV,
    ],
    load: () => import('./stage/infer.js'),
  }),
  command({
    name: 'judge',
    description: 'Score predictions with an LLM judge and the per-domain rubrics; writes judged JSONL (resumable)',
    operands: [],
    tooMany: noOperands('judge', 'the predictions file', '--predictions FILE'),
    options: () => import('./stage/stage-options.js').then((m) => m.JUDGE_OPTIONS),
    otherNames: {
      '--model-base-url': '--judge-base-url',
      '--base-url': '--judge-base-url',
      '--model-name': '--judge-model',
      '--model': '--judge-model',
      '--model-api-key': '--judge-api-key',
      '--api-key': '--judge-api-key',
    },
    examples: [
      'awb judge --predictions results/Qwen--Qwen3-8B/predictions.jsonl --judge-base-url https://api.openai.com/v1 --judge-model gpt-5.2-2025-12-11 -c 32',
    ],
    environment: [KEY_ENV('--judge-api-key', 'AWB_JUDGE_API_KEY, OPENAI_API_KEY'), COLOR_ENV],
    load: () => import('./stage/judge.js'),
  }),
  command({
    name: 'models',
    description: 'List the models an OpenAI-compatible endpoint serves (the names --model-name and --judge-model take)',
    operands: [],
    tooMany: noOperands('models', 'the endpoint', '--base-url URL'),
    options: () => import('./stage/stage-options.js').then((m) => m.MODELS_OPTIONS),
    otherNames: {
      '--model-base-url': '--base-url',
      '--judge-base-url': '--base-url',
      '--model-api-key': '--api-key',
      '--judge-api-key': '--api-key',
    },
    examples: ['awb models --base-url http://localhost:8000/v1'],
    environment: [KEY_ENV('--api-key', 'AWB_MODEL_API_KEY'), OPENAI_KEY_ENV],
    load: () => import('./stage/models.js'),
  }),
  command({
    name: 'score',
    description: 'Aggregate judged files into per-domain 0-100 scores; several files make a leaderboard, a row per run',
    operands: JUDGED_FILES("(ours or the official script's)"),
    options: () => import('./results/results-options.js').then((m) => m.SCORE_OPTIONS),
    examples: [
      'awb score results/*/judged.jsonl',
      'awb score results/my-model/judged.jsonl --with-published --format markdown',
      'awb score results/my-model/judged.jsonl --by turn --format csv > by-turn.csv',
    ],
    environment: [COLOR_ENV],
    load: () => import('./results/score.js'),
  }),
  command({
    name: 'agreement',
    description:
      'How far judges agree: the same predictions judged by several judges (kappa, alpha, mean difference), or --by-model their leaderboards',
    operands: JUDGED_FILES('(each FILE or LABEL=FILE; with --by-model: MODEL@JUDGE=FILE, or the manifests say)'),
    options: () => import('./results/results-options.js').then((m) => m.AGREEMENT_OPTIONS),
    examples: ['awb agreement gpt=judged-gpt.jsonl claude=judged-claude.jsonl', 'awb agreement --by-model results/*/judged-*.jsonl'],
    environment: [COLOR_ENV],
    load: () => import('./results/agreement.js'),
  }),
  command({
    name: 'report',
    description:
      'Write one self-contained HTML page of judged runs: leaderboard, judge-mode figures, charts and every row, viewable offline',
    operands: JUDGED_FILES("(ours or the official script's; rubric, turing, pairwise or --repeat), a run each"),
    options: () => import('./results/results-options.js').then((m) => m.REPORT_OPTIONS),
    examples: ['awb report results/*/judged.jsonl -o report.html'],
    environment: [COLOR_ENV],
    load: () => import('./results/report.js'),
  }),
  command({
    name: 'compare',
    description:
      'Paired comparison of two judged runs, with cluster-robust intervals over trajectories; a CI regression gate (--fail-below)',
    operands: [
      { name: '<baseline>', help: 'judged JSONL of the baseline' },
      { name: '<candidate>', help: 'judged JSONL of the candidate' },
    ],
    // A third run is the usual slip of someone comparing several models: say where that goes.
    tooMany: OPTION_WORDS.compareTakesTwo,
    options: () => import('./results/results-options.js').then((m) => m.COMPARE_OPTIONS),
    examples: [
      'awb compare baseline/judged.jsonl candidate/judged.jsonl --rows 10',
      'awb compare baseline/judged.jsonl candidate/judged.jsonl --fail-below 1 --summary "$GITHUB_STEP_SUMMARY"',
    ],
    environment: [COLOR_ENV],
    load: () => import('./results/compare.js'),
  }),
  command({
    name: 'drift',
    description:
      'How far a world model drifts on its own predictions: a teacher-forced judged run and free-running ones (infer --horizon H), score and drop per horizon, with intervals',
    operands: JUDGED_FILES('of one model: its teacher-forced run and its runs at free-running horizons (infer --horizon), one file each'),
    options: () => import('./results/results-options.js').then((m) => m.DRIFT_OPTIONS),
    examples: [
      'awb drift results/my-model/judged.jsonl results/my-model/horizon-1/judged.jsonl results/my-model/horizon-4/judged.jsonl',
      'awb drift results/my-model/judged.jsonl results/my-model/horizon-*/judged.jsonl --format csv > drift.csv',
    ],
    environment: [COLOR_ENV],
    load: () => import('./results/drift.js'),
  }),
  command({
    name: 'rows',
    description: "Show judged rows: grades, action, cleaned prediction beside the ground truth, the judge's strengths and weaknesses",
    operands: [
      { name: '<judged>', help: 'judged JSONL file' },
      {
        name: '[rows...]',
        help: 'only these rows, each domain/id/turn_idx as compare and the report name them (#fingerprint: one of a pair)',
      },
    ],
    options: () => import('./results/results-options.js').then((m) => m.ROWS_OPTIONS),
    examples: [
      'awb rows results/my-model/judged.jsonl web/563640682553697/5',
      'awb rows results/my-model/judged.jsonl --domain terminal --worst 5',
      'awb rows results/my-model/judged.jsonl --failed',
      'awb rows results/my-model/judged.jsonl --best 3 --format json',
    ],
    environment: [COLOR_ENV],
    load: () => import('./results/rows.js'),
  }),
  command({
    name: 'merge',
    description: 'Join shard outputs into one file after checking settings, coverage and integrity',
    operands: [{ name: '<shards...>', help: 'shard output files (without -o, as in older versions: the merged file, then the shards)' }],
    options: () => import('./results/results-options.js').then((m) => m.MERGE_OPTIONS),
    examples: [
      'awb merge -o results/my-model/predictions.jsonl results/my-model/predictions-shard-*-of-8.jsonl',
      'awb merge -o results/my-model/judged.jsonl results/my-model/judged-shard-*-of-4.jsonl',
    ],
    environment: [COLOR_ENV],
    load: () => import('./results/merge.js'),
  }),
  command({
    name: 'publish',
    description:
      "Write a judged run's scores as the Hugging Face Hub's Eval Results, and open a pull request with them on the model's repo",
    operands: [{ name: '<judged>', help: 'judged JSONL file (its manifest beside it)' }],
    options: () => import('./results/results-options.js').then((m) => m.PUBLISH_OPTIONS),
    examples: [
      'awb publish results/my-model/judged.jsonl --out hub-files',
      'awb publish results/my-model/judged.jsonl --traces my-org/awb-traces --repo my-org/my-model',
    ],
    environment: [
      'HF_TOKEN      token with write access, for --repo and --traces (read from nowhere else; sent to the Hub only)',
      'HF_ENDPOINT   the Hub, a bare http(s)://host[/path] (default https://huggingface.co)',
    ],
    load: () => import('./results/publish.js'),
  }),
];

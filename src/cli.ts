import { Command, Option, CommanderError } from 'commander';
import { DATASET_REPO } from './core/domains.js';
import { UserError } from './core/errors.js';
import { visible } from './core/shown.js';
import { VERSION } from './version.js';
import { toUserError } from './commands/words/index.js';
import { declare } from './commands/shared/option-table.js';
import { INFER_OPTIONS, JUDGE_OPTIONS, MODELS_OPTIONS } from './commands/stage/stage-options.js';

/*
 * Only commander is loaded at start-up: each action imports its command
 * module (and with it openai, @huggingface/hub, ...) when it runs, so
 * `awb --help` stays fast.
 */

/** What score and report share: how the numbers are made. */
function withScoreOptions(cmd: Command): Command {
  return cmd
    .option('--failures-as-lowest', 'score failed rows as the lowest grade (1) instead of leaving them out: a conservative figure')
    .option('--no-ci', 'no bootstrap confidence intervals')
    .option('--bootstrap <n>', 'bootstrap resamples (resampling whole trajectories)', '1000')
    .option('--seed <n>', 'bootstrap seed', '20260624')
    .option('--with-published', 'add the published leaderboard rows (official README) for context')
    .option('--price-input <usd>', 'price per million input tokens, to turn usage into cost (both stages)')
    .option('--price-output <usd>', 'price per million output tokens (both stages)')
    .option('--price-model-input <usd>', 'price per million input tokens of the world model (infer); wins over --price-input')
    .option('--price-model-output <usd>', 'price per million output tokens of the world model (infer)')
    .option('--price-judge-input <usd>', 'price per million input tokens of the judge; wins over --price-input')
    .option('--price-judge-output <usd>', 'price per million output tokens of the judge')
    .option(
      '--price-cached-input <usd>',
      'price per million cached prompt tokens (both stages); the rest of the prompt costs the input price',
    )
    .option('--price-model-cached-input <usd>', 'price per million cached prompt tokens of the world model; wins over --price-cached-input')
    .option('--price-judge-cached-input <usd>', 'price per million cached prompt tokens of the judge; wins over --price-cached-input');
}

/**
 * Another command's name for an option (infer's --model-name given to judge,
 * the --base-url of models given to infer): commander finds no spelling close
 * enough to suggest, so the option names the one this command takes. Its
 * value is never repeated: it may be a key.
 */
function withOtherNames(cmd: Command, names: Record<string, string>): Command {
  for (const [other, ours] of Object.entries(names)) {
    const wrong = () => {
      throw new UserError(`${cmd.name()} takes ${ours}, not ${other}`);
    };
    cmd.addOption(new Option(`${other} [value]`).preset('').hideHelp().argParser(wrong));
  }
  return cmd;
}

/** Shown after a command's options: how it is typically run and what it reads from the environment. */
function withExamples(cmd: Command, examples: string[], env: string[] = []): Command {
  const sections = [`Examples:\n${examples.map((e) => `  $ ${e}`).join('\n')}`];
  if (env.length) sections.push(`Environment:\n${env.map((e) => `  ${e}`).join('\n')}`);
  return cmd.addHelpText('after', `\n${sections.join('\n\n')}`);
}

const KEY_ENV = (option: string, vars: string) =>
  `${vars}: the key when ${option} is not given${vars.includes(',') ? ', the first one set' : ''} (trimmed; empty counts as unset; OPENAI_BASE_URL is not read)`;
const COLOR_ENV = 'NO_COLOR, FORCE_COLOR: colours off, or on without a terminal (FORCE_COLOR=0: never)';

/**
 * The commands that take no operands accept stray ones only to say where
 * they belong (a path or URL typed without its option is the usual slip),
 * rather than commander's bare "too many arguments". The stray words are not
 * repeated: one may be a URL whose query holds a key.
 */
function withoutOperands(cmd: Command, what: string, option: string): Command {
  return cmd.allowExcessArguments(true).hook('preAction', (_, action) => {
    if (action.args.length) throw new UserError(`${action.name()} takes no arguments: give ${what} as ${option}`);
  });
}

function buildProgram(): Command {
  const program = new Command('awb')
    .description('Evaluate language world models on AgentWorldBench: download, infer, judge, score.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .addHelpText(
      'after',
      `
Quick start (awb CMD --help for each command's options, defaults and examples):
  $ awb infer --model-base-url http://localhost:8000/v1 --model-name MODEL -c 64
  $ awb judge --predictions results/MODEL/predictions.jsonl --judge-base-url https://api.openai.com/v1 --judge-model gpt-5.2-2025-12-11
  $ awb score results/MODEL/judged.jsonl

Exit codes:
  0    every row has a final result
  1    rows are left that the same command run again completes
  2    a usage or input mistake
  3    an endpoint or hub that cannot be used (bad key, unknown model, unreachable)
  4    the gate of compare --fail-below failed: a regression, or runs not comparable
  5    the gate failed on an incomplete candidate (rows missing, or failed where the baseline's are valid)
  6    the gate could not test Overall (too few trajectories for any drop to be significant)
  130  interrupted`,
    )
    .exitOverride();

  withoutOperands(program.command('download'), 'the folder to download into', '--dir DIR')
    .description(
      'Download the AgentWorldBench dataset from the Hugging Face Hub or ModelScope, each file checked against its listed size and hash',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ awb download --dir ./AgentWorldBench
  $ awb download --revision <commit> --domains terminal,swe

Environment:
  HF_ENDPOINT             a Hugging Face mirror, a bare http(s)://host[/path]
  HF_TOKEN                token for gated or private copies (hf_...)
  HF_HOME, HF_HUB_CACHE   where the Hugging Face cache is
  HF_HUB_OFFLINE=1        use the complete copy in the cache without asking the hub
  MODELSCOPE_ENDPOINT     ModelScope's URL (else MODELSCOPE_DOMAIN, a host)
  MODELSCOPE_API_TOKEN    token for private copies on ModelScope
  MODELSCOPE_CACHE        ModelScope's cache (default ~/.cache/modelscope)`,
    )
    .option('--source <hub>', 'huggingface or modelscope', 'huggingface')
    .option('--revision <rev>', 'branch, tag or commit of the dataset (default: main on Hugging Face, master on ModelScope)')
    .option('--dir <dir>', "download into this folder instead of the hub's cache")
    .option('--domains <list>', 'comma-separated domains to fetch (default: all seven)')
    .option('--repo <id>', 'dataset repository, OWNER/NAME', DATASET_REPO)
    .option('--timeout <s>', 'give a request up after this many seconds without a byte from the hub (default: 60)')
    .option('--max-file-mb <n>', 'refuse files listed larger than this many MB (default: 2048)')
    .action(async (opts) => (await import('./commands/data/download.js')).run(opts));

  withExamples(
    declare(
      withOtherNames(withoutOperands(program.command('infer'), 'the dataset folder', '--data DIR'), {
        '--judge-base-url': '--model-base-url',
        '--base-url': '--model-base-url',
        '--judge-model': '--model-name',
        '--model': '--model-name',
        '--judge-api-key': '--model-api-key',
        '--api-key': '--model-api-key',
      }).description('Run a world model on every row and write predictions JSONL (resumable)'),
      INFER_OPTIONS,
    ),
    [
      'awb infer --model-base-url http://localhost:8000/v1 --model-name Qwen/Qwen3-8B -c 64',
      'awb infer --model-base-url http://localhost:8000/v1 --model-name my-model --data ./AgentWorldBench --domains terminal --limit 10',
    ],
    [
      KEY_ENV('--model-api-key', 'AWB_MODEL_API_KEY, OPENAI_API_KEY'),
      'HF_ENDPOINT, HF_TOKEN, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE: when the dataset is downloaded (awb download --help)',
      COLOR_ENV,
    ],
  ).action(async (opts) => (await import('./commands/stage/infer.js')).run(opts));

  withExamples(
    declare(
      withOtherNames(withoutOperands(program.command('judge'), 'the predictions file', '--predictions FILE'), {
        '--model-base-url': '--judge-base-url',
        '--base-url': '--judge-base-url',
        '--model-name': '--judge-model',
        '--model': '--judge-model',
        '--model-api-key': '--judge-api-key',
        '--api-key': '--judge-api-key',
      }).description('Score predictions with an LLM judge and the per-domain rubrics; writes judged JSONL (resumable)'),
      JUDGE_OPTIONS,
    ),
    [
      'awb judge --predictions results/Qwen--Qwen3-8B/predictions.jsonl --judge-base-url https://api.openai.com/v1 --judge-model gpt-5.2-2025-12-11 -c 32',
    ],
    [KEY_ENV('--judge-api-key', 'AWB_JUDGE_API_KEY, OPENAI_API_KEY'), COLOR_ENV],
  ).action(async (opts) => (await import('./commands/stage/judge.js')).run(opts));

  withExamples(
    declare(
      withOtherNames(withoutOperands(program.command('models'), 'the endpoint', '--base-url URL'), {
        '--model-base-url': '--base-url',
        '--judge-base-url': '--base-url',
        '--model-api-key': '--api-key',
        '--judge-api-key': '--api-key',
      }).description('List the models an OpenAI-compatible endpoint serves (the names --model-name and --judge-model take)'),
      MODELS_OPTIONS,
    ),
    ['awb models --base-url http://localhost:8000/v1'],
    [KEY_ENV('--api-key', 'OPENAI_API_KEY')],
  ).action(async (opts) => (await import('./commands/stage/models.js')).run(opts));

  const score = program
    .command('score')
    .description('Aggregate judged files into per-domain 0-100 scores; several files make a leaderboard, a row per run')
    .argument('<judged...>', "judged JSONL files (ours or the official script's)")
    .addOption(
      new Option('-f, --format <format>', 'output format (md: markdown)')
        .choices(['table', 'markdown', 'md', 'csv', 'json'])
        .default('table'),
    )
    .option('--by <what>', '"turn": break each domain down by turn_idx buckets');
  withExamples(withScoreOptions(score), [
    'awb score results/*/judged.jsonl',
    'awb score results/my-model/judged.jsonl --with-published --format markdown',
  ]).action(async (judged, opts) => (await import('./commands/results/score.js')).run(judged, opts));

  const report = program
    .command('report')
    .description(
      'Write one self-contained HTML page of judged runs: leaderboard, judge-mode figures, charts and every row, viewable offline',
    )
    .argument('<judged...>', "judged JSONL files (ours or the official script's; rubric, turing, pairwise or --repeat), a run each")
    .option('-o, --output <file>', 'the HTML file to write', 'report.html');
  withExamples(withScoreOptions(report), ['awb report results/*/judged.jsonl -o report.html']).action(async (judged, opts) =>
    (await import('./commands/results/report.js')).run(judged, opts),
  );

  program
    .command('compare')
    .description(
      'Paired comparison of two judged runs, with cluster-robust intervals over trajectories; a CI regression gate (--fail-below)',
    )
    .argument('<baseline>', 'judged JSONL of the baseline')
    .argument('<candidate>', 'judged JSONL of the candidate')
    // A third run is the usual slip of someone comparing several models: say where that goes, not commander's bare "too many arguments".
    .allowExcessArguments(true)
    .hook('preAction', (_, action) => {
      if (action.args.length > 2)
        throw new UserError(
          `compare takes two judged files, a baseline and a candidate (got ${action.args.length}): to rank more runs side by side use awb score or awb report with all of them, or compare them two at a time`,
        );
    })
    .option(
      '--fail-below <delta>',
      'exit 4 when the candidate is significantly worse than the baseline by more than DELTA points (Overall or any domain; 5% family-wise error)',
    )
    .option(
      '--allow-partial',
      'with --fail-below: let a candidate that lacks rows of the baseline, or failed rows the baseline has valid, pass on the rows in common',
    )
    .option('--allow-incomparable', 'with --fail-below: let runs made with a different judge, rubrics, history protocol or dataset pass')
    .option('--rows <n>', 'also list the N rows whose total changed most')
    .addOption(
      new Option('-f, --format <format>', 'output format (md: markdown)').choices(['table', 'markdown', 'md', 'json']).default('table'),
    )
    .option('--summary <file>', 'also write a markdown summary here (e.g. $GITHUB_STEP_SUMMARY)')
    .addHelpText(
      'after',
      `
Examples:
  $ awb compare baseline/judged.jsonl candidate/judged.jsonl --rows 10
  $ awb compare baseline/judged.jsonl candidate/judged.jsonl --fail-below 1 --summary "$GITHUB_STEP_SUMMARY"`,
    )
    .action(async (baseline, candidate, opts) => (await import('./commands/results/compare.js')).run(baseline, candidate, opts));

  program
    .command('rows')
    .description("Show judged rows: grades, action, cleaned prediction beside the ground truth, the judge's strengths and weaknesses")
    .argument('<judged>', 'judged JSONL file')
    .option('--domain <name>', 'only this domain')
    .option('--worst <n>', 'the N rows with the lowest total score')
    .option('--best <n>', 'the N rows with the highest total score')
    .option('--failed', 'only failed rows')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json']).default('table'))
    .addHelpText(
      'after',
      `
Examples:
  $ awb rows results/my-model/judged.jsonl --domain terminal --worst 5
  $ awb rows results/my-model/judged.jsonl --failed`,
    )
    .action(async (judged, opts) => (await import('./commands/results/rows.js')).run(judged, opts));

  program
    .command('merge')
    .description('Join shard outputs into one file after checking settings, coverage and integrity')
    .argument('<shards...>', 'shard output files (without -o, as in older versions: the merged file, then the shards)')
    .option('-o, --output <file>', 'the merged file to write')
    .option('--data <dir>', 'dataset folder to check coverage against (default: the cached download the shards used)')
    .option('--allow-gaps', 'write what there is and list the missing rows instead of refusing')
    .option('--force', 'overwrite the merged file if it exists')
    .addHelpText(
      'after',
      `
Example:
  $ awb merge -o results/predictions.jsonl shards/predictions-*.jsonl`,
    )
    .action(async (shards, opts) => (await import('./commands/results/merge.js')).run(shards, opts));

  // Defaults as typed ("default: 16"), not as the JSON of commander's string ("default: \"16\"").
  for (const cmd of [program, ...program.commands])
    for (const option of cmd.options)
      if (typeof option.defaultValue === 'string' && option.defaultValueDescription === undefined)
        option.defaultValueDescription = option.defaultValue;
  return program;
}

/** Runs the CLI; resolves to the exit code. User mistakes print one line, bugs print their stack. */
export async function main(argv: string[]): Promise<number> {
  // A reader that stops early (`awb rows … | head`) is no error: stop writing, as Unix tools do, with the
  // exit code already decided (a failed gate stays 4 under `set -o pipefail`).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit();
    // A full disk or a closed descriptor behind `>`: the user's to fix, said in one line, as a file written with -o would be.
    process.stderr.write(`awb: cannot write to standard output: ${visible(err.message)}\n`);
    process.exit(2);
  });
  // Messages are for a person: their reader gone (`2>&1 | head`, a log collector that died) must not end a run
  // that is writing results, so they are dropped from then on and the run finishes with its own exit code.
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (thrown) {
    const err = toUserError(thrown);
    if (err instanceof CommanderError) {
      // commander has already printed help, the version or its own one-line error.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UserError) {
      // Messages quote files and servers: whatever a check missed is still made harmless, and one line, here.
      process.stderr.write(`awb: ${visible(err.message)}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

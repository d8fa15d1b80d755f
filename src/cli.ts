import { Command, Option, CommanderError } from 'commander';
import { DATASET_REPO } from './core/domains.js';
import { UserError } from './core/errors.js';
import { VERSION } from './version.js';

/*
 * Only commander is loaded at start-up: each action imports its command
 * module (and with it openai, @huggingface/hub, ...) when it runs, so
 * `awb --help` stays fast.
 */

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** What infer and judge share: requests, failures, interrupts and resuming. */
function withRunOptions(cmd: Command): Command {
  return cmd
    .option('--timeout <s>', 'per-request timeout in seconds (long generations need long timeouts)', '1800')
    .option('--max-retries <n>', 'retries per request for 429, 5xx, resets and timeouts, with backoff', '6')
    .option(
      '--on-bad-row <mode>',
      'a malformed input row: "stop" the run there (rows before it are kept), or "skip" it and report it',
      'stop',
    )
    .option('--grace <s>', 'on Ctrl-C/SIGTERM, seconds to let in-flight requests finish', '60')
    .option('--force', 'resume even if the settings differ from the ones the output was made with')
    .option('--no-preflight', 'skip the check that the endpoint answers and serves the model')
    .option('--no-progress', 'no progress bar or progress lines');
}

/** What score and report share: how the numbers are made. */
function withScoreOptions(cmd: Command): Command {
  return cmd
    .option('--failures-as-lowest', 'score failed rows as the lowest grade (1) instead of leaving them out: a conservative figure')
    .option('--no-ci', 'no bootstrap confidence intervals')
    .option('--bootstrap <n>', 'bootstrap resamples (resampling whole trajectories)', '1000')
    .option('--seed <n>', 'bootstrap seed', '20260624')
    .option('--with-published', 'add the published leaderboard rows (official README) for context')
    .option('--price-input <usd>', 'price per million input tokens, to turn usage into cost')
    .option('--price-output <usd>', 'price per million output tokens');
}

function buildProgram(): Command {
  const program = new Command('awb')
    .description('Evaluate language world models on AgentWorldBench: download, infer, judge, score.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .exitOverride();

  program
    .command('download')
    .description('Download the AgentWorldBench dataset from the Hugging Face Hub (honours HF_ENDPOINT, HF_TOKEN, HF_HOME)')
    .option('--revision <rev>', 'branch, tag or commit of the dataset', 'main')
    .option('--dir <dir>', 'download into this folder instead of the Hugging Face cache')
    .option('--domains <list>', 'comma-separated domains to fetch (default: all seven)')
    .option('--repo <id>', 'dataset repository', DATASET_REPO)
    .action(async (opts) => (await import('./commands/download.js')).run(opts));

  const infer = program
    .command('infer')
    .description('Run a world model on every row and write predictions JSONL (resumable)')
    .requiredOption(
      '--model-base-url <url>',
      'OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (repeat for several replicas)',
      collect,
    )
    .requiredOption('--model-name <name>', 'model name as the endpoint knows it')
    .option('--model-api-key <key>', 'API key (default: $AWB_MODEL_API_KEY, else $OPENAI_API_KEY, else "EMPTY")')
    .option('--data <dir>', 'local copy of the dataset in the official layout ({domain}_test.jsonl); default: download it')
    .option('--revision <rev>', 'dataset revision when downloading', 'main')
    .option('-o, --output <file>', 'predictions file', 'results/predictions.jsonl')
    .option('--domains <list>', 'comma-separated domains (default: all in the data)')
    .option('--limit <n>', 'at most N rows per domain (quick checks)')
    .option('--shard <k/n>', 'take only shard K of N (1-based), a deterministic split balanced by size')
    .option('-c, --concurrency <n>', 'requests in flight', '16')
    .option('--temperature <t>', 'sampling temperature (official default)', '0.6')
    .option('--top-p <p>', 'nucleus sampling (default: server default)')
    .option('--max-tokens <n>', 'generation limit (official default)', '32768')
    .option('--extra-body <json>', 'JSON object merged into each request body, e.g. \'{"chat_template_kwargs":{"enable_thinking":true}}\'')
    .option('--no-history', 'send only the system prompt and the current action (the protocol before the official history fix)');
  withRunOptions(infer).action(async (opts) => (await import('./commands/infer.js')).run(opts));

  const judge = program
    .command('judge')
    .description('Score predictions with an LLM judge and the per-domain rubrics; writes judged JSONL (resumable)')
    .option('--predictions <file>', 'predictions JSONL from `awb infer` or the official script', 'results/predictions.jsonl')
    .requiredOption('--judge-base-url <url>', 'OpenAI-compatible base URL of the judge (repeat for several)', collect)
    .requiredOption('--judge-model <name>', 'judge model (published numbers: gpt-5.2-2025-12-11)')
    .option('--judge-api-key <key>', 'API key (default: $AWB_JUDGE_API_KEY, else $OPENAI_API_KEY, else "EMPTY")')
    .option('--rubrics <dir>', 'rubric folder: {domain}.md, or the official {domain}/judge_system_prompt.txt layout (default: bundled)')
    .option('-o, --output <file>', 'judged file (default: judged.jsonl beside the predictions)')
    .option('--domains <list>', 'comma-separated domains (default: all in the predictions)')
    .option('--shard <k/n>', 'take only shard K of N (1-based)')
    .option('-c, --concurrency <n>', 'requests in flight', '16')
    .option('--temperature <t>', 'judge temperature (official default)', '0.6')
    .option('--max-tokens <n>', 'judge generation limit (official default)', '32768')
    .option('--extra-body <json>', 'JSON object merged into each request body')
    .option('--parse-attempts <n>', 'ask the judge again when its reply cannot be parsed, up to N times in all (official: 3)', '3');
  withRunOptions(judge).action(async (opts) => (await import('./commands/judge.js')).run(opts));

  const score = program
    .command('score')
    .description('Aggregate judged files into per-domain 0-100 scores; several files make a leaderboard, a row per run')
    .argument('<judged...>', "judged JSONL files (ours or the official script's)")
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'markdown', 'csv', 'json']).default('table'))
    .option('--by <what>', '"turn": break each domain down by turn_idx buckets');
  withScoreOptions(score).action(async (judged, opts) => (await import('./commands/score.js')).run(judged, opts));

  const report = program
    .command('report')
    .description('Write one self-contained HTML page of judged runs: leaderboard, charts and every row, viewable offline')
    .argument('<judged...>', "judged JSONL files (ours or the official script's), a run each")
    .option('-o, --output <file>', 'the HTML file to write', 'report.html');
  withScoreOptions(report).action(async (judged, opts) => (await import('./commands/report.js')).run(judged, opts));

  program
    .command('compare')
    .description('Paired comparison of two judged runs with bootstrap intervals; a CI regression gate')
    .argument('<baseline>', 'judged JSONL of the baseline')
    .argument('<candidate>', 'judged JSONL of the candidate')
    .option(
      '--fail-below <delta>',
      'exit 1 when the candidate is significantly worse than the baseline by more than DELTA points (Overall or any domain)',
    )
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'markdown', 'json']).default('table'))
    .option('--bootstrap <n>', 'paired bootstrap resamples', '2000')
    .option('--seed <n>', 'bootstrap seed', '20260624')
    .option('--summary <file>', 'also write a markdown summary here (e.g. $GITHUB_STEP_SUMMARY)')
    .action(async (baseline, candidate, opts) => (await import('./commands/compare.js')).run(baseline, candidate, opts));

  program
    .command('merge')
    .description('Join shard outputs into one file after checking settings, coverage and integrity')
    .argument('<out>', 'merged output file')
    .argument('<shards...>', 'shard output files')
    .option('--data <dir>', 'dataset folder to check coverage against (default: the cached download the shards used)')
    .option('--allow-gaps', 'write what there is and list the missing rows instead of refusing')
    .option('--force', 'overwrite OUT if it exists')
    .action(async (out, shards, opts) => (await import('./commands/merge.js')).run(out, shards, opts));

  return program;
}

/** Runs the CLI; resolves to the exit code. User mistakes print one line, bugs print their stack. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has already printed help, the version or its own one-line error.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UserError) {
      process.stderr.write(`awb: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

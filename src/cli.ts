import { Command, CommanderError } from 'commander';
import { FaultError, UserError } from './core/errors.js';
import { visible } from './core/shown.js';
import { VERSION } from './version.js';
import { addCommand } from './commands/shared/option-table.js';
import { COMMANDS } from './commands/commands.js';

/*
 * Only commander and the command table are loaded at start-up: each action
 * imports its command module (and with it openai, @huggingface/hub, ...) when
 * it runs, so `awb --help` stays fast.
 */

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
  6    the gate could not test Overall, or a domain of --domains (too few trajectories for any drop to be significant)
  130  interrupted`,
    )
    .exitOverride();

  for (const spec of COMMANDS) addCommand(program, spec);
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
    // The words of every fault are loaded only when one is to be said.
    const err = thrown instanceof FaultError ? (await import('./commands/words/index.js')).toUserError(thrown) : thrown;
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

import { Command, CommanderError, Help } from 'commander';
import { FaultError, UserError } from './core/errors.js';
import { visible } from './core/shown.js';
import { VERSION } from './version.js';
import { addCommand, invokedCommand } from './commands/shared/option-table.js';
import { COMMANDS } from './commands/commands.js';
import { EXIT, exitCodes } from './commands/words/words.js';
import { HELP_WORDS, PREFIX, PROCESS_WORDS } from './commands/words/process.js';
import { inTerminal, processTerminal, type Terminal } from './commands/shared/terminal.js';
import { endOnInterrupt } from './commands/shared/interrupt.js';

/*
 * Only commander and the command table are loaded at start-up: the options
 * table of the one command that runs (or whose help is asked for), and, when
 * it runs, its module (with it openai, @huggingface/hub, ...) and chalk, so
 * `awb --help` stays fast.
 */

async function buildProgram(t: Terminal, argv: readonly string[]): Promise<Command> {
  const program = new Command('awb')
    // Before the commands are added: each takes the program's output settings when it is made.
    .configureOutput({
      writeOut: (s) => t.stdout.write(s),
      writeErr: (s) => t.stderr.write(s),
      getOutHelpWidth: () => (t.stdout.isTTY && t.stdout.columns) || 80,
      getErrHelpWidth: () => (t.stderr.isTTY && t.stderr.columns) || 80,
      // Said by main in awb's words (usageError), from the error commander throws.
      outputError: () => {},
    })
    .description(HELP_WORDS.description)
    .version(VERSION, '-V, --version')
    .configureHelp({
      sortSubcommands: false,
      // Only the running command's options are declared; every other command of the table has options too.
      subcommandTerm(cmd) {
        const term = Help.prototype.subcommandTerm.call(this, cmd);
        const listed = cmd.options.length === 0 && COMMANDS.some((c) => c.name === cmd.name());
        return listed ? term.replace(cmd.name(), `${cmd.name()} [options]`) : term;
      },
    })
    .addHelpText(
      'after',
      `\n${[HELP_WORDS.quickStart, ...HELP_WORDS.quickStartCommands.map((c) => `  $ ${c}`)].join('\n')}\n\n${HELP_WORDS.exitCodes}\n${exitCodes()
        .map(({ code, meaning }) => `  ${String(code).padEnd(5)}${meaning}`)
        .join('\n')}`,
    )
    .exitOverride();

  const named = invokedCommand(argv.slice(2));
  for (const spec of COMMANDS) addCommand(program, spec, spec.name === named ? await spec.options() : undefined);
  return program;
}

/** The process's own streams: a reader gone, or a full disk behind `>`, ends writing as Unix tools do. */
function guardProcessStreams(t: Terminal): void {
  // A reader that stops early (`awb rows … | head`) is no error: stop writing, with the exit code already
  // decided (a failed gate stays 4 under `set -o pipefail`).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(t.exitCode);
    // A full disk or a closed descriptor behind `>`: the user's to fix, said in one line, as a file written with -o would be.
    process.stderr.write(`${PROCESS_WORDS.stdoutUnwritable(visible(err.message))}\n`);
    process.exit(EXIT.usage);
  });
  // Messages are for a person: their reader gone (`2>&1 | head`, a log collector that died) must not end a run
  // that is writing results, so they are dropped from then on and the run finishes with its own exit code.
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
}

/**
 * Runs the CLI in `t` (this process's own streams and environment when none is given); resolves to the
 * exit code. User mistakes print one line, bugs print their stack.
 */
export async function main(argv: string[], t?: Terminal): Promise<number> {
  const term = t ?? processTerminal();
  if (!t) {
    guardProcessStreams(term);
    endOnInterrupt(term, (code) => process.exit(code));
  }
  const program = await buildProgram(term, argv);
  // The wording too runs in the terminal: it names the command as this run was started.
  return inTerminal(term, async () => {
    try {
      await program.parseAsync(argv);
      return term.exitCode ?? 0;
    } catch (thrown) {
      // The words of every fault are loaded only when one is to be said.
      const err = thrown instanceof FaultError ? (await import('./commands/words/index.js')).toUserError(thrown) : thrown;
      if (err instanceof CommanderError) {
        // commander has already printed help or the version; its errors are said here, in awb's words.
        if (err.exitCode === 0) return 0;
        const said = (await import('./commands/words/usage.js')).usageError(err.code, err.message, invokedCommand(argv.slice(2)));
        term.stderr.write(`${PREFIX.said(said.message)}\n`);
        return said.exit;
      }
      if (err instanceof UserError) {
        // Messages quote files and servers: whatever a check missed is still made harmless, and one line, here.
        term.stderr.write(`${PREFIX.said(visible(err.message))}\n`);
        return err.exitCode;
      }
      throw err;
    }
  });
}

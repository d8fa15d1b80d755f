import { Argument, Option, type Command } from 'commander';
import { UserError } from '../../core/errors.js';
import { loadColors } from './terminal.js';
import { OPTION_WORDS } from '../words/usage.js';

/*
 * Commands declared once: each has its description, operands, options,
 * examples and environment in one typed entry (see commands.ts). Each option
 * has its flags, help, default and the parser that turns commander's string
 * into the typed value; a command's option type is derived from its table, so
 * types, parsing and --help cannot drift.
 */

export interface OptionSpec<T> {
  flags: string;
  help: string;
  /** Shown in --help and given to the parser when the option is absent. */
  default?: string;
  /** The values commander accepts (listed in --help; another is its one-line error). */
  choices?: readonly string[];
  /** Repeatable (collected into a list). */
  repeat?: boolean;
  /** Absent is a one-line error (checked after commander has reported unknown options). */
  required?: boolean;
  parse: (value: never, name: string) => T;
}

export type OptionTable = Record<string, OptionSpec<unknown>>;

/** The typed values of a table's options. */
export type Parsed<T extends OptionTable> = { [K in keyof T]: ReturnType<T[K]['parse']> };

/* The parsers every table uses. */
export const text = (v: string | undefined) => v;
const flag = (v: boolean | undefined) => v === true;
/** `--no-x` flags: on unless turned off. */
const onUnlessNo = (v: boolean | undefined) => v !== false;

/** An on/off option: `--x` is off unless given, `--no-x` (commander's negation) on unless given. */
export function toggle(flags: string, help: string) {
  return { flags, help, parse: flags.startsWith('--no-') ? onUnlessNo : flag };
}

/** An option whose value is taken as given (a file, a folder, a name): undefined when absent. */
export function given(flags: string, help: string) {
  return { flags, help, parse: text };
}

/** An option whose values commander checks and lists in --help: the parser only narrows the type. */
export function choice<const C extends readonly string[]>(flags: string, help: string, choices: C, fallback: C[number]) {
  return { flags, help, choices, default: fallback, parse: (v: C[number]) => v };
}

/** -f, --format: one of `formats`, where `md` is accepted for markdown. */
export function formatChoice<const C extends readonly string[]>(formats: C, help = 'output format (md: markdown)') {
  const choices = formats.flatMap((f) => (f === 'markdown' ? ['markdown', 'md'] : [f]));
  return {
    flags: '-f, --format <format>',
    help,
    choices,
    default: formats[0]!,
    parse: (v: string) => (v === 'md' ? 'markdown' : v) as C[number],
  };
}

/**
 * An operand as commander writes it: `<file>` one, `<files...>` one or more,
 * `[file]` optional; its value's type follows from the name.
 */
export interface OperandSpec {
  name: string;
  help: string;
}

type OperandValue<S extends string> = S extends `${string}...${string}` ? string[] : S extends `[${string}]` ? string | undefined : string;
type Operands<A extends readonly OperandSpec[]> = { -readonly [K in keyof A]: OperandValue<A[K]['name']> };

export interface CommandSpec<T extends OptionTable, A extends readonly OperandSpec[]> {
  name: string;
  description: string;
  operands: A;
  /** Loaded only for the command that runs (or whose help is asked for): `awb --help` loads no table. */
  options: () => Promise<T>;
  /**
   * What more operands than declared (none: commander's error) probably were (a path or URL typed
   * without its option is the usual slip), rather than commander's bare "too
   * many arguments". The stray words are never repeated: one may be a URL
   * whose query holds a key.
   */
  tooMany?: (count: number) => string;
  /**
   * Another command's name for an option (infer's --model-name given to
   * judge): commander finds no spelling close enough to suggest, so the
   * option names the one this command takes. Its value is never repeated: it
   * may be a key.
   */
  otherNames?: Record<string, string>;
  examples: readonly string[];
  environment?: readonly string[];
  /** The command's module, imported only when it runs (with it openai, @huggingface/hub, ...): start-up loads only the tables. */
  load: () => Promise<{ run: (...args: [...Operands<A>, Parsed<T>]) => Promise<void> }>;
}

/** A command of the table, its types checked by `command` and no longer needed. */
export interface AnyCommand {
  name: string;
  description: string;
  operands: readonly OperandSpec[];
  options: () => Promise<OptionTable>;
  tooMany?: (count: number) => string;
  otherNames?: Record<string, string>;
  examples: readonly string[];
  environment?: readonly string[];
  load: () => Promise<{ run: (...args: unknown[]) => Promise<void> }>;
}

/** Checks that the module's `run` takes the operands and the parsed options its entry declares. */
export function command<T extends OptionTable, const A extends readonly OperandSpec[]>(spec: CommandSpec<T, A>): AnyCommand {
  return spec as unknown as AnyCommand;
}

/** `tooMany` of a command without operands: where the stray word belongs. */
export const noOperands = (name: string, what: string, option: string) => () => OPTION_WORDS.noOperands(name, what, option);

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Declares the table's options on a command; a key that is not the option's attribute name is a bug caught here. */
export function declare(cmd: Command, table: OptionTable): Command {
  for (const [key, spec] of Object.entries(table)) {
    const option = new Option(spec.flags, spec.required ? `${spec.help} (required)` : spec.help);
    if (option.attributeName() !== key) throw new Error(`option table: ${spec.flags} is read as "${option.attributeName()}", not "${key}"`);
    if (spec.choices) option.choices(spec.choices);
    // Shown as typed ("default: 16"), not as the JSON of commander's string ("default: \"16\"").
    if (spec.default !== undefined) option.default(spec.default, spec.default);
    if (spec.repeat) option.argParser(collect);
    cmd.addOption(option);
  }
  return cmd;
}

/** Parses what commander collected, each option by its own parser. */
export function parseOptions<T extends OptionTable>(table: T, raw: Record<string, unknown>): Parsed<T> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(table)) {
    const long = new Option(spec.flags).long!.slice(2);
    if (spec.required && raw[key] === undefined) throw new UserError(OPTION_WORDS.required(long));
    out[key] = spec.parse(raw[key] as never, long);
  }
  return out as Parsed<T>;
}

/**
 * Adds an entry of the table to the program: its help, its checks, and an action that parses the options and runs the
 * module. `options` is the entry's table, loaded by the caller for the command that runs; the others are only listed.
 */
export function addCommand(program: Command, spec: AnyCommand, options?: OptionTable): Command {
  const cmd = program.command(spec.name).description(spec.description);
  for (const operand of spec.operands) cmd.addArgument(new Argument(operand.name, operand.help));
  if (options) declare(cmd, options);
  for (const [other, ours] of Object.entries(spec.otherNames ?? {})) {
    const wrong = () => {
      throw new UserError(OPTION_WORDS.otherName(spec.name, ours, other));
    };
    cmd.addOption(new Option(`${other} [value]`).preset('').hideHelp().argParser(wrong));
  }
  const sections = [`Examples:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`];
  if (spec.environment?.length) sections.push(`Environment:\n${spec.environment.map((e) => `  ${e}`).join('\n')}`);
  cmd.addHelpText('after', `\n${sections.join('\n\n')}`);
  const declared = spec.operands.length;
  const { tooMany } = spec;
  if (tooMany) {
    cmd.allowExcessArguments(true).hook('preAction', (_, action) => {
      if (action.args.length > declared) throw new UserError(tooMany(action.args.length));
    });
  }
  return cmd.action(async (...args: unknown[]) => {
    // commander routes to the command `invokedCommand` names, whose table the caller gave.
    if (!options) throw new Error(`${spec.name} ran without its options declared`);
    const parsed = parseOptions(options, cmd.opts());
    const [{ run }] = await Promise.all([spec.load(), loadColors()]);
    await run(...args.slice(0, declared), parsed);
  });
}

/**
 * The entry of the table that `args` (the words after `awb`) run, or whose help they ask for: as commander routes them,
 * the first word that is no option (the program has none but --help and --version), or the word after `help`.
 */
export function invokedCommand(args: readonly string[]): string | undefined {
  const i = args.findIndex((a) => !a.startsWith('-'));
  if (i < 0) return undefined;
  return args[i] === 'help' ? args[i + 1] : args[i];
}

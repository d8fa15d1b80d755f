import { Option, type Command } from 'commander';
import { UserError } from '../../core/errors.js';

/*
 * Options declared once: each entry has its flags, help, default and the
 * parser that turns commander's string into the typed value. A command's
 * option type is derived from its table, so types and parsing cannot drift.
 */

export interface OptionSpec<T> {
  flags: string;
  help: string;
  /** Shown in --help and given to the parser when the option is absent. */
  default?: string;
  /** Repeatable (collected into a list). */
  repeat?: boolean;
  /** Absent is a one-line error (checked after commander has reported unknown options). */
  required?: boolean;
  parse: (value: never, name: string) => T;
}

export type OptionTable = Record<string, OptionSpec<unknown>>;

/** The typed values of a table's options. */
export type Parsed<T extends OptionTable> = { [K in keyof T]: ReturnType<T[K]['parse']> };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Declares the table's options on a command; a key that is not the option's attribute name is a bug caught here. */
export function declare(cmd: Command, table: OptionTable): Command {
  for (const [key, spec] of Object.entries(table)) {
    const option = new Option(spec.flags, spec.required ? `${spec.help} (required)` : spec.help);
    if (option.attributeName() !== key) throw new Error(`option table: ${spec.flags} is read as "${option.attributeName()}", not "${key}"`);
    if (spec.default !== undefined) option.default(spec.default);
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
    if (spec.required && raw[key] === undefined) throw new UserError(`--${long} is required`);
    out[key] = spec.parse(raw[key] as never, long);
  }
  return out as Parsed<T>;
}

import { visible } from '../../core/shown.js';
import { EXIT } from './words.js';

/*
 * commander's own errors (an unknown option or command, a missing or extra operand, a value its parser refused) in
 * awb's words: one line, `awb: ` first, the nearest option commander suggests kept, and where the usage is listed.
 * Its message is only reworded here, never read for a decision (its `code` decides).
 */

/** commander's error `message` (`error: …`, its suggestion on a line of its own) as awb's one line and exit code. */
export function usageError(code: string, message: string, command: string | undefined): { message: string; exit: number } {
  const help = `awb${command && code !== 'commander.unknownCommand' ? ` ${command}` : ''} --help`;
  const lines = message
    .replace(/^error: /, '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  // "(Did you mean --model-name?)": the nearest option or command, when commander finds one close enough.
  const [said, ...rest] = lines;
  const suggestion = rest.map((l) => /^\(Did you mean (.*)\)$/.exec(l)?.[1]).find((s) => s !== undefined);
  const others = rest.filter((l) => !/^\(Did you mean /.test(l));
  const where =
    code === 'commander.unknownOption'
      ? `${help} lists the options`
      : code === 'commander.unknownCommand'
        ? `${help} lists the commands`
        : `see ${help}`;
  const text = [said, ...others].join(' ');
  return { message: `${visible(text)}${suggestion ? `: did you mean ${visible(suggestion)}` : ''} (${where})`, exit: EXIT.usage };
}

/** Where awb takes each request field it sets itself from, which --extra-body must leave out. */
const OWN_FIELD_SOURCES = {
  model: 'the model option (--model-name, --judge-model)',
  messages: 'the row',
  stream: '--stream',
  stream_options: '--stream',
};

/** What the option parsers (shared/options.ts, stage/panel-options.ts) say of a value they refuse: one line naming the option. */
export const OPTION_WORDS = {
  required: (long: string) => `--${long} is required`,
  /** Another command's name for an option (infer's --model-name given to judge). */
  otherName: (command: string, ours: string, other: string) => `${command} takes ${ours}, not ${other}`,
  /** A stray word given to a command without operands: where it belongs. */
  noOperands: (command: string, what: string, option: string) => `${command} takes no arguments: give ${what} as ${option}`,
  /** A third run given to compare, the usual slip of someone comparing several models: where that goes. */
  compareTakesTwo: (count: number) =>
    `compare takes two judged files, a baseline and a candidate (got ${count}): to rank more runs side by side use awb score or awb report with all of them, or compare them two at a time`,
  /** --extra-body setting a field awb sets itself. */
  ownField: (name: string, field: 'model' | 'messages' | 'stream' | 'stream_options') =>
    `--${name} sets "${field}", which awb sets from ${OWN_FIELD_SOURCES[field]}; leave it out of --${name}`,
  /** `max` undefined: no upper bound. */
  wholeNumber: (name: string, value: string, min: number, max?: number) =>
    `--${name} must be ${max === undefined ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}`}, got "${value}"`,
  number: (name: string, value: string, min: number, max: number) => `--${name} must be a number from ${min} to ${max}, got "${value}"`,
  /** `reason`: JSON.parse's. */
  notJson: (name: string, value: string, reason: string) => `--${name} is not valid JSON (${reason}): ${value}`,
  notJsonObject: (name: string, value: string) => `--${name} must be a JSON object, got: ${value}`,
  shard: (value: string) => `--shard must be K/N with 1 <= K <= N, e.g. 2/8, or auto, got "${value}"`,
  shardCountAlone: '--shard-count goes with --shard auto',
  /** With --shard auto: the shard the engine's environment names (`from`: its variables). */
  shardFound: (index: number, count: number, engine: string, from: readonly string[]) =>
    `shard ${index}/${count} from the ${engine} (${from.join(', ')})`,
  choice: (name: string, value: string, choices: readonly string[]) => `--${name} must be one of ${choices.join(', ')}, got "${value}"`,
  notUrl: (name: string) => `--${name} is not a URL (expected one like http://host:8000/v1)`,
  notHttp: (name: string, protocol: string) => `--${name} must be an http(s) URL, got one starting with "${visible(protocol)}"`,
  /** URLs as shownUrl shows them (no query, no user info). */
  urlCredentials: (name: string, url: string, keyOption: string) =>
    `--${name} ${url} carries credentials before the host (user:key@); awb does not send them: pass the key with --${keyOption} instead`,
  urlRoute: (name: string, url: string, route: string, base: string) =>
    `--${name} ${url} ends in the route /${route}: give the base URL without it (${base}); awb adds the routes itself`,
  label: (name: string, value: string) => `--${name} must be a non-empty line of printable text, got "${visible(value)}"`,
  panelEmptyName: (name: string, value: string) => `--${name} has an empty name in "${value}" (a panel is given as a,b,c)`,
  panelTwice: (name: string, twice: string) => `--${name} names ${twice} twice; a panel's members are different models`,
  panelPair: (name: string, pair: string) => `--${name} takes NAME=VALUE, NAME one of --judge-model's members, got "${pair}"`,
} as const;

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

import { UserError } from '../../core/errors.js';

/* The words of a panel's options (--judge-model a,b,c, --member-base-url NAME=URL): parsed here, used by judge. */

/** --judge-model: one model, or several comma-separated (a panel); each named once. */
export function panelMembersOption(name: string, value: string): string[] {
  const members = value.split(',').map((m) => m.trim());
  if (members.some((m) => m === '')) throw new UserError(`--${name} has an empty name in "${value}" (a panel is given as a,b,c)`);
  const twice = members.find((m, i) => members.indexOf(m) !== i);
  if (twice !== undefined) throw new UserError(`--${name} names ${twice} twice; a panel's members are different models`);
  return members;
}

/** NAME=VALUE of --member-base-url and --member-api-key: the member's name is everything before the first `=`. */
export function memberPair(name: string, pair: string): { member: string; value: string } {
  const at = pair.indexOf('=');
  if (at <= 0 || at === pair.length - 1)
    throw new UserError(`--${name} takes NAME=VALUE, NAME one of --judge-model's members, got "${pair}"`);
  return { member: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
}

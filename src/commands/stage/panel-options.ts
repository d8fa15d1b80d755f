import { UserError } from '../../core/errors.js';
import { OPTION_WORDS } from '../words/usage.js';

/* A panel's options (--judge-model a,b,c, --member-base-url NAME=URL): parsed here, used by judge. */

/** --judge-model: one model, or several comma-separated (a panel); each named once. */
export function panelMembersOption(name: string, value: string): string[] {
  const members = value.split(',').map((m) => m.trim());
  if (members.some((m) => m === '')) throw new UserError(OPTION_WORDS.panelEmptyName(name, value));
  const twice = members.find((m, i) => members.indexOf(m) !== i);
  if (twice !== undefined) throw new UserError(OPTION_WORDS.panelTwice(name, twice));
  return members;
}

/** NAME=VALUE of --member-base-url and --member-api-key: the member's name is everything before the first `=`. */
export function memberPair(name: string, pair: string): { member: string; value: string } {
  const at = pair.indexOf('=');
  if (at <= 0 || at === pair.length - 1) throw new UserError(OPTION_WORDS.panelPair(name, pair));
  return { member: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
}

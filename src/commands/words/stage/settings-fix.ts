import type { BudgetOverContext, RefusedSetting, SentSettings } from '../../../core/endpoints/index.js';
import { shellWord } from '../../shared/invocation.js';

/**
 * The change that ends a refusal every request got for the settings, for the refused settings core
 * names (`setting`), as words for the user, or undefined. OpenAI's reasoning models (gpt-5, o-series)
 * refuse `max_tokens` behind a proxy (awb sends the budget under both names; to OpenAI's API only as
 * `max_completion_tokens`) and any temperature but their default; --extra-body fields win over the
 * options, so a field given there is changed there.
 */
export function settingsFix(setting: RefusedSetting | undefined, sent: SentSettings): string | undefined {
  const extra = sent.extraBody ?? {};
  const extraBody = (body: Record<string, unknown>) => `--extra-body ${shellWord(JSON.stringify(body))}`;
  if (setting === undefined) return undefined;
  if (setting.name === 'temperature') {
    if (setting.only === undefined) return undefined;
    const t = setting.only;
    const option = Object.hasOwn(extra, 'temperature') ? extraBody({ ...extra, temperature: t }) : `--temperature ${t}`;
    return `this model takes only its default temperature: run the same command again with ${option}`;
  }
  // awb sends the budget under both names: a refusal of one is ended by leaving it out (null), the other still carrying the budget.
  const refused = setting.name;
  if (extra[refused] === null) return undefined;
  const other = refused === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
  // A budget given under the refused name moves to the other one.
  const moved = typeof extra[refused] === 'number' && extra[other] === undefined ? { [other]: extra[refused] } : {};
  return `this server refuses ${refused}; the budget also goes as ${other}: run the same command again with ${extraBody({ ...extra, [refused]: null, ...moved })}`;
}

/**
 * The change that ends requests over the model's context for their completion budget: a budget that leaves room for the
 * prompt (the one the server counted, else half the context), as a power of two, given as --max-tokens or in --extra-body
 * where a budget there wins over it.
 */
export function budgetFix(over: BudgetOverContext, sent: SentSettings): string {
  const extra = sent.extraBody ?? {};
  const inExtra = ['max_tokens', 'max_completion_tokens'].filter((name) => typeof extra[name] === 'number');
  const given = inExtra.length ? (extra[inExtra[0]!] as number) : sent.maxTokens;
  const budget = given ?? over.budget;
  const room = Math.min(Math.floor(over.context / 2), over.prompt === undefined ? over.context : over.context - over.prompt);
  const suggested = 2 ** Math.floor(Math.log2(Math.max(room, 1)));
  const option = (n: number) =>
    inExtra.length
      ? `--extra-body ${shellWord(JSON.stringify({ ...extra, ...Object.fromEntries(inExtra.map((k) => [k, n])) }))}`
      : `--max-tokens ${n}`;
  const named =
    budget === undefined ? 'the completion budget' : inExtra.length ? `a budget of ${budget} (--extra-body)` : `--max-tokens ${budget}`;
  const why =
    budget !== undefined && budget >= over.context
      ? `${named} leaves no room for a prompt`
      : over.prompt !== undefined
        ? `a prompt of ${over.prompt} tokens with ${named} is over it`
        : `${named} leaves too little room for the prompts`;
  return `the server's context is ${over.context} tokens; ${why}: try ${option(suggested)}`;
}

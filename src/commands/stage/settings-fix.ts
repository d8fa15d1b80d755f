import type { SentSettings } from '../../core/endpoints/index.js';
import { shellWord } from '../shared/invocation.js';

/**
 * The change that ends a refusal every request got for the settings, for the refusals awb knows,
 * as words for the user, or undefined. OpenAI's reasoning models (gpt-5, o-series) refuse
 * `max_tokens` behind a proxy (awb sends the budget under both names; to OpenAI's API only as `max_completion_tokens`) and
 * any temperature but their default; --extra-body fields win over the options, so a field given
 * there is changed there.
 */
export function settingsFix(refusal: string, sent: SentSettings): string | undefined {
  const extra = sent.extraBody ?? {};
  const extraBody = (body: Record<string, unknown>) => `--extra-body ${shellWord(JSON.stringify(body))}`;
  // awb sends the budget under both names: a refusal of one is ended by leaving it out (null), the other still carrying the budget.
  const refused = /'max_tokens'.*'max_completion_tokens'/.test(refusal)
    ? 'max_tokens'
    : /max_completion_tokens.{0,80}(unsupported|not supported|unrecognized|unknown|extra|not permitted)|(unsupported|unrecognized|unknown|extra).{0,80}max_completion_tokens/i.test(
          refusal,
        )
      ? 'max_completion_tokens'
      : undefined;
  if (refused) {
    if (extra[refused] === null) return undefined;
    const other = refused === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
    // A budget given under the refused name moves to the other one.
    const moved = typeof extra[refused] === 'number' && extra[other] === undefined ? { [other]: extra[refused] } : {};
    return `this server refuses ${refused}; the budget also goes as ${other}: run the same command again with ${extraBody({ ...extra, [refused]: null, ...moved })}`;
  }
  const only = /'temperature'.*only the default \((\d+(?:\.\d+)?)\) value is supported/i.exec(refusal);
  if (only) {
    const t = Number(only[1]);
    const option = Object.hasOwn(extra, 'temperature') ? extraBody({ ...extra, temperature: t }) : `--temperature ${t}`;
    return `this model takes only its default temperature: run the same command again with ${option}`;
  }
  return undefined;
}

import { shellWord } from '../shared/invocation.js';

/** The options of infer and judge that a refusal of the settings is about. */
export interface SentSettings {
  maxTokens?: number;
  extraBody?: Record<string, unknown>;
}

/**
 * The change that ends a refusal every request got for the settings, for the refusals awb knows,
 * as words for the user, or undefined. OpenAI's reasoning models (gpt-5, o-series) refuse
 * `max_tokens` (awb sends the budget as `max_completion_tokens` instead when --extra-body has it) and
 * any temperature but their default; --extra-body fields win over the options, so a field given
 * there is changed there.
 */
export function settingsFix(refusal: string, sent: SentSettings): string | undefined {
  const extra = sent.extraBody ?? {};
  const extraBody = (body: Record<string, unknown>) => `--extra-body ${shellWord(JSON.stringify(body))}`;
  if (/'max_tokens'.*'max_completion_tokens'/.test(refusal)) {
    const { max_tokens: given, ...rest } = extra;
    // With max_completion_tokens in --extra-body and no max_tokens there, awb sent none: the refusal is not awb's doing.
    if (given === undefined && Object.hasOwn(extra, 'max_completion_tokens')) return undefined;
    const budget = extra.max_completion_tokens ?? given ?? sent.maxTokens;
    if (budget === undefined) return undefined;
    return `this model takes its budget as max_completion_tokens, not max_tokens: run the same command again with ${extraBody({ ...rest, max_completion_tokens: budget })}`;
  }
  const only = /'temperature'.*only the default \((\d+(?:\.\d+)?)\) value is supported/i.exec(refusal);
  if (only) {
    const t = Number(only[1]);
    const option = Object.hasOwn(extra, 'temperature') ? extraBody({ ...extra, temperature: t }) : `--temperature ${t}`;
    return `this model takes only its default temperature: run the same command again with ${option}`;
  }
  return undefined;
}

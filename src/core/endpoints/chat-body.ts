import type { ChatMessage } from '../infer/index.js';
import { BodyPlan, type BodyPart } from './request-body.js';
import type { RowText } from '../rows/index.js';

/**
 * A chat completion request body, planned once per row and read out each
 * time the request is sent. Texts from the row are JSON-escaped already and
 * go in as they are, as ranges of the input file where they came from one;
 * only our own strings are escaped. `params` (sampling, extra body fields)
 * come first and may replace the model, as a merged object would.
 */
export function chatBody(model: string, messages: ChatMessage[], params: Record<string, unknown>, text: Pick<RowText, 'locate'>): BodyPlan {
  const head = JSON.stringify({ model, ...params, messages: undefined });
  const parts: BodyPart[] = [Buffer.from(`${head.slice(0, -1)},"messages":[`)];
  messages.forEach((m, k) => {
    parts.push(Buffer.from(`${k ? ',' : ''}{"role":"${m.role}","content":"`));
    for (const p of m.content) parts.push(typeof p === 'string' ? Buffer.from(JSON.stringify(p).slice(1, -1)) : text.locate(p));
    parts.push(Buffer.from('"}'));
  });
  parts.push(Buffer.from(']}'));
  return new BodyPlan(parts);
}

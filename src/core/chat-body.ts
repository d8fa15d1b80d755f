import type { ChatMessage } from './messages.js';

/**
 * A chat completion request as the bytes that go on the wire, built once per
 * row: the openai client sends (and re-sends on retry) bytes as they are.
 * Texts from the row are JSON-escaped already and copied in as they are;
 * only our own strings are escaped. `params` (sampling,
 * extra body fields) come first and may replace the model, as a merged
 * object would. `alloc` supplies the buffer (a pooled one, in a run).
 */
export function chatBody(model: string, messages: ChatMessage[], params: Record<string, unknown>, alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const head = JSON.stringify({ model, ...params, messages: undefined });
  const parts: Buffer[] = [Buffer.from(`${head.slice(0, -1)},"messages":[`)];
  messages.forEach((m, k) => {
    parts.push(Buffer.from(`${k ? ',' : ''}{"role":"${m.role}","content":"`));
    for (const p of m.content) parts.push(typeof p === 'string' ? Buffer.from(JSON.stringify(p).slice(1, -1)) : p);
    parts.push(Buffer.from('"}'));
  });
  parts.push(Buffer.from(']}'));
  const body = alloc(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) at += p.copy(body, at);
  return body;
}

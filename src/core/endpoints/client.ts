import OpenAI from 'openai';

/**
 * The openai client, reading a refusal's body as OpenAI-compatible servers write it. The client
 * takes the reason only from `{"error": …}`; SGLang and older vLLM answer `{"object": "error",
 * "message": …}` and FastAPI servers `{"detail": …}`, which it reported as "400 status code (no
 * body)". A JSON body without `error` is read as the error itself.
 */
export class Client extends OpenAI {
  protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
    const body = typeof error === 'object' && error !== null && !('error' in error) ? { error } : error;
    return super.makeStatusError(status, body, message && htmlPageGist(status, message), headers);
  }
}

/**
 * An error body that is a web page (nginx's 502 or 413, a load balancer's 504) as its title, else
 * its text without tags, saying what answered: the whole page would be the row's error and the
 * summary's reason, a screenful of markup. Any other body is kept as it is.
 */
export function htmlPageGist(status: number, body: string): string {
  if (!/^\s*<(!doctype html|html|head|body)\b/i.test(body)) return body;
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1];
  const text = (title ?? body.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
    // The status leads the message already: "502 Bad Gateway", not "502 502 Bad Gateway".
    .replace(new RegExp(`^${status}\\b\\s*`), '');
  return `${text || 'a web page'} (an HTML page: a proxy or web server in front of the API answered)`;
}

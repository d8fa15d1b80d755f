import OpenAI from 'openai';

/**
 * The openai client, reading a refusal's body as OpenAI-compatible servers write it. The client
 * takes the reason only from `{"error": …}`; SGLang and older vLLM answer `{"object": "error",
 * "message": …}` and FastAPI servers `{"detail": …}`, which it reported as "400 status code (no
 * body)". A JSON body without `error` is read as the error itself, a FastAPI `detail` as its message.
 */
export class Client extends OpenAI {
  protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
    const body = typeof error === 'object' && error !== null && !('error' in error) ? { error: withDetailMessage(error) } : error;
    return super.makeStatusError(status, body, message && htmlPageGist(status, message), headers);
  }
}

/**
 * A FastAPI body (`transformers serve`, many small servers) with its `detail` as the message: a
 * string as it is, a validation list as `field: problem` pairs (the first field its `param`). The list's items echo the whole
 * request back (`input`), which would bury the reason and differ from row to row.
 */
function withDetailMessage(body: object): object {
  const { detail, message } = body as { detail?: unknown; message?: unknown };
  if (message !== undefined || detail === undefined) return body;
  if (typeof detail === 'string') return { ...body, message: detail };
  if (!Array.isArray(detail)) return body;
  const fields: string[] = [];
  const types: unknown[] = [];
  const said = detail.map((d: unknown) => {
    const { loc, msg, type } = (typeof d === 'object' && d !== null ? d : {}) as { loc?: unknown; msg?: unknown; type?: unknown };
    const field = Array.isArray(loc) ? loc.filter((part) => part !== 'body').join('.') : '';
    fields.push(field);
    types.push(type);
    return `${field ? `${field}: ` : ''}${typeof msg === 'string' ? msg : JSON.stringify(d)}`;
  });
  // The first field refused is the error's `param`, and pydantic's type of it (`extra_forbidden`) its `type`, as OpenAI names them: what the refusal is about, as data.
  return { message: said.join('; '), ...(fields[0] && { param: fields[0] }), ...(typeof types[0] === 'string' && { type: types[0] }) };
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

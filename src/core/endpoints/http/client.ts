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
  const text = (pageTitle(body) ?? pageText(body))
    .replace(/\s+/g, ' ')
    .trim()
    // The status leads the message already: "502 Bad Gateway", not "502 502 Bad Gateway".
    .replace(new RegExp(`^${status}\\b\\s*`), '');
  return `${text || 'a web page'} (an HTML page: a proxy or web server in front of the API answered)`;
}

/*
 * The page is whatever answered, a hostile server's too: both scans below look
 * at each character a bounded number of times (a regex over tags rescans the
 * rest of the page from every unclosed `<`, quadratic in its length), and keep
 * at most GIST_CHARS of text, all a one-line message shows.
 */
const GIST_CHARS = 2000;

/** A script or style element's opening tag, at `lastIndex` only (sticky: tried in place, never searched for). */
const RAW_OPEN = /<(script|style)\b/iy;
/** Their closing tags, searched for from `lastIndex`. */
const RAW_CLOSE = { script: /<\/script\s*>/gi, style: /<\/style\s*>/gi };

/** The text of the page's first <title> element, when it ends where its text does. */
function pageTitle(body: string): string | undefined {
  const open = /<title/i.exec(body);
  if (!open) return undefined;
  const start = body.indexOf('>', open.index);
  const end = start === -1 ? -1 : body.indexOf('<', start + 1);
  if (end === -1 || body.slice(end, end + 8).toLowerCase() !== '</title>') return undefined;
  return body.slice(start + 1, Math.min(end, start + 1 + GIST_CHARS));
}

/** The page's text without its tags, scripts and styles (each tag's `<` to its `>`, a script or style to its closing tag), one space between pieces. */
function pageText(body: string): string {
  const parts: string[] = [];
  let kept = 0;
  const keep = (piece: string) => {
    const text = piece.trim();
    if (!text) return;
    parts.push(text);
    kept += text.length;
  };
  /** Elements whose closing tag is known to be absent from the rest of the page: never searched for again. */
  const unclosed = new Set<string>();
  let at = 0;
  while (at < body.length && kept < GIST_CHARS) {
    const lt = body.indexOf('<', at);
    const gt = lt === -1 ? -1 : body.indexOf('>', lt);
    // No `>` after this `<`: none after any later one either, so the rest is text.
    if (gt === -1) {
      keep(body.slice(at, at + GIST_CHARS));
      break;
    }
    keep(body.slice(at, Math.min(lt, at + GIST_CHARS)));
    at = gt + 1;
    RAW_OPEN.lastIndex = lt;
    if (!RAW_OPEN.test(body)) continue;
    const raw = body[lt + 2] === 'c' || body[lt + 2] === 'C' ? 'script' : 'style';
    if (unclosed.has(raw)) continue;
    const close = RAW_CLOSE[raw];
    close.lastIndex = lt;
    if (close.exec(body)) at = close.lastIndex;
    else unclosed.add(raw);
  }
  return parts.join(' ').slice(0, GIST_CHARS);
}

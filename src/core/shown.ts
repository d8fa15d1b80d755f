/*
 * Text from outside (servers, mirrors, data files, judges) is shown only
 * through these functions: control characters made visible, secrets removed
 * before anything is cut, URLs without their credentials or query.
 */

// C0 controls (tab and newline included: a shown value is one line), DEL, C1 controls, and the
// bidirectional overrides and isolates that can make text read other than it is.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** CONTROL without C0, which JSON.stringify escapes itself (and whose newlines lay out its output). */
const BEYOND_C0 = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function spelled(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The text with every control character spelled out (`\x1b`, `\u202e`), so it cannot act on a terminal. */
export function visible(text: string): string {
  return text.replace(CONTROL, spelled);
}

/** As `visible`, for multi-line text: newlines and tabs are kept. */
export function visibleLines(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\n' || c === '\t' ? c : spelled(c)));
}

/** Secrets shorter than this are not worth masking (placeholders such as "EMPTY"). */
const MIN_SECRET = 6;

/**
 * Removes each secret, and the leading and trailing eight characters of a long
 * one (servers echo keys with their middle masked), from text. Call it before
 * cutting text short: a cut can split a secret so that no longer matches.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret === 'EMPTY' || secret.length < MIN_SECRET) continue;
    out = out.split(secret).join('***');
    if (secret.length >= 16) out = out.split(secret.slice(0, 8)).join('***').split(secret.slice(-8)).join('***');
  }
  return out;
}

/** One line safe to show: redacted first, then made visible, then cut to `max` characters with the cut marked. */
export function brief(text: string, secrets: readonly (string | undefined)[], max = 300): string {
  const one = visible(redact(text, secrets).replace(/\s+/g, ' ').trim());
  return one.length > max ? `${one.slice(0, max)}…` : one;
}

/**
 * JSON text (from JSON.stringify, which escapes only C0 controls) with the
 * other controls written as `\uXXXX` escapes: the same JSON value, and
 * nothing a terminal acts on when it is printed.
 */
export function visibleJson(json: string): string {
  return json.replace(BEYOND_C0, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A URL safe to print and record: scheme, host and path, with no credentials and no query or fragment. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return visible(`${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`);
  } catch {
    return '<invalid URL>';
  }
}

/**
 * A base URL split for an HTTP client: the URL without its query, to which
 * request paths are appended, and the query, sent with every request.
 */
export function splitQuery(url: string): { base: string; query: Record<string, string> | undefined } {
  const u = new URL(url);
  const query = u.search ? Object.fromEntries(u.searchParams) : undefined;
  u.search = '';
  u.hash = '';
  return { base: u.toString().replace(/\/+$/, ''), query };
}

/** The secrets a URL carries: its password, user name and query values. */
export function urlSecrets(url: string): string[] {
  try {
    const u = new URL(url);
    const out = [decodeURIComponent(u.password), decodeURIComponent(u.username), ...[...u.searchParams.values()]];
    return out.filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/** `n` things in words: "1 row", "3 rows". */
export function counted(n: number, thing: string): string {
  return n === 1 ? `1 ${thing}` : `${n} ${thing}s`;
}

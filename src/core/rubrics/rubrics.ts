import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail } from '../errors.js';

export interface RubricSet {
  /** 'bundled' for the rubrics shipped with the package, else the absolute folder path. */
  source: string;
  /**
   * 'official' only when every domain came from `{domain}/judge_system_prompt.txt`,
   * because that is the case that can reproduce published numbers; any of our
   * `{domain}.md` files makes the set 'awb'.
   */
  layout: 'awb' | 'official';
  /** domain → judge system prompt, in the order the domains were requested. */
  texts: Map<string, string>;
  /** Identifies the rubric content independent of where the folder lives. */
  sha256: string;
  /** domain → SHA-256 of its rubric alone, so runs over different domain sets compare on the domains they share. */
  perDomain: Record<string, string>;
}

/** What a judged manifest records of the rubrics (`settings.rubrics`). */
export function rubricsSetting(r: RubricSet): {
  source: string;
  sha256: string;
  layout: RubricSet['layout'];
  domains: Record<string, string>;
} {
  return { source: r.source, sha256: r.sha256, layout: r.layout, domains: r.perDomain };
}

/** The official layout's file in each domain's folder. */
export const OFFICIAL_FILE = 'judge_system_prompt.txt';

// Domain names come from data files and end up in paths; keep them from
// reaching outside the rubric folder.
const DOMAIN_NAME = /^(?!\.{1,2}$)[A-Za-z0-9_.-]+$/;

/** The bundled folder; src/core and dist/core both sit two levels below the package root. */
function bundledDir(): string {
  return fileURLToPath(new URL('../../../rubrics/', import.meta.url));
}

/**
 * Loads one judge system prompt per domain from `dir` (our `{domain}.md` layout,
 * the official `{domain}/judge_system_prompt.txt` layout, or a mix, our file
 * winning), or from the bundled rubrics when `dir` is undefined.
 */
export async function loadRubrics(
  dir: string | undefined,
  domains: string[],
  /** Where the data first names a domain (`file:line`), so a domain without a rubric points at the row that asks for it. */
  firstRow?: (domain: string) => string | undefined,
): Promise<RubricSet> {
  const root = dir === undefined ? bundledDir() : resolve(dir);
  const source = dir === undefined ? 'bundled' : root;

  await checkFolder(root);

  const wanted = [...new Set(domains)];
  const bad = wanted.filter((d) => !DOMAIN_NAME.test(d));
  if (bad.length) throw fail({ kind: 'rubric-domain-invalid', names: bad, root });

  const found = await Promise.all(wanted.map((domain) => findRubric(root, domain)));
  const missing = wanted.filter((_, i) => found[i] === undefined);
  if (missing.length) {
    const at = firstRow?.(missing[0]!);
    throw fail({ kind: 'rubric-missing', domains: missing, root, ...(at && { at }) });
  }

  const texts = new Map<string, string>();
  let allOfficial = wanted.length > 0;
  for (const [i, domain] of wanted.entries()) {
    const hit = found[i]!;
    if (hit.text.trim() === '') throw fail({ kind: 'rubric-empty', file: hit.file });
    texts.set(domain, hit.text);
    if (hit.layout !== 'official') allOfficial = false;
  }

  const perDomain = Object.fromEntries([...texts].map(([d, text]) => [d, sha256(normalized(text))]));
  return { source, layout: allOfficial ? 'official' : 'awb', texts, sha256: hashRubrics(texts), perDomain };
}

async function checkFolder(root: string): Promise<void> {
  let isDir: boolean;
  try {
    isDir = (await stat(root)).isDirectory();
  } catch (err) {
    if (errCode(err) === 'ENOENT') throw fail({ kind: 'rubrics-folder-missing', root });
    throw fail({ kind: 'rubrics-folder-unreadable', root, reason: errText(err) });
  }
  if (!isDir) throw fail({ kind: 'rubrics-not-a-folder', root });
}

/** The judge modes that ask for a choice between two observations instead of grades. */
type ChoiceMode = 'turing' | 'pairwise';

export interface ModePrompt {
  mode: ChoiceMode;
  /** 'bundled', or the absolute path of the file that overrode it. */
  source: string;
  /** The judge's system prompt, one for every domain. */
  text: string;
  /** Over the (mode, text) pair, as RubricSet.sha256 is over (domain, text) pairs. */
  sha256: string;
}

/**
 * The system prompt of a choice mode: `DIR/{mode}.md` when `dir` holds one,
 * else the bundled `rubrics/{mode}.md`. A rubrics folder made for the rubric
 * judge (the official `prompts/` included) has no such file, and the choice
 * modes do not depend on the domain, so it falls back instead of failing.
 */
export async function loadModePrompt(dir: string | undefined, mode: ChoiceMode): Promise<ModePrompt> {
  const name = `${mode}.md`;
  let found: { file: string; text: string } | undefined;
  if (dir !== undefined) {
    const root = resolve(dir);
    await checkFolder(root);
    const text = await readIfPresent(join(root, name));
    if (text !== undefined) found = { file: join(root, name), text };
  }
  const source = found ? found.file : 'bundled';
  if (!found) {
    const file = join(bundledDir(), name);
    const text = await readIfPresent(file);
    // The package ships both files; their absence is a broken install, not a user mistake.
    if (text === undefined) throw new Error(`bundled prompt missing: ${file}`);
    found = { file, text };
  }
  if (found.text.trim() === '') throw fail({ kind: 'judge-prompt-empty', file: found.file });
  return { mode, source, text: found.text, sha256: hashRubrics(new Map([[mode, found.text]])) };
}

/**
 * Hash over the (domain, text) pairs sorted by domain, so folder location and
 * request order do not matter. Line endings are normalised first because a
 * Windows checkout with autocrlf holds the same rubrics with CRLF.
 */
function hashRubrics(texts: Map<string, string>): string {
  const pairs = [...texts].map(([domain, text]) => [domain, normalized(text)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // JSON keeps the boundaries between names and texts unambiguous.
  return sha256(JSON.stringify(pairs));
}

const normalized = (text: string): string => text.replace(/\r\n/g, '\n');
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

interface Found {
  file: string;
  layout: 'awb' | 'official';
  text: string;
}

async function findRubric(root: string, domain: string): Promise<Found | undefined> {
  const ours = join(root, `${domain}.md`);
  const oursText = await readIfPresent(ours);
  if (oursText !== undefined) return { file: ours, layout: 'awb', text: oursText };
  const official = join(root, domain, OFFICIAL_FILE);
  const officialText = await readIfPresent(official);
  if (officialText !== undefined) return { file: official, layout: 'official', text: officialText };
  return undefined;
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = errCode(err);
    // A folder named like the file, or a dangling path, just means "not this layout".
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    throw fail({ kind: 'rubric-unreadable', file, reason: errText(err) });
  }
}

function errCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

function errText(err: unknown): string {
  return errCode(err) ?? (err instanceof Error ? err.message : String(err));
}

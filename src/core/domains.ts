import { fail } from './errors.js';

/** The Hugging Face dataset the benchmark is published as. */
export const DATASET_REPO = 'Qwen/AgentWorldBench';

/** The seven AgentWorldBench domains, in the order the published leaderboard lists them. */
export const DOMAINS = ['mcp', 'search', 'terminal', 'swe', 'android', 'web', 'os'] as const;
export type Domain = (typeof DOMAINS)[number];

const DOMAIN_LABELS: Record<string, string> = {
  mcp: 'MCP',
  search: 'Search',
  terminal: 'Terminal',
  swe: 'SWE',
  android: 'Android',
  web: 'Web',
  os: 'OS',
};

/** Row counts of the published test split: `awb download` shows them beside what it got. */
export const PUBLISHED_ROW_COUNTS: Record<Domain, number> = {
  mcp: 286,
  search: 458,
  terminal: 354,
  swe: 472,
  android: 200,
  web: 200,
  os: 200,
};

/**
 * `task` may be a path such as `agentworld/terminal`; the domain is its last
 * segment, the seven matched case-insensitively (a hand-made `Terminal` row is
 * the terminal domain: one column, its rubric, and the same row key everywhere).
 */
export function domainOfTask(task: string): string {
  const slash = task.lastIndexOf('/');
  return domainName(slash === -1 ? task : task.slice(slash + 1));
}

export function domainLabel(domain: string): string {
  return DOMAIN_LABELS[domain] ?? domain.charAt(0).toUpperCase() + domain.slice(1);
}

/** Sorts domains in leaderboard order, unknown ones after, alphabetically. */
export function compareDomains(a: string, b: string): number {
  const ia = (DOMAINS as readonly string[]).indexOf(a);
  const ib = (DOMAINS as readonly string[]).indexOf(b);
  if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A domain name as typed (`Terminal`, `SWE`) in the dataset's spelling: the
 * seven are matched case-insensitively, as tables print them capitalised;
 * other names are kept as given.
 */
export function domainName(name: string): string {
  const lower = name.trim().toLowerCase();
  return (DOMAINS as readonly string[]).includes(lower) ? lower : name.trim();
}

/**
 * Parses `--domains a,b` (or `a b`; case-insensitive for the seven; other names are kept, and the data decides whether they exist).
 * A list naming nothing (`--domains "$EMPTY"` in a CI script) is refused rather than read as every domain.
 */
export function parseDomainList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  // Spaces separate too: no domain has one in its name, and "terminal swe" read as one name matched nothing.
  const names = value
    .split(/[\s,]+/)
    .map(domainName)
    .filter(Boolean);
  if (!names.length) throw fail({ kind: 'domain-list-empty', value });
  return canonicalDomains(names);
}

/** A selection of domains as recorded and compared: each once, in leaderboard order (`web,os` and `os,web` select the same rows). */
export function canonicalDomains(names: readonly string[]): string[] {
  return [...new Set(names)].sort(compareDomains);
}

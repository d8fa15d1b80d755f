/** What can go wrong in compare/ that the user can fix, as data; worded in src/commands/words/results/compare.ts. */
export type CompareFault =
  /** Domains asked for (--domains) that neither run has a row of; `has`: the domains the two runs do have. */
  { kind: 'domains-in-neither-run'; domains: string[]; baseline: string; candidate: string; has: string[] };

import { dataGroups, type ComparedRun } from './comparability.js';

/** A setting in which a run differs from the runs it is ranked with. */
export type Setting = 'judge' | 'rubrics' | 'history' | 'dataset';

/** Why a run is shown but not ranked (never marked best, listed below the ranked runs). */
export type Unranked =
  /** Its manifest says it stopped early: `rows` of the `expected` rows it set out to do (undefined: not recorded). */
  | { kind: 'incomplete'; rows: number; expected: number | undefined }
  /** Its file mixes rows made under different settings (a forced resume). */
  | { kind: 'mixed' }
  /** Judged under another setting than the runs it would be ranked with. */
  | { kind: 'other'; setting: Setting };

export interface Standing {
  ranked: boolean;
  unranked: Unranked[];
}

/** A run's rows as a leaderboard counts them, with the facts its manifest gives. */
export type StandingRun = ComparedRun & { rows: Readonly<Record<string, number>> };

/**
 * Which runs a leaderboard may rank against each other. A run whose manifest
 * says it is incomplete, or whose file mixes settings, is never ranked. The
 * others are compared with a reference: the complete run that agrees in
 * judge, rubrics, history protocol and data with most others (the first
 * listed on a tie); a run that differs from it in any of these is not ranked
 * ("other judge"). Runs without a manifest cannot be checked and stay ranked
 * (the notes say they are not known to be comparable).
 */
export function standings(runs: readonly StandingRun[]): Standing[] {
  const known = runs.filter((r) => r.provenance.manifest === 'found');
  const data = dataGroups(known);
  const whole = known.filter((r) => r.provenance.complete !== false && !r.provenance.mixed);
  const pool = whole.length ? whole : known.filter((r) => !r.provenance.mixed);
  const agreeing = (a: StandingRun) => pool.filter((b) => differences(a, b, data).length === 0).length;
  let reference: StandingRun | undefined;
  for (const r of pool) if (!reference || agreeing(r) > agreeing(reference)) reference = r;
  return runs.map((r) => {
    const unranked: Unranked[] = [];
    const p = r.provenance;
    if (p.complete === false) {
      const rows = Object.values(r.rows).reduce((a, b) => a + b, 0);
      unranked.push({ kind: 'incomplete', rows, expected: p.expectedRows });
    }
    if (p.mixed) unranked.push({ kind: 'mixed' });
    if (reference && r !== reference && p.manifest === 'found')
      unranked.push(...differences(r, reference, data).map((setting) => ({ kind: 'other' as const, setting })));
    return { ranked: unranked.length === 0, unranked };
  });
}

/** The settings two runs are known to differ in; a setting unknown in either is no difference. */
function differences(a: StandingRun, b: StandingRun, data: (r: ComparedRun) => string | undefined): Setting[] {
  const differ = (x: unknown, y: unknown) => x !== undefined && y !== undefined && x !== y;
  const out: Setting[] = [];
  if (differ(a.provenance.judge, b.provenance.judge)) out.push('judge');
  if (rubricsDiffer(a, b)) out.push('rubrics');
  if (differ(a.provenance.history, b.provenance.history)) out.push('history');
  if (differ(data(a), data(b))) out.push('dataset');
  return out;
}

/** Rubrics compare domain by domain on the domains both runs have; by the set's hash only over the same domains. */
function rubricsDiffer(a: StandingRun, b: StandingRun): boolean {
  const [pa, pb] = [a.provenance.rubricsByDomain, b.provenance.rubricsByDomain];
  if (pa && pb) return a.domains.some((d) => b.domains.includes(d) && pa[d] !== undefined && pb[d] !== undefined && pa[d] !== pb[d]);
  const sameDomains = [...a.domains].sort().join() === [...b.domains].sort().join();
  const [ha, hb] = [a.provenance.rubricsSha256, b.provenance.rubricsSha256];
  return !pa && !pb && sameDomains && ha !== undefined && hb !== undefined && ha !== hb;
}

import type { ChoiceRecord } from './modes-reader.js';

/*
 * A ranking of world models from several pairwise files (optional part of
 * issue 14). Each file compares one candidate with one reference; every
 * answered order is one game, so the two orders of a row are two games with
 * the sides swapped and a judge's position preference cancels.
 */

/** The games of one pairwise file: `wins` orders preferred the candidate `a`, `losses` the reference `b`. */
export interface Games {
  a: string;
  b: string;
  wins: number;
  losses: number;
}

export interface Rating {
  model: string;
  /** Bradley–Terry strength, scaled so that the strengths' geometric mean is 1. */
  strength: number;
  /** 1000 + 400·log10(strength): the Elo-like scale, 400 points = 10:1 odds. */
  elo: number;
  games: number;
}

export interface Ranking {
  /** Strongest first. */
  ratings: Rating[];
  /** False when some models were never compared, directly or through others: their relative ratings mean nothing. */
  connected: boolean;
}

/** The games of a pairwise file's rows: only rows with both orders answered, as for the win rate. */
export function pairwiseGames(a: string, b: string, records: readonly ChoiceRecord[]): Games {
  let wins = 0;
  let losses = 0;
  for (const { hits } of records) {
    if (hits[0] === null || hits[1] === null) continue;
    for (const h of hits) {
      if (h) wins++;
      else losses++;
    }
  }
  return { a, b, wins, losses };
}

/**
 * Half a game won by each side of every compared pair keeps a model that won
 * (or lost) every game at a finite rating instead of running off to infinity;
 * it is small beside the hundreds of games a file holds.
 */
const PRIOR = 0.5;

/**
 * Maximum-likelihood Bradley–Terry strengths by the MM iteration of Hunter
 * (2004): p_i ← W_i / Σ_j n_ij / (p_i + p_j), which raises the likelihood at
 * every step and converges for a connected comparison graph.
 */
export function bradleyTerry(files: readonly Games[], opts: { tolerance?: number; maxIterations?: number } = {}): Ranking {
  const models = [...new Set(files.flatMap((g) => [g.a, g.b]))].sort();
  const index = new Map(models.map((m, i) => [m, i]));
  const k = models.length;
  // Pairwise totals, games in both directions folded together.
  const wins = Array.from({ length: k }, () => new Float64Array(k));
  for (const g of files) {
    if (g.a === g.b) throw new RangeError(`a model compared with itself: ${g.a}`);
    const i = index.get(g.a)!;
    const j = index.get(g.b)!;
    wins[i]![j]! += g.wins;
    wins[j]![i]! += g.losses;
  }
  const compared = (i: number, j: number) => i !== j && wins[i]![j]! + wins[j]![i]! > 0;
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) if (compared(i, j)) wins[i]![j]! += PRIOR;

  const total = (i: number) => wins[i]!.reduce((s, w) => s + w, 0);
  let p = new Float64Array(k).fill(1);
  const tolerance = opts.tolerance ?? 1e-10;
  for (let iter = 0; iter < (opts.maxIterations ?? 10_000); iter++) {
    const next = new Float64Array(k);
    for (let i = 0; i < k; i++) {
      let denom = 0;
      for (let j = 0; j < k; j++) {
        const n = wins[i]![j]! + wins[j]![i]!;
        if (n > 0) denom += n / (p[i]! + p[j]!);
      }
      next[i] = denom > 0 ? total(i) / denom : 1;
    }
    normalise(next);
    const change = Math.max(...next.map((v, i) => Math.abs(Math.log(v / p[i]!))));
    p = next;
    if (change < tolerance) break;
  }

  const ratings = models.map((model, i) => ({
    model,
    strength: p[i]!,
    elo: 1000 + 400 * Math.log10(p[i]!),
    games: files.filter((g) => g.a === model || g.b === model).reduce((s, g) => s + g.wins + g.losses, 0),
  }));
  ratings.sort((x, y) => y.strength - x.strength || (x.model < y.model ? -1 : 1));
  return { ratings, connected: isConnected(k, compared) };
}

/** Geometric mean 1: strengths are defined up to a common factor. */
function normalise(p: Float64Array): void {
  const logMean = p.reduce((s, v) => s + Math.log(v), 0) / p.length;
  const f = Math.exp(-logMean);
  for (let i = 0; i < p.length; i++) p[i]! *= f;
}

function isConnected(k: number, compared: (i: number, j: number) => boolean): boolean {
  if (k === 0) return true;
  const seen = new Set([0]);
  const stack = [0];
  while (stack.length) {
    const i = stack.pop()!;
    for (let j = 0; j < k; j++) {
      if (!seen.has(j) && compared(i, j)) {
        seen.add(j);
        stack.push(j);
      }
    }
  }
  return seen.size === k;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
  /** Where `--shard auto` read it (kubernetes, gitlab, …): recorded in the manifest, never part of the split. */
  engine?: string;
}

/**
 * Splits rows into `count` shards of similar total size (longest rows first,
 * each to the lightest shard so far). Ties are broken by key, so the split
 * depends only on the rows themselves: every machine that sees the same data
 * computes the same shards, and each row lands in exactly one.
 */
export function assignShards(rows: { key: string; weight: number }[], count: number): string[][] {
  const order = [...rows].sort((a, b) => b.weight - a.weight || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const shards: string[][] = Array.from({ length: count }, () => []);
  const load = new Array<number>(count).fill(0);
  for (const row of order) {
    let lightest = 0;
    for (let i = 1; i < count; i++) if (load[i]! < load[lightest]!) lightest = i;
    shards[lightest]!.push(row.key);
    load[lightest]! += row.weight;
  }
  return shards;
}

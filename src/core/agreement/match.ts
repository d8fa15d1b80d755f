import { splitKey } from '../rows/index.js';
import type { JudgedRecord } from '../score/index.js';

/** What agreement keeps of one judged row. */
export interface GradedRow {
  /** The row key (domain:id:turn:fingerprint of what the turn asks and expects). */
  key: string;
  /** The trajectory (domain + id): the bootstrap's resampling unit. */
  cluster: string;
  domain: string;
  /** The five dimensions then the total, in sixtieths; 0 = no grade. */
  grades: number[];
  failed: boolean;
  /** A hash of the prediction judged (`gen`), to tell the same predictions from different ones. */
  gen: string | undefined;
}

/** A judged row as agreement keeps it; `gen`, the hash of its prediction when it is known. */
export function gradedRow(record: JudgedRecord, gen: string | undefined): GradedRow {
  return {
    key: record.key,
    cluster: record.cluster,
    domain: record.domain,
    grades: [...record.dims, record.total],
    failed: record.failed,
    gen,
  };
}

/** One row as every judge saw it: `rows[j]` is judge j's, undefined where that file lacks it. */
export interface Unit {
  id: string;
  cluster: string;
  domain: string;
  rows: Array<GradedRow | undefined>;
}

/**
 * Lines up the rows of several judged files. Rows are matched on (domain,
 * id, turn_idx) and, since that is not unique (android holds one pair twice,
 * two distinct rows), on a fingerprint of the row's content. Rows whose
 * fingerprint no other file has (a file that dropped system_str, say) are
 * matched by their order among such rows of the same (domain, id, turn_idx).
 * Units come in key order, independent of file order.
 */
export function matchUnits(files: ReadonlyArray<readonly GradedRow[]>): Unit[] {
  // base (domain:id:turn) → fingerprint → per file its row
  const bases = new Map<string, Map<string, Array<GradedRow | undefined>>>();
  files.forEach((rows, f) => {
    for (const row of rows) {
      const k = splitKey(row.key);
      const base = `${k.domain}:${k.id}:${k.turn}`;
      let prints = bases.get(base);
      if (!prints) bases.set(base, (prints = new Map()));
      let slot = prints.get(k.fingerprint);
      if (!slot) prints.set(k.fingerprint, (slot = files.map(() => undefined)));
      slot[f] = row;
    }
  });
  const units: Unit[] = [];
  for (const [base, prints] of bases) {
    const leftovers: GradedRow[][] = files.map(() => []);
    for (const [print, slot] of prints) {
      const present = slot.filter((r) => r !== undefined);
      if (present.length >= 2 || files.length === 1) units.push(unitOf(`${base}:${print}`, slot));
      else slot.forEach((r, f) => r && leftovers[f]!.push(r));
    }
    // The rows no other file shares a fingerprint with, in file order (a file's rows keep their order in `files`).
    const most = Math.max(...leftovers.map((l) => l.length));
    for (let k = 0; k < most; k++)
      units.push(
        unitOf(
          `${base}:#${k + 1}`,
          leftovers.map((l) => l[k]),
        ),
      );
  }
  return units.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

function unitOf(id: string, rows: Array<GradedRow | undefined>): Unit {
  const first = rows.find((r) => r !== undefined)!;
  return { id, cluster: first.cluster, domain: first.domain, rows };
}

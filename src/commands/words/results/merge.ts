import type { MergeFault } from '../../../core/merge/index.js';
import { displayKey } from '../../../core/rows/index.js';
import { counted } from '../../../core/shown.js';
import type { Words } from '../words.js';

/** Rows named in one line: the first few, then how many in all. */
const SHOW = 10;

function listKeys(keys: readonly string[]): string {
  const shown = keys.slice(0, SHOW).map(displayKey).join('; ');
  return keys.length > SHOW ? `${shown}; … (${keys.length} in all)` : shown;
}

function gaps(f: Extract<MergeFault, { kind: 'shards-leave-gaps' }>): string {
  const parts = [];
  if (f.missing.length) parts.push(`${counted(f.missing.length, 'row')} missing: ${listKeys(f.missing)}`);
  if (f.failed.length) parts.push(`${counted(f.failed.length, 'row')} failed: ${listKeys(f.failed)}`);
  return `the shards do not cover the input: ${parts.join('; ')}; resume the shard(s) concerned, or pass --allow-gaps to write what there is`;
}

export const MERGE_WORDS: Words<MergeFault> = {
  'merge-output-is-folder': (f) => `${f.out}: is a folder; merge writes the merged rows to a file`,
  'merge-over-shard': (f) =>
    `${f.out} is shard ${f.index}/${f.count} of a run (its manifest says so): merge never writes over a shard; name the merged file with -o FILE, then the shards`,
  'merge-output-exists': (f) => `${f.out} already exists; pass --force to overwrite it`,
  'shard-is-folder': (f) => `${f.shard}: is a folder, not a file; merge takes the shard files`,
  'shard-given-twice': (f) => `${f.shard} is given twice (also as ${f.also})`,
  'shard-manifest-missing': (f) =>
    `${f.shard}: no manifest beside it (${f.shard}.manifest.json); merge needs the manifests to check the shards belong together`,
  'shard-other-stage': (f, awb) => `${f.shard} is an \`${awb} ${f.stage}\` output but ${f.first} is \`${awb} ${f.firstStage}\``,
  'shard-other-settings': (f) => `${f.shard} was made with other settings than ${f.first}: ${f.differences.join('; ')}`,
  'shard-other-rubric': (f) =>
    `${f.shard} was judged with another ${f.domain} rubric than ${f.other} (sha256 ${f.sha.slice(0, 12)}… against ${f.otherSha.slice(0, 12)}…)`,
  'shard-twice': (f) => `${f.first} and ${f.second} are both shard ${f.shard}`,
  'shards-other-splits': (f) => `the shards come from different splits (N = ${f.counts.join(', ')})`,
  'shard-cut-short': (f) => `${f.shard}:${f.line}: the last line is cut short: that shard did not finish; resume it first`,
  'shard-damaged': (f) => `${f.problem}: the shard is damaged; resume it first`,
  'rows-duplicated': (f) =>
    `rows appear more than once: ${f.rows
      .slice(0, SHOW)
      .map((r) => `${displayKey(r.key)} (${r.first} and ${r.again})`)
      .join('; ')}${f.rows.length > SHOW ? ` … (${f.rows.length} in all)` : ''}`,
  'rows-unexpected': (f) => `rows not in ${f.source.join(', ')}: ${listKeys(f.keys)}; the shards were made from other data`,
  'shards-leave-gaps': gaps,
  'shard-source-missing': (f) =>
    `${f.path}: the input the shards were made from is not there; ${f.given ? 'check --data' : 'pass --data to say where it is'}`,
};

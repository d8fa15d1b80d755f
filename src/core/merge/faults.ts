/** What can go wrong in merge/ that the user can fix, as data; worded in src/commands/words/merge.ts. */
export type MergeFault =
  | { kind: 'merge-output-is-folder'; out: string }
  | { kind: 'merge-over-shard'; out: string; index: number; count: number }
  | { kind: 'merge-output-exists'; out: string }
  | { kind: 'shard-is-folder'; shard: string }
  | { kind: 'shard-given-twice'; shard: string; also: string }
  | { kind: 'shard-manifest-missing'; shard: string }
  | { kind: 'shard-other-stage'; shard: string; stage: string; first: string; firstStage: string }
  /** `differences`: settingsDifferences' lines, then the dataset's. */
  | { kind: 'shard-other-settings'; shard: string; first: string; differences: string[] }
  | { kind: 'shard-other-rubric'; shard: string; domain: string; sha: string; other: string; otherSha: string }
  | { kind: 'shard-twice'; first: string; second: string; shard: string }
  | { kind: 'shards-other-splits'; counts: number[] }
  | { kind: 'shard-cut-short'; shard: string; line: number }
  /** `problem`: the row's own complaint (`file:line: field: …`). */
  | { kind: 'shard-damaged'; problem: string }
  | { kind: 'rows-duplicated'; rows: { key: string; first: string; again: string }[] }
  | { kind: 'rows-unexpected'; source: string[]; keys: string[] }
  | { kind: 'shards-leave-gaps'; missing: string[]; failed: string[] }
  | { kind: 'shard-source-missing'; path: string; given: boolean };

/** A row that cannot be used: where it is and why, in one line. */
export interface BadRow {
  file: string;
  lineNo: number;
  message: string;
}

/** The file-system errors awb names in one line; any other stays an error of its own (a bug or the machine's). */
export type FileErrorCode = 'ENOENT' | 'EISDIR' | 'EACCES' | 'EPERM' | 'ENOSPC' | 'EROFS' | 'ENOTDIR' | 'ENAMETOOLONG' | 'ENXIO';

/** What can go wrong in rows/ that the user can fix, as data; worded in src/commands/words/rows.ts. */
export type RowsFault =
  | { kind: 'file-error'; path: string; code: FileErrorCode }
  | { kind: 'input-compressed'; path: string; format: string; tool: string }
  | { kind: 'input-utf16'; path: string }
  | { kind: 'input-cr-endings'; path: string }
  | { kind: 'input-shrank'; path: string }
  | { kind: 'data-folder-is-file'; dir: string }
  | { kind: 'no-data-folder'; dir: string }
  | { kind: 'no-test-files'; dir: string }
  | { kind: 'data-lacks-domains'; dir: string; missing: string[]; found: string[] }
  | { kind: 'no-rows-for-domains'; missing: string[]; files: string[] }
  /** --shard auto: no engine's index variable set (`variables`: the ones looked for). */
  | { kind: 'shard-engine-none'; variables: string[] }
  | { kind: 'shard-engines-several'; engines: { name: string; variable: string }[] }
  /** An engine's variable that is no shard index or count: `expected` says what it must be. */
  | { kind: 'shard-engine-value'; variable: string; value: string; expected: string }
  /** An engine that does not say how many shards there are (Kubernetes), and no --shard-count or `variable`. */
  | { kind: 'shard-count-missing'; engine: string; variable: string }
  | { kind: 'shard-count-conflict'; engine: string; variable: string; count: number; given: number };

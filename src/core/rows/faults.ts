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
  | { kind: 'no-rows-for-domains'; missing: string[]; files: string[] };

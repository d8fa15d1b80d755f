import type { FileErrorCode } from '../rows/faults.js';

/** What can go wrong in output/ that the user can fix, as data; worded in src/commands/words/output.ts. */
export type OutputFault =
  /** `option`: the flag that named the path (`--output`, `--summary`). */
  | { kind: 'output-is-folder'; path: string; option: string }
  | { kind: 'output-empty'; option: string }
  | { kind: 'output-ends-in-separator'; path: string; option: string }
  | { kind: 'output-name-too-long'; path: string }
  /** The names awb keeps beside it would be too long (LONGEST_OUTPUT_NAME). */
  | { kind: 'output-beside-too-long'; path: string; option: string }
  /** `at`: the file or folder the system refused. */
  | { kind: 'output-unwritable'; path: string; option: string; at: string; code: FileErrorCode }
  /** `pid`/`host`: who the lock names (`host` only when another machine); `toDelete`: what to delete if no such run exists. */
  | { kind: 'output-busy'; output: string; pid?: number; host?: string; toDelete: string }
  | { kind: 'output-lock-takeover-killed'; output: string; lock: string; guard: string }
  | { kind: 'resume-without-manifest'; output: string; manifest: string }
  | { kind: 'resume-other-stage'; output: string; was: string; now: string }
  | { kind: 'resume-other-settings'; output: string; differences: string[] }
  /** A free-running horizon (infer --horizon) other than the one its rows were made at: refused even with --force. */
  | { kind: 'resume-other-horizon'; output: string; was: string; now: string }
  /** Data files whose SHA-256 differs from the one the output's manifest records. */
  | { kind: 'resume-other-data'; output: string; files: { path: string; was: string; now: string }[] };

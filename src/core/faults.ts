/*
 * Every fault core can throw, as data. Each subsystem with faults declares its own
 * union in its folder (`faults.ts`, exported from its index); this file only
 * joins them. A kind is unique across subsystems: kebab-case, naming what
 * happened (`no-such-file`, `key-rejected`), never the fix.
 */
import type { AgreementFault } from './agreement/index.js';
import type { CompareFault } from './compare/index.js';
import type { DownloadFault } from './download/index.js';
import type { EndpointFault } from './endpoints/index.js';
import type { JudgeFault } from './judge/index.js';
import type { MergeFault } from './merge/index.js';
import type { OutputFault } from './output/index.js';
import type { PublishFault } from './publish/index.js';
import type { RowsFault } from './rows/index.js';
import type { RubricsFault } from './rubrics/index.js';
import type { RunnerFault } from './runner/index.js';
import type { ScoreFault } from './score/index.js';

export type Fault =
  | AgreementFault
  | CompareFault
  | DownloadFault
  | EndpointFault
  | JudgeFault
  | MergeFault
  | OutputFault
  | PublishFault
  | RowsFault
  | RubricsFault
  | RunnerFault
  | ScoreFault
  | TopFault;

/** What a JSON file kept beside an output is read for: it decides what to do about one that is broken. */
export type JsonFileUse = 'resume' | 'merge' | 'provenance' | 'batch-state';

/** Faults of the files at the top of core/ (files.ts, domains.ts, hubs.ts). */
export type TopFault =
  | { kind: 'domain-list-empty'; value: string }
  /** `use`: what the refused write would do (report -o writes a page, compare --summary appends markdown). */
  | { kind: 'output-holds-json'; path: string; use: 'report' | 'summary' }
  /** `ofInput`: the output is the input's manifest rather than the input itself. */
  | { kind: 'output-is-input'; output: string; input: string; ofInput: 'input' | 'manifest'; throughLink: boolean }
  /** `option`, when a flag named the path, and what it takes. */
  | { kind: 'file-in-the-way'; at: string; option?: { name: string; takes: 'file' | 'folder' } }
  | { kind: 'cannot-create-folder'; at: string }
  /** Interrupted while a FIFO given as the output waited for a reader. */
  | { kind: 'stream-never-read'; path: string }
  | { kind: 'file-unreadable'; path: string; reason: string }
  | { kind: 'json-file-not-json'; path: string; use: JsonFileUse }
  /** `field`: the path of the field the format refused ('' for the whole file). */
  | { kind: 'json-file-invalid'; path: string; use: JsonFileUse; field: string; problem: string };

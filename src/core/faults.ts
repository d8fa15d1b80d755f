/*
 * Every fault core can throw, as data. Each subsystem with faults declares its own
 * union in its folder (`faults.ts`, exported from its index); this file only
 * joins them, from those leaf files: a faults.ts imports nothing but other faults.ts
 * files and plain types, so every subsystem can throw without importing the others
 * (scripts/structure.mjs fails on an import circle). A kind is unique across subsystems: kebab-case, naming what
 * happened (`no-such-file`, `key-rejected`), never the fix.
 */
import type { AgreementFault, AgreementWarning } from './agreement/faults.js';
import type { CompareFault, CompareNotice, CompareWarning } from './compare/faults.js';
import type { DownloadFault } from './download/faults.js';
import type { DriftFault, DriftNotice } from './drift/faults.js';
import type { EndpointFault, EndpointNotice } from './endpoints/faults.js';
import type { JudgeFault } from './judge/faults.js';
import type { MergeFault } from './merge/faults.js';
import type { OutputFault } from './output/faults.js';
import type { PublishFault } from './publish/faults.js';
import type { RowsFault } from './rows/faults.js';
import type { RubricsFault, RubricsNotice } from './rubrics/faults.js';
import type { RunnerFault } from './runner/faults.js';
import type { ScoreFault, ScoreNotice, ScoreWarning } from './score/faults.js';
import type { StageFault } from './stage/faults.js';

export type Fault =
  | AgreementFault
  | CompareFault
  | DownloadFault
  | DriftFault
  | EndpointFault
  | JudgeFault
  | MergeFault
  | OutputFault
  | PublishFault
  | RowsFault
  | RubricsFault
  | RunnerFault
  | ScoreFault
  | StageFault
  | TopFault;

/**
 * Everything core tells without stopping (a warning, a note), as data: each subsystem declares its notices
 * beside its faults; src/commands/words/ words them.
 */
export type Notice =
  AgreementWarning | CompareNotice | CompareWarning | DriftNotice | EndpointNotice | RubricsNotice | ScoreNotice | ScoreWarning;

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

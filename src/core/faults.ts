/*
 * Every fault core can throw, as data. Each subsystem declares its own
 * union in its folder (`faults.ts`, exported from its index); this file only
 * joins them. A kind is unique across subsystems: kebab-case, naming what
 * happened (`no-such-file`, `key-rejected`), never the fix.
 */
import type { AgreementFault } from './agreement/index.js';
import type { DatasetFault } from './dataset/index.js';
import type { DownloadFault } from './download/index.js';
import type { EndpointFault } from './endpoints/index.js';
import type { InferFault } from './infer/index.js';
import type { JudgeFault } from './judge/index.js';
import type { MergeFault } from './merge/index.js';
import type { OutputFault } from './output/index.js';
import type { ReportFault } from './report/index.js';
import type { RowsFault } from './rows/index.js';
import type { RubricsFault } from './rubrics/index.js';
import type { RunnerFault } from './runner/index.js';
import type { ScoreFault } from './score/index.js';

export type Fault =
  | AgreementFault
  | DatasetFault
  | DownloadFault
  | EndpointFault
  | InferFault
  | JudgeFault
  | MergeFault
  | OutputFault
  | ReportFault
  | RowsFault
  | RubricsFault
  | RunnerFault
  | ScoreFault
  | TopFault;

/** Faults of the files at the top of core/ (files.ts, domains.ts, hubs.ts). */
export type TopFault = { kind: 'domain-list-empty'; value: string };

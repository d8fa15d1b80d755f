export type { DomainTally } from './accounting.js';
export { fileOrder } from './plan.js';
export type { Order } from './plan.js';
export { runStage } from './run.js';
export type { RunOptions, StageEvent, StageResult } from './run.js';
export type { Job, RowChat, RowSend, Stage } from './stage.js';
export { dryRun } from './dry-run.js';
export type { DryRunCount } from './dry-run.js';
export { BatchPhase } from './batch-phase.js';

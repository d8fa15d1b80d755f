export { readManifest, settingsDifferences, writeManifest } from './output-file.js';
export { runStage } from './stage.js';
export type { DomainTally, Job, StageEvent, StageResult } from './stage.js';

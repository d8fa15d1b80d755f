/* An output file and its manifest: shared by the runner, merge and the commands, with no endpoint client. */
export {
  checkOutputPath,
  ensureOutputDir,
  isNonEmptyFile,
  LONGEST_OUTPUT_NAME,
  readManifest,
  settingsDifferences,
  writeManifest,
} from './output-file.js';
export { checkResumable, hostless, refusesOtherSettings } from './resume.js';
export type { Resumable } from './resume.js';
export { lockOutput, lockPathFor, removeStaleTemps } from './lock.js';
export type { OutputFault } from './faults.js';

/* An output file and its manifest: shared by the runner, merge and the commands, with no endpoint client. */
export {
  checkOutputPath,
  checkResumable,
  ensureOutputDir,
  hostless,
  isNonEmptyFile,
  LONGEST_OUTPUT_NAME,
  readManifest,
  settingsDifferences,
  writeManifest,
} from './output-file.js';
export type { Resumable } from './output-file.js';
export { lockOutput, lockPathFor, removeStaleTemps } from './lock.js';
export type { OutputFault } from './faults.js';

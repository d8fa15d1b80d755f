export {
  blobName,
  COMMIT_SHA,
  DEFAULT_REVISION,
  ORIGIN_FILE,
  TEST_FILE,
  findTestFiles,
  readDatasetOrigin,
  sizeOf,
  unchangedSinceRecord,
} from './dataset-origin.js';
export type { DatasetOrigin, LocalFile } from './dataset-origin.js';
export { checkRecordedFiles, fileDigest, hashFile, isListed, sha256Of } from './file-hash.js';
export type { CheckedFile, FileHashes, Listed } from './file-hash.js';
export { HUB_SOURCES } from '../hubs.js';
export type { HubKind } from '../hubs.js';
export { PUBLISHED, PUBLISHED_JUDGE, PUBLISHED_SOURCE } from './published.js';
export type { PublishedRow } from './published.js';
export { sameData } from './dataset-identity.js';

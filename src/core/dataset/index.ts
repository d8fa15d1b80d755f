export {
  COMMIT_SHA,
  DEFAULT_REVISION,
  HUB_SOURCES,
  ORIGIN_FILE,
  TEST_FILE,
  findTestFiles,
  readDatasetOrigin,
  sha256Of,
  sizeOf,
  unchangedSinceRecord,
} from './dataset-origin.js';
export type { DatasetOrigin, HubKind, LocalFile } from './dataset-origin.js';
export { PUBLISHED, PUBLISHED_JUDGE, PUBLISHED_SOURCE } from './published.js';
export type { PublishedRow } from './published.js';
export { sameData } from './dataset-identity.js';

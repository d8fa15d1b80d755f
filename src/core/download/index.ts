export { downloadDataset, IDLE_SECONDS, MAX_FILE_BYTES } from './download.js';
export type { DownloadOptions, DownloadProgress } from './download.js';

export { downloadDataset } from './download.js';
export type { DownloadOptions, DownloadProgress, OfflineReason } from './download.js';

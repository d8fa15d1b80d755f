export { downloadDataset } from './download.js';
export type { DownloadedDataset, DownloadOptions, DownloadProgress, OfflineReason } from './download.js';

export { downloadDataset } from './download.js';
export type { DownloadedDataset, DownloadOptions, DownloadProgress } from './download.js';

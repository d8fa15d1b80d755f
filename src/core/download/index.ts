export { downloadDataset } from './download.js';
export type { DownloadOptions, DownloadProgress } from './download.js';

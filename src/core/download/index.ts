export { downloadDataset } from './download.js';
export type { DownloadProgress } from './download.js';

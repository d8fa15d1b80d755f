export { downloadDataset } from './download.js';
export type { DownloadedDataset, DownloadOptions, DownloadProgress } from './download.js';
export type { DownloadFault, HubStep, HubUrlSetting, ListedField } from './faults.js';
export { DEFAULT_HUB_URL, checkedHubUrl } from './hub-settings.js';

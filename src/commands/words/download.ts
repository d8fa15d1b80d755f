import type { DownloadFault } from '../../core/download/index.js';
import type { Words } from './words.js';

export const DOWNLOAD_WORDS: Words<DownloadFault> = {};

import type { ReportFault } from '../../../core/report/index.js';
import type { Words } from '../words.js';

export const REPORT_WORDS: Words<ReportFault> = {};

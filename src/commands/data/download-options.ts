import { DATASET_REPO } from '../../core/domains.js';
import { DOMAINS_OPTION, intOption, numberOption } from '../shared/options.js';
import { given, type OptionTable } from '../shared/option-table.js';
import { INFER_OPTIONS } from '../stage/stage-options.js';

/* The options of download (see option-table.ts): where from, which revision and domains, and where to. */

export const DOWNLOAD_OPTIONS = {
  source: { ...INFER_OPTIONS.source, help: 'huggingface or modelscope' },
  revision: {
    ...INFER_OPTIONS.revision,
    help: 'branch, tag or commit of the dataset (default: main on Hugging Face, master on ModelScope)',
  },
  dir: given('--dir <dir>', "download into this folder instead of the hub's cache"),
  domains: { ...DOMAINS_OPTION, help: 'comma-separated domains to fetch (default: all seven)' },
  repo: { flags: '--repo <id>', help: 'dataset repository, OWNER/NAME', default: DATASET_REPO, parse: (v: string) => v },
  timeout: {
    flags: '--timeout <s>',
    help: 'give a request up after this many seconds without a byte from the hub (default: 60)',
    parse: (v: string | undefined, n: string) => numberOption(n, v, 1, 86_400),
  },
  maxFileMb: {
    flags: '--max-file-mb <n>',
    help: 'refuse files listed larger than this many MB (default: 2048)',
    parse: (v: string | undefined, n: string) => intOption(n, v, 1),
  },
} satisfies OptionTable;

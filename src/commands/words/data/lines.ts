import { PREFIX } from '../process.js';

/* What `awb download` says besides faults: each line's words, built here. */
export const DOWNLOAD_LINES = {
  /** The last words of a download Ctrl-C cancelled. */
  interrupted: 'download interrupted; nothing partial was kept, and the same command continues where it stopped',
  offline: (why: 'HF_HUB_OFFLINE' | 'unreachable') =>
    PREFIX.said(
      `${why === 'HF_HUB_OFFLINE' ? 'HF_HUB_OFFLINE is set: the hub was not asked' : 'the hub could not be reached'}; using the complete copy already here`,
    ),
  /** Without a terminal: a line per file as it goes (sizes as formatBytes gives them). */
  alreadyHere: (file: string, size: string) => `${file}: already here (${size})`,
  fileDone: (file: string, size: string) => `${file}: done (${size})`,
  downloading: (file: string, size: string) => `${file}: downloading ${size}`,
  fileProgress: (file: string, percent: number, done: string, size: string) => `${file}: ${percent}% (${done} of ${size})`,
  differsFromPublished: (domains: number) =>
    `${domains} domain${domains === 1 ? '' : 's'} differ${domains === 1 ? 's' : ''} from the published test split: scores on this revision are not comparable with the leaderboard`,
} as const;

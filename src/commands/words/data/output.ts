import { LONGEST_OUTPUT_NAME, type OutputFault } from '../../../core/output/index.js';
import type { FileErrorCode } from '../../../core/rows/index.js';
import type { Words } from '../words.js';

const BESIDE_TOO_LONG = `the names of the files awb keeps beside it (its name + ".lock", + ".manifest.json") would be too long for the file system; choose a name of at most ${LONGEST_OUTPUT_NAME} bytes`;

/** Why an output cannot be written, by the error the system gave for `at`. */
function unwritable(code: FileErrorCode, at: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied in ${at}`;
    case 'EROFS':
      return `${at} is on a read-only file system`;
    case 'ENOTDIR':
      return `a part of ${at} is not a folder`;
    case 'ENAMETOOLONG':
      return BESIDE_TOO_LONG;
    case 'ENOSPC':
      return 'the disk is full';
    default:
      return `no file can be created in ${at}`;
  }
}

function otherData(f: Extract<OutputFault, { kind: 'resume-other-data' }>): string {
  const files = f.files.map((c) => `${c.path} (sha256 ${c.was.slice(0, 12)}… then, ${c.now.slice(0, 12)}… now)`).join(', ');
  return `${f.output} was made from other data: ${files} changed since its rows were made; resume it with the data it was made from, or give this run a file of its own (-o FILE, or --label NAME); --force keeps its rows and goes on (its manifest records the mix)`;
}

/** A horizon as the manifest records it, in words: 0 is teacher-forced. */
function horizonWords(h: string): string {
  return h === '0' ? 'horizon 0 (teacher-forced)' : `horizon ${h} (free-running)`;
}

export const OUTPUT_WORDS: Words<OutputFault> = {
  'output-is-folder': (f) => `${f.path}: is a folder; ${f.option} takes a file path`,
  'output-empty': (f) => `${f.option} is empty; give it a file path`,
  'output-ends-in-separator': (f) => `${f.path}: ends in "${f.path.slice(-1)}", a folder; ${f.option} takes a file path`,
  'output-name-too-long': (f) => `${f.path}: the name is too long for the file system`,
  'output-beside-too-long': (f) => `cannot write ${f.option} ${f.path}: ${BESIDE_TOO_LONG}`,
  'output-unwritable': (f) => `cannot write ${f.option} ${f.path}: ${unwritable(f.code, f.at)}`,
  'output-busy': (f) =>
    `${f.output} is being written by another awb run${f.pid !== undefined ? ` (pid ${f.pid}${f.host ? ` on ${f.host}` : ''})` : ''}; wait for it to end, or give this run a file of its own (-o FILE); if no such run exists, delete ${f.toDelete}`,
  'output-lock-takeover-killed': (f) =>
    `${f.output}: an awb run was killed while taking over its stale lock; if no awb run is writing ${f.output}, delete ${f.lock} and ${f.guard}`,
  'resume-without-manifest': (f) =>
    `${f.output} already has rows but no manifest (${f.manifest}), so awb cannot tell what made them; pass --force to resume into it anyway, or choose another --output`,
  'resume-other-data': otherData,
  'resume-other-stage': (f, awb) => `${f.output} was written by \`${awb} ${f.was}\`, not \`${awb} ${f.now}\`; choose another --output`,
  'resume-other-horizon': (f) =>
    `${f.output} holds rows made at ${horizonWords(f.was)}, not ${horizonWords(f.now)}; rows of two horizons in one file cannot be told apart by score or drift, so --force does not mix them; give this run a file of its own (-o FILE, or --label NAME), or resume with --horizon ${f.was}`,
  'resume-other-settings': (f) =>
    `${f.output} was made with other settings (${f.differences.join('; ')}); to resume it, use the same settings, or pass --force to keep its rows and go on with these (where results may differ, its manifest records the mix); for a new run, give it a file of its own: -o FILE, or --label NAME (a default path named after the run)`,
};

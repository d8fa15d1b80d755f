import type { FileErrorCode, RowsFault } from '../../../core/rows/index.js';
import type { Words } from '../words.js';
import { visible } from '../../../core/shown.js';

/** What each file-system error says of the path it concerns. */
const FILE_ERRORS: Record<FileErrorCode, string> = {
  ENOENT: 'no such file',
  EISDIR: 'is a folder, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full; what was written before is kept, run the same command again once there is space',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is not a folder',
  ENAMETOOLONG: 'the name is too long for the file system',
  // A socket (the stdout some process managers give) has no path to open.
  ENXIO: 'cannot be opened for writing (a socket?); give a file, a pipe or a FIFO',
};

export const ROWS_WORDS: Words<RowsFault> = {
  'file-error': (f) => `${f.path}: ${FILE_ERRORS[f.code]}`,
  'input-compressed': (f) => `${f.path}: is ${f.format}-compressed, not JSONL; decompress it first (${f.tool} FILE)`,
  'input-utf16': (f) =>
    `${f.path}: is UTF-16 text (as Windows PowerShell's > writes it), not UTF-8; convert it first (iconv -f UTF-16 -t UTF-8 FILE > fixed.jsonl)`,
  'input-cr-endings': (f) =>
    `${f.path}: its lines end in CR only (old Mac line endings), so it reads as one line; convert them to LF first, e.g. \`tr '\\r' '\\n' < ${f.path} > fixed.jsonl\``,
  'input-shrank': (f) => `${f.path}: the file got shorter while awb was reading it; leave inputs alone during a run`,
  'data-folder-is-file': (f) => `${f.dir}: is a file; --data takes the folder holding {domain}_test.jsonl files`,
  'no-data-folder': (f) => `${f.dir}: no such data folder`,
  'no-test-files': (f) => `${f.dir}: holds no *_test.jsonl files (expected the official layout, e.g. mcp_test.jsonl)`,
  'data-lacks-domains': (f) => `${f.dir}: no data for domain(s) ${f.missing.join(', ')}; it has ${f.found.join(', ')}`,
  'no-rows-for-domains': (f) => `no rows for domain(s) ${f.missing.join(', ')} in ${f.files.join(', ')}`,
  'shard-engine-none': (f) =>
    `--shard auto: no shard engine found in the environment (none of ${f.variables.join(', ')} is set); give the shard as --shard K/N`,
  'shard-engines-several': (f) =>
    `--shard auto: ${f.engines.map((e) => `${e.name} (${e.variable})`).join(' and ')} both name a shard; give the shard as --shard K/N`,
  'shard-engine-value': (f) => `--shard auto: ${f.variable}="${visible(f.value)}" must be ${f.expected}`,
  'shard-count-missing': (f) =>
    `--shard auto: ${f.engine} does not say how many shards there are; give it with --shard-count N or ${f.variable}`,
  'shard-count-conflict': (f) =>
    `--shard auto: --shard-count ${f.given} disagrees with ${f.engine}'s ${f.variable}=${f.count}; leave --shard-count out`,
};

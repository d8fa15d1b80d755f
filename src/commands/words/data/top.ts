import type { JsonFileUse, TopFault } from '../../../core/errors.js';
import { EXIT, type Words } from '../words.js';

/** What to do about a JSON file beside an output that is not JSON, by what it was read for. */
const NOT_JSON: Record<JsonFileUse, string> = {
  resume: 'not valid JSON; delete it and pass --force to resume without the settings check',
  merge: 'not valid JSON; merge needs it to check the shards belong together: restore it, or run that shard again',
  provenance: 'not valid JSON',
  'batch-state': 'not JSON; remove it to submit new batches',
};

export const TOP_WORDS: Words<TopFault> = {
  'domain-list-empty': (f) => `--domains names no domain (got "${f.value}"); leave the option out for every domain`,
  'output-holds-json': (f) =>
    `${f.path} exists and holds JSON: ${f.use === 'report' ? 'report -o writes an HTML page over it' : 'compare --summary appends markdown to it'}; name another file`,
  'output-is-input': (f) =>
    `${f.output} is also ${f.ofInput === 'input' ? 'the input' : 'the manifest of the input'} ${f.input}${f.throughLink ? ' (through a link)' : ''}; awb never writes over an input: choose another output`,
  'file-in-the-way': (f) =>
    `${f.at}: is a file, not a folder${!f.option ? '' : f.option.takes === 'folder' ? `; ${f.option.name} takes a folder` : `; choose an ${f.option.name} inside a folder`}`,
  'cannot-create-folder': (f) => `${f.at}: cannot create a folder here`,
  'stream-never-read': (f) => ({
    message: `${f.path}: interrupted while waiting for something to read it; nothing was written`,
    exit: EXIT.interrupted,
  }),
  'file-unreadable': (f) => `${f.path}: cannot read (${f.reason})`,
  'json-file-not-json': (f) => `${f.path}: ${NOT_JSON[f.use]}`,
  'json-file-invalid': (f) => `${f.path}: ${f.field || (f.use === 'batch-state' ? 'state' : 'manifest')}: ${f.problem}`,
};

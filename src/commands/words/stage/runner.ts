import type { RunnerFault } from '../../../core/runner/index.js';
import { counted } from '../../../core/shown.js';
import { EXIT, type Words } from '../words.js';

export const RUNNER_WORDS: Words<RunnerFault> = {
  'no-rows-planned': (f) => `no rows to process in ${f.files.join(', ')}`,
  'stopped-before-first-request': (f) => ({
    message: `${f.stage} interrupted before its first request: nothing was sent or written`,
    exit: EXIT.interrupted,
  }),
  'output-from-other-data': (f) =>
    `${f.output} holds ${counted(f.rows, 'row')} that the data of this run does not (the first at ${f.first}): it was made from other data or edited; give this run a file of its own (-o FILE), or pass --force to resume it anyway (such rows are kept, not counted)`,
  'output-of-other-predictions': (f) =>
    `${f.output} holds judgements of other predictions than ${f.inputs.join(', ')} (${counted(f.rows, 'row')} whose gen differs, the first at ${f.first}); give this run a file of its own (-o FILE, or --label NAME), or move ${f.output} away to judge these predictions into it afresh`,
  'stopped-at-bad-row': (f) =>
    f.rowsBefore
      ? `${f.bad.message} (rows before it are done and saved, as are rows after it sent before it was read; fix it and run the same command to go on)`
      : f.bad.message,
};

import { HELP_WORDS, PREFIX, PROCESS_WORDS } from '../../../../src/commands/words/process.js';
import { RUN_WORDS } from '../../../../src/commands/words/stage/run.js';
import { OPTION_WORDS } from '../../../../src/commands/words/usage.js';

/* Lines commands print besides faults and notices, each said once for the words snapshot: `[what, line]`. */
export function lineSamples(): Array<[string, string]> {
  return [
    ['prefix said', PREFIX.said('wrote report.html (28 rows, 0.1 MB, 0.2 s)')],
    ['prefix note', PREFIX.note('run-a is not comparable with the published rows')],
    ['prefix warning', PREFIX.warning('a.jsonl: 3 rows have no judge_usage')],
    ['help description', HELP_WORDS.description],
    ['help quick start', HELP_WORDS.quickStart],
    ...HELP_WORDS.quickStartCommands.map((c, i): [string, string] => [`help quick start ${i + 1}`, c]),
    ['help exit codes', HELP_WORDS.exitCodes],
    ['process interrupted', PROCESS_WORDS.interrupted('SIGTERM')],
    ['process stdout unwritable', PROCESS_WORDS.stdoutUnwritable('ENOSPC: no space left on device, write')],
    ['run summary columns', Object.values(RUN_WORDS.summaryColumns).join(' | ')],
    ['run summary all', RUN_WORDS.summaryAll],
    ...Object.entries(RUN_WORDS.summaryWarn).map(([k, warn]): [string, string] => [`run summary warn ${k}`, RUN_WORDS.checkRows(3, warn)]),
    ['run empty reply', RUN_WORDS.emptyReply],
    ['run outside rows kept', RUN_WORDS.outside('infer', { output: 'out.jsonl', rows: 2, first: 'out.jsonl:3', forced: false })],
    ['run outside rows forced', RUN_WORDS.outside('judge', { output: 'judged.jsonl', rows: 1, first: 'judged.jsonl:1', forced: true })],
    ['run top reason', RUN_WORDS.topReason(12, 'HTTP 500: upstream error')],
    ['run step heading', RUN_WORDS.stepHeading('judge')],
    ['option compare takes two', OPTION_WORDS.compareTakesTwo(3)],
    ...(['model', 'messages', 'stream', 'stream_options'] as const).map((f): [string, string] => [
      `option own field ${f}`,
      OPTION_WORDS.ownField('extra-body', f),
    ]),
  ];
}

/*
 * What awb says about its own process, outside any command: how its own lines on stderr begin, a signal no work took,
 * a standard output it cannot write, and `awb --help`'s words. Apart from index.ts, so start-up loads these lines alone.
 */

/** How awb's lines on stderr begin: a message of its own (a fault's, a file written), a note, a warning. */
export const PREFIX = {
  said: (line: string) => `awb: ${line}`,
  note: (line: string) => `awb: note: ${line}`,
  warning: (line: string) => `awb: warning: ${line}`,
} as const;

export const PROCESS_WORDS = {
  /** A Ctrl-C or SIGTERM no work had taken: the process ends at once (exit 130). */
  interrupted: (signal: string) => PREFIX.said(`interrupted (${signal})`),
  /** A full disk or a closed descriptor behind `>`; `why`: the system's words, made visible. */
  stdoutUnwritable: (why: string) => PREFIX.said(`cannot write to standard output: ${why}`),
} as const;

/** `awb --help`: what awb is, its quick start (three commands, in the order they run) and the exit codes' heading. */
export const HELP_WORDS = {
  description: 'Evaluate language world models on AgentWorldBench: download, infer, judge, score.',
  quickStart: "Quick start (awb CMD --help for each command's options, defaults and examples):",
  /** Shown under it, each after `$ `. */
  quickStartCommands: [
    'awb infer --model-base-url http://localhost:8000/v1 --model-name MODEL -c 64',
    'awb judge --predictions results/MODEL/predictions.jsonl --judge-base-url https://api.openai.com/v1 --judge-model gpt-5.2-2025-12-11',
    'awb score results/MODEL/judged.jsonl',
  ],
  exitCodes: 'Exit codes:',
} as const;

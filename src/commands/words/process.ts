/*
 * What awb says about its own process, outside any command: a signal no work took, a standard output it cannot
 * write. Apart from index.ts, so start-up loads these lines alone.
 */
export const PROCESS_WORDS = {
  /** A Ctrl-C or SIGTERM no work had taken: the process ends at once (exit 130). */
  interrupted: (signal: string) => `awb: interrupted (${signal})`,
  /** A full disk or a closed descriptor behind `>`; `why`: the system's words, made visible. */
  stdoutUnwritable: (why: string) => `awb: cannot write to standard output: ${why}`,
} as const;

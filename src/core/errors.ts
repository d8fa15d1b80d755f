/**
 * A mistake the user can fix (bad input, bad option, unreachable endpoint).
 * The CLI prints only the message and exits with `exitCode`; anything that is
 * not a UserError is a bug and keeps its stack trace.
 */
export class UserError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}

/** Formats a location the way every input error names it: `file:line: field: problem`. */
export function atLine(file: string, line: number, field: string | undefined, problem: string): string {
  return `${file}:${line}: ${field ? `${field}: ` : ''}${problem}`;
}

import type { Fault } from './faults.js';
import type { FileErrorCode } from './rows/faults.js';

export type { Fault, JsonFileUse, Notice, TopFault } from './faults.js';

/**
 * What core throws when the user can fix it: a typed fault, never a sentence.
 * `src/commands/words` turns each kind into the message and exit code the
 * user sees; anything else that reaches the CLI is a bug.
 */
export class FaultError<F extends Fault = Fault> extends Error {
  readonly fault: F;
  constructor(fault: F) {
    super(fault.kind);
    this.name = 'FaultError';
    this.fault = fault;
  }
}

/** Throws the fault: `throw fail({ kind: 'no-such-file', path })` reads as what it is. */
export function fail<F extends Fault>(fault: F): FaultError<F> {
  return new FaultError(fault);
}

/** The fault of this kind, if `err` is one: for the few callers that handle a kind themselves. */
export function faultOf<K extends Fault['kind']>(err: unknown, kind: K): Extract<Fault, { kind: K }> | undefined {
  return err instanceof FaultError && err.fault.kind === kind ? (err.fault as Extract<Fault, { kind: K }>) : undefined;
}

/**
 * A mistake the user can fix, already worded (bad input, bad option, unreachable endpoint).
 * The CLI prints only the message and exits with `exitCode`.
 * Being replaced in core by FaultError: new code in core throws faults.
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

const NAMED_CODES: readonly string[] = [
  'ENOENT',
  'EISDIR',
  'EACCES',
  'EPERM',
  'ENOSPC',
  'EROFS',
  'ENOTDIR',
  'ENAMETOOLONG',
  'ENXIO',
] satisfies FileErrorCode[];

/** A file-system error about `path` as a fault, when it is one the user can fix; any other error unchanged. */
export function fileError(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code && NAMED_CODES.includes(code) ? fail({ kind: 'file-error', path, code: code as FileErrorCode }) : err;
}

import { UserError } from '../../core/errors.js';
import { EXIT } from '../words/words.js';
import { PROCESS_WORDS } from '../words/process.js';
import type { Terminal } from './terminal.js';

/*
 * Ctrl-C and SIGTERM, for every command: the one place that listens for them. A command that has
 * something to finish or undo while it stops (a run's requests in flight, a file half written) takes
 * them with onInterrupt; any other moment of any command ends at once with exit 130, whatever it
 * waits on (a FIFO nobody reads, a pipe that is full, a long read of a file).
 */

type Handler = (signal: NodeJS.Signals) => void;

/** The handlers of the work under way; all of them hear each signal, as each has its own part to stop. */
const handlers = new Set<Handler>();
/** What a signal does when no work has taken it (endOnInterrupt). */
let fallback: Handler | undefined;
let listening = false;

function dispatch(signal: NodeJS.Signals): void {
  if (handlers.size === 0) return fallback?.(signal);
  for (const h of [...handlers]) h(signal);
}

function listen(on: boolean): void {
  if (on === listening) return;
  listening = on;
  for (const s of ['SIGINT', 'SIGTERM'] as const) {
    if (on) process.on(s, dispatch);
    else process.off(s, dispatch);
  }
}

/** Calls `handler` on each Ctrl-C or SIGTERM until the returned function is called. */
export function onInterrupt(handler: Handler): () => void {
  handlers.add(handler);
  listen(true);
  return () => {
    handlers.delete(handler);
    if (handlers.size === 0 && !fallback) listen(false);
  };
}

/**
 * For the process's own terminal (src/cli.ts): a signal that no work has taken ends the process with
 * one line and exit 130, as documented, rather than by the signal (143 for SIGTERM in a shell).
 */
export function endOnInterrupt(t: Terminal, exit: (code: number) => never): void {
  fallback = (signal) => {
    t.stderr.write(`${PROCESS_WORDS.interrupted(signal)}\n`);
    exit(EXIT.interrupted);
  };
  listen(true);
}

/**
 * Runs `work` with a signal that Ctrl-C or SIGTERM aborts, for commands that
 * write files whole (download, merge, report): the work drops what it has half
 * written and stops, and the command ends with the one line `interrupted`,
 * exit 130. Work the signal no longer reaches (a file already in place) ends
 * as it would have.
 */
export async function interruptibly<T>(work: (signal: AbortSignal) => Promise<T>, interrupted: string): Promise<T> {
  const controller = new AbortController();
  const off = onInterrupt(() => controller.abort());
  try {
    return await work(controller.signal);
  } catch (err) {
    if (!controller.signal.aborted) throw err;
    throw new UserError(interrupted, EXIT.interrupted);
  } finally {
    off();
  }
}

import { UserError } from '../../core/errors.js';

/**
 * Runs `work` with a signal that Ctrl-C or SIGTERM aborts, for commands that
 * write files whole (download, merge): the work drops what it has half
 * written and stops, and the command ends with the one line `interrupted`,
 * exit 130. Work the signal no longer reaches (a file already in place) ends
 * as it would have.
 */
export async function interruptibly<T>(work: (signal: AbortSignal) => Promise<T>, interrupted: string): Promise<T> {
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work(controller.signal);
  } catch (err) {
    if (!controller.signal.aborted) throw err;
    throw new UserError(interrupted, 130);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * Makes one call with an abort signal of its own, aborted with `signal`: the
 * openai client never unhooks the listener it adds to the signal it is given,
 * so a signal shared by many calls (the rows of a run, a day of batch polls)
 * would gather a listener per call, and Node warns of a leak after ten.
 */
export async function withOwnSignal<T, S extends AbortSignal | undefined>(signal: S, call: (signal: S) => Promise<T>): Promise<T> {
  if (!signal) return call(signal);
  const own = new AbortController();
  const onAbort = () => own.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await call(own.signal as S);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/* Progress events for each file, sent at most every tenth of a second while bytes arrive. */

export interface DownloadProgress {
  file: string;
  bytes: number;
  total: number;
  done: boolean;
  skipped?: boolean;
}

export function progressReporter(onProgress: ((e: DownloadProgress) => void) | undefined, file: string, total: number) {
  let last = 0;
  return (bytes: number, done: boolean, skipped?: boolean): void => {
    if (!onProgress) return;
    const now = Date.now();
    // Chunks arrive every few KB; a tenth of a second is plenty for a progress bar.
    if (!done && bytes > 0 && now - last < 100) return;
    last = now;
    // Progress never passes 100%, whatever a server sends before it is cut off.
    onProgress({ file, bytes: Math.min(bytes, total), total, done, ...(skipped ? { skipped: true } : {}) });
  };
}

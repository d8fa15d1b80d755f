import type { DownloadedDataset, DownloadOptions } from '../../core/download/index.js';
import { interruptibly } from '../shared/interrupt.js';
import { DOWNLOAD_LINES } from '../words/data/lines.js';

/**
 * The dataset's download, cancelled by Ctrl-C or SIGTERM the way a run is:
 * the file in transfer is dropped with its temporary file (files already
 * complete stay), and it ends with one line and exit 130, the same command
 * continuing where it stopped.
 */
export async function downloadInterruptibly(opts: Omit<DownloadOptions, 'signal'>): Promise<DownloadedDataset> {
  // The Hub client is loaded only when there is something to download.
  const { downloadDataset } = await import('../../core/download/index.js');
  return interruptibly((signal) => downloadDataset({ ...opts, signal }), DOWNLOAD_LINES.interrupted);
}

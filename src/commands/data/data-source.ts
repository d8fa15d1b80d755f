import { join, resolve } from 'node:path';
import { checkRecordedFiles, DEFAULT_REVISION, ORIGIN_FILE, readDatasetOrigin, sizeOf, type HubKind } from '../../core/dataset/index.js';
import { editedDataNote } from '../words/data/provenance.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';
import { DATASET_REPO } from '../../core/domains.js';
import type { DownloadedDataset, DownloadOptions } from '../../core/download/index.js';
import { interruptibly } from '../shared/interrupt.js';
import type { Manifest } from '../../core/schemas/index.js';
import { terminal } from '../shared/terminal.js';

export interface DataSource {
  dir: string;
  origin: Omit<Manifest['dataset'], 'rows' | 'domains'>;
}

const HUB_NAME: Record<HubKind, string> = { huggingface: 'the Hugging Face Hub', modelscope: 'ModelScope' };

/**
 * The data infer reads: a local folder when given (with its origin when
 * `awb download --dir` recorded one), else the hub's download, cached, so
 * `awb infer` works out of the box and the run records the exact commit and
 * the files' hashes.
 */
export async function resolveData(
  data: string | undefined,
  source: HubKind,
  revision: string | undefined,
  domains: string[] | undefined,
  progress: boolean,
): Promise<DataSource> {
  if (data !== undefined) {
    const origin = await readDatasetOrigin(data);
    // The record says what was downloaded; a file edited since must not pass for the hub's (runs with equal hashes compare and merge).
    const checked = origin ? await checkRecordedFiles(data, origin) : [];
    const edited = checked.filter((c) => !c.asRecorded && (!domains || domains.includes(c.domain)));
    if (edited.length && origin) {
      const own = await sizeOf(join(data, ORIGIN_FILE));
      const fix = `${thisInvocation()} download ${own === undefined ? `--revision ${origin.commit}` : `--dir ${shellWord(data)}`}`;
      terminal().stderr.write(`${editedDataNote(edited, origin, fix)}\n`);
    }
    return {
      dir: data,
      origin: {
        source: resolve(data),
        ...(origin && !edited.length ? { repo: origin.repo, revision: origin.revision, commit: origin.commit } : {}),
        ...(origin?.hub && !edited.length ? { hub: origin.hub } : {}),
        ...(checked.length ? { sha256: Object.fromEntries(checked.map((c) => [c.domain, c.sha256])) } : {}),
        ...(edited.length ? { edited: edited.map((c) => c.domain) } : {}),
      },
    };
  }
  const rev = revision ?? DEFAULT_REVISION[source];
  if (progress)
    terminal().stderr.write(
      `infer: no --data given: fetching ${DATASET_REPO}@${rev} from ${HUB_NAME[source]} (cached after the first time)\n`,
    );
  const ds = await downloadInterruptibly({ source, repo: DATASET_REPO, revision: rev, domains });
  const hashed = ds.files.filter((f) => f.sha256 !== undefined);
  return {
    dir: ds.dir,
    origin: {
      source: ds.dir,
      repo: ds.repo,
      revision: ds.revision,
      commit: ds.commit,
      hub: ds.hub,
      ...(hashed.length ? { sha256: Object.fromEntries(hashed.map((f) => [f.domain, f.sha256!])) } : {}),
    },
  };
}

/**
 * The dataset's download, cancelled by Ctrl-C or SIGTERM the way a run is:
 * the file in transfer is dropped with its temporary file (files already
 * complete stay), and it ends with one line and exit 130, the same command
 * continuing where it stopped.
 */
export async function downloadInterruptibly(opts: Omit<DownloadOptions, 'signal'>): Promise<DownloadedDataset> {
  // The Hub client is loaded only when there is something to download.
  const { downloadDataset } = await import('../../core/download/index.js');
  return interruptibly(
    (signal) => downloadDataset({ ...opts, signal }),
    'download interrupted; nothing partial was kept, and the same command continues where it stopped',
  );
}

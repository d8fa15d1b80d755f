import { join, resolve } from 'node:path';
import { checkRecordedFiles, DEFAULT_REVISION, ORIGIN_FILE, readDatasetOrigin, sizeOf } from '../dataset/index.js';
import { DATASET_REPO } from '../domains.js';
import type { Manifest } from '../schemas/index.js';
import type { InferConfig } from './config.js';
import type { StageDisplay, StageSignals } from './display.js';

export interface DataSource {
  dir: string;
  origin: Omit<Manifest['dataset'], 'rows' | 'domains'>;
}

/**
 * The data infer reads: a local folder when given (with its origin when
 * `awb download --dir` recorded one), else the hub's download, cached, so
 * `awb infer` works out of the box and the run records the exact commit and
 * the files' hashes.
 */
export async function resolveData(
  c: Pick<InferConfig, 'data' | 'source' | 'revision' | 'domains'>,
  display: StageDisplay,
  signals: StageSignals,
): Promise<DataSource> {
  const { data, source, domains } = c;
  if (data !== undefined) {
    const origin = await readDatasetOrigin(data);
    // The record says what was downloaded; a file edited since must not pass for the hub's (runs with equal hashes compare and merge).
    const checked = origin ? await checkRecordedFiles(data, origin) : [];
    const edited = checked.filter((f) => !f.asRecorded && (!domains || domains.includes(f.domain)));
    if (origin && edited.length) {
      const own = (await sizeOf(join(data, ORIGIN_FILE))) !== undefined;
      display.event({
        type: 'data-edited',
        files: edited.map((f) => f.path),
        repo: origin.repo,
        commit: origin.commit,
        dir: own ? data : undefined,
      });
    }
    return {
      dir: data,
      origin: {
        source: resolve(data),
        ...(origin && !edited.length ? { repo: origin.repo, revision: origin.revision, commit: origin.commit } : {}),
        ...(origin?.hub && !edited.length ? { hub: origin.hub } : {}),
        ...(checked.length ? { sha256: Object.fromEntries(checked.map((f) => [f.domain, f.sha256])) } : {}),
        ...(edited.length ? { edited: edited.map((f) => f.domain) } : {}),
      },
    };
  }
  const revision = c.revision ?? DEFAULT_REVISION[source];
  display.event({ type: 'fetching', repo: DATASET_REPO, revision, hub: source });
  // The Hub client is loaded only when there is something to download.
  const { downloadDataset } = await import('../download/index.js');
  const ds = await signals.step('download', 'infer', (signal) =>
    downloadDataset({ source, repo: DATASET_REPO, revision, domains, signal }),
  );
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

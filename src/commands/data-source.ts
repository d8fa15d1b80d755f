import { resolve } from 'node:path';
import { readDatasetOrigin } from '../core/dataset/index.js';
import { DATASET_REPO } from '../core/domains.js';
import type { Manifest } from '../core/schemas/index.js';

export interface DataSource {
  dir: string;
  origin: Omit<Manifest['dataset'], 'rows' | 'domains'>;
}

/**
 * The data infer reads: a local folder when given (with its origin when
 * `awb download --dir` recorded one), else the Hub download, cached, so
 * `awb infer` works out of the box and the run records the exact commit.
 */
export async function resolveData(
  data: string | undefined,
  revision: string,
  domains: string[] | undefined,
  progress: boolean,
): Promise<DataSource> {
  if (data !== undefined) {
    const origin = await readDatasetOrigin(data);
    return {
      dir: data,
      origin: {
        source: resolve(data),
        ...(origin ? { repo: origin.repo, revision: origin.revision, commit: origin.commit } : {}),
      },
    };
  }
  if (progress)
    process.stderr.write(
      `infer: no --data given: fetching ${DATASET_REPO}@${revision} from the Hugging Face Hub (cached after the first time)\n`,
    );
  // The Hub client is loaded only when there is something to download.
  const { downloadDataset } = await import('../core/download/index.js');
  const ds = await downloadDataset({ repo: DATASET_REPO, revision, domains });
  return { dir: ds.dir, origin: { source: ds.dir, repo: ds.repo, revision: ds.revision, commit: ds.commit } };
}

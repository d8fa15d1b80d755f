import { writeManifest } from '../output/index.js';
import type { Manifest } from '../schemas/index.js';
import { fillCounts, type Tallies } from './accounting.js';

/**
 * The manifest of a run's output, written with the tallies' counts. A forced
 * resume over an earlier run's other settings makes the file mixed only once
 * it adds a row: until then (nothing to do, Ctrl-C first) the file keeps the
 * earlier manifest, which still says what made every row in it.
 */
export class RunManifest {
  private current: Manifest;

  constructor(
    private readonly path: string,
    private readonly own: Manifest,
    earlier: Manifest | undefined,
    private readonly tallies: Tallies,
    private readonly endpointStats?: () => Record<string, { requests: number; failures: number }>,
  ) {
    this.current = earlier ?? own;
  }

  get manifest(): Manifest {
    return this.current;
  }

  /** Fills in the counts and writes the manifest beside the output. */
  async save(): Promise<void> {
    fillCounts(this.current, this.tallies, this.endpointStats?.());
    await writeManifest(this.path, this.current);
  }

  /** A row was added to the output: from now on the manifest is this run's. */
  async rowAdded(): Promise<void> {
    if (this.current === this.own) return;
    this.current = this.own;
    await this.save();
  }
}

/**
 * Data files that differ from what their download recorded: the run goes on with them, and its
 * manifest records their SHA-256 and no commit, so their rows never pass for the hub's.
 * `fix`: the command that puts the hub's files back.
 */
export function editedDataNote(files: readonly string[], from: { repo: string; commit: string }, fix: string): string {
  const [verb, own] = files.length === 1 ? ['differs', 'its'] : ['differ', 'their'];
  return `infer: ${files.join(', ')} ${verb} from what the download of ${from.repo}@${from.commit.slice(0, 12)} recorded (edited since?): this run records ${own} SHA-256, not the hub's commit; \`${fix}\` puts the hub's files back`;
}

/* Whether two runs read the same data, whichever hub each got it from. */

interface DataIdentity {
  /** The commit the hub listed (Hugging Face and ModelScope commits differ for the same files). */
  commit?: string;
  /** domain → SHA-256 of its file. */
  sha256?: Record<string, string>;
}

/**
 * The files' hashes decide where both runs have them for a shared domain:
 * the same files from either hub are the same data, whatever commit each
 * hub names. Without them, only the same commit (or the same lack of one) is.
 */
export function sameData(a: DataIdentity, b: DataIdentity): boolean {
  const shared = a.sha256 && b.sha256 ? Object.keys(a.sha256).filter((d) => b.sha256![d] !== undefined) : [];
  if (shared.length) return shared.every((d) => a.sha256![d] === b.sha256![d]);
  return a.commit === b.commit;
}

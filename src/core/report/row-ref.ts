/**
 * How a row is named for people and links: `domain/id/turn_idx`, the form
 * `report.html#row=...` takes (and the one a row listing prints). It leaves
 * out the key's fingerprint, so the one pair of the real data held by two
 * distinct rows (android) names both; the id is its exact text, so ids
 * beyond 2^53 stay whole.
 */
export function rowRef(domain: string, id: string, turn: number): string {
  return `${domain}/${id}/${turn}`;
}

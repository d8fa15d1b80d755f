import assert from 'node:assert/strict';
import { lastUserText, type ChatRequest, type ReplyFn } from './openai-server.js';
import { rowMarker, type SynthRow } from './dataset.js';

/*
 * Choice-mode judges of known behaviour (turing, pairwise), for fake endpoints: they read which
 * side holds what from the judge's message, where the predictions say CAND (the candidate).
 */

/** The text shown under a heading of the judge's message (the fenced block that follows it). */
export function section(req: ChatRequest, title: string): string {
  const text = lastUserText(req);
  const at = text.indexOf(`# ${title}\n`);
  assert.ok(at >= 0, `no "${title}" in the judge's message`);
  // Headings start a line with one '#'; the actions themselves hold '### Turn' lines.
  const end = text.indexOf('\n# ', at);
  return text.slice(at, end < 0 ? undefined : end);
}

/** Whether a request judged this row: its marker in the action under evaluation (earlier turns hold other markers). */
export const asks = (req: ChatRequest, row: Pick<SynthRow, 'task' | 'id' | 'turn_idx'>) =>
  section(req, 'Action to evaluate').includes(rowMarker(row));

const boxed = (c: 'A' | 'B') => `Reasoning first.\n\n\\boxed{${c}}`;
/** Turing: which side holds the real observation (the predictions say CAND). */
export const realAt = (req: ChatRequest): 'A' | 'B' => (section(req, 'Response A').includes('CAND') ? 'B' : 'A');
const candidateAt = (req: ChatRequest): 'A' | 'B' => (section(req, 'Prediction A').includes('CAND') ? 'A' : 'B');
const other = (c: 'A' | 'B') => (c === 'A' ? 'B' : 'A');

export const judges: Record<string, ReplyFn> = {
  spotter: (req) => boxed(realAt(req)),
  fooled: (req) => boxed(other(realAt(req))),
  alwaysA: () => boxed('A'),
  candidate: (req) => boxed(candidateAt(req)),
  reference: (req) => boxed(other(candidateAt(req))),
};

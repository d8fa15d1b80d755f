/*
 * A world model whose quality falls by a known step for every observation of
 * its own in the history it is given, and a judge of known behaviour, so a
 * drift curve is known before it is measured (issue 53).
 *
 * The world model tells its own observations from real ones by a mark it
 * puts in each (`PRED`): with k of them in the history, it answers with
 * quality q = BASE − k. The judge reads q from the simulated observation and
 * gives every dimension q, moved by a noise of −1, 0 or +1 drawn from a hash
 * of its request (mean 0), so a row's 0–100 total falls by 25 points per
 * generated observation on average: Δ(H) = 25 × the mean of min(H, t − 1).
 */
import { createHash } from 'node:crypto';
import { lastUserText, messageText, type ChatRequest, type ReplyFn } from './openai-server.js';
import { section } from './choice-judges.js';

export const BASE_QUALITY = 4;

/** How many of the request's assistant messages (observations) the world model wrote itself. */
export function ownObservations(req: ChatRequest): number {
  return req.messages.filter((m) => m.role === 'assistant' && messageText(m).includes('PRED q=')).length;
}

/** The world model: an observation of quality BASE − (its own observations in the history), naming the action it answers. */
export const driftingWorldModel: ReplyFn = (req) => {
  const q = Math.max(1, BASE_QUALITY - ownObservations(req));
  return `<predicted_observation>PRED q=${q} after ${lastUserText(req).slice(-40)}</predicted_observation>`;
};

/** −1, 0 or +1, from the request's bytes: independent between runs whose requests differ. */
function noise(req: ChatRequest): number {
  const h = createHash('sha256').update(JSON.stringify(req.messages)).digest();
  return (h[0]! % 3) - 1;
}

/** The judge: every dimension the simulated observation's quality plus noise, 1 when it has none. */
export const knownJudge: ReplyFn = (req) => {
  const q = /PRED q=(\d)/.exec(section(req, 'Simulated observation'))?.[1];
  const grade = q === undefined ? 1 : Math.min(5, Math.max(1, Number(q) + noise(req)));
  const scores = { format: grade, factuality: grade, consistency: grade, realism: grade, quality: grade };
  return `<final_evaluation>${JSON.stringify({ scores, strengths: [], weaknesses: [] })}</final_evaluation>`;
};

/** The drop the servers make at horizon H for rows at these turns, in points: 25 × mean of min(H, t − 1). */
export function expectedDrop(turns: readonly number[], horizon: number | 'all'): number {
  const own = (t: number) => (horizon === 'all' ? t - 1 : Math.min(horizon, t - 1));
  return (25 * turns.reduce((s, t) => s + Math.min(own(t), BASE_QUALITY - 1), 0)) / turns.length;
}

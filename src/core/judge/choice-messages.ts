import { fenced } from '../infer/index.js';
import type { Choice } from './choice-parse.js';

/**
 * What a choice judge is asked, over plain strings: the caller cleans the
 * texts first (predictions as for the rubric judge: think blocks removed, the
 * last <predicted_observation> block; ground truth tag-unwrapped).
 */

/** One earlier turn: the agent's action and the real observation it produced. */
export interface Turn {
  action: string;
  observation: string;
}

export interface ChoiceMessage {
  role: 'system' | 'user';
  content: string;
}

/** Where the subject of a row sits in one order: the real observation (turing) or the candidate's prediction (pairwise). */
export type Side = Choice;

/**
 * The two orders every row is asked in: the subject at A first, then at B.
 * Asking both and keeping both answers is what makes a judge's position
 * preference visible (position consistency) and cancel out of the rates.
 */
const SIDES: readonly [Side, Side] = ['A', 'B'];

interface TuringOrder {
  real_at: Side;
  a: string;
  b: string;
}

interface PairwiseOrder {
  candidate_at: Side;
  a: string;
  b: string;
}

export function turingOrders(real: string, prediction: string): [TuringOrder, TuringOrder] {
  const [first, second] = SIDES.map((at) => ({ real_at: at, ...arrange(at, real, prediction) }));
  return [first!, second!];
}

export function pairwiseOrders(candidate: string, reference: string): [PairwiseOrder, PairwiseOrder] {
  const [first, second] = SIDES.map((at) => ({ candidate_at: at, ...arrange(at, candidate, reference) }));
  return [first!, second!];
}

/** What the judge took for the real observation, given where the real one was. */
export function turingPick(realAt: Side, choice: Choice): 'real' | 'prediction' {
  return choice === realAt ? 'real' : 'prediction';
}

/** Which prediction the judge found closer to the truth, given where the candidate was. */
export function pairwisePick(candidateAt: Side, choice: Choice): 'candidate' | 'reference' {
  return choice === candidateAt ? 'candidate' : 'reference';
}

function arrange(subjectAt: Side, subject: string, other: string): { a: string; b: string } {
  return subjectAt === 'A' ? { a: subject, b: other } : { a: other, b: subject };
}

/** The Turing test: history, action, and the two responses of one order. */
export function turingMessages(prompt: string, history: readonly Turn[], action: string, order: { a: string; b: string }): ChoiceMessage[] {
  return [
    { role: 'system', content: prompt },
    { role: 'user', content: context(history, action) + section('Response A', order.a) + '\n\n' + section('Response B', order.b) },
  ];
}

/** The reference comparison: history, action, the two predictions of one order, then the real observation. */
export function pairwiseMessages(
  prompt: string,
  history: readonly Turn[],
  action: string,
  order: { a: string; b: string },
  truth: string,
): ChoiceMessage[] {
  const body = [section('Prediction A', order.a), section('Prediction B', order.b), section('Real observation', truth)].join('\n\n');
  return [
    { role: 'system', content: prompt },
    { role: 'user', content: context(history, action) + body },
  ];
}

/** Earlier turns and the current action, laid out as the rubric judge's message lays them out. */
function context(history: readonly Turn[], action: string): string {
  const earlier = history.length ? `# Earlier turns\n\n${history.map((t) => `${t.action}\n${t.observation}\n\n`).join('')}` : '';
  return `${earlier}# Action to evaluate\n\n${action}\n\n`;
}

function section(title: string, text: string): string {
  return `# ${title}\n\n${fenced(text)}`;
}

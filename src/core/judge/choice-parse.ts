import { stripThink } from '../rubrics/index.js';

/**
 * Reads the A/B answer of a choice judge (Turing test, pairwise comparison)
 * with the semantics of the official `extract_choice_answer`
 * (shared/FACTS.md, "The official choice judge"):
 * 1. think blocks removed exactly as for the rubric judge;
 * 2. the LAST boxed letter wins: `\boxed{A}`, `\\boxed{A}`, `$\boxed{A}$`,
 *    `boxed{A}` without a backslash, spaces inside the braces, lower case;
 * 3. failing that, a concluding phrase ("answer is A", "I choose B",
 *    "A is more realistic", "Response B is the real one", …);
 * 4. otherwise no choice, as for an empty reply: a failure, asked again.
 */

export type Choice = 'A' | 'B';

/** Why a reply holds no choice: nothing at all, nothing but its think block, or text without a choice. `reason`: the line its row records. */
export type NoChoice = 'empty' | 'think-only' | 'no-choice';

type ChoiceParse = { ok: true; choice: Choice; via: 'boxed' | 'phrase' } | { ok: false; why: NoChoice; reason: string };

/** Any number of backslashes (or none) before `boxed`, so escaped and bare spellings match alike. */
const BOXED = /boxed\{\s*([AB])\s*\}/gi;

/** Case-insensitive letters for a word, so the A/B inside a phrase can stay upper-case only. */
function anyCase(words: string): string {
  return words.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
}

/**
 * The phrases, with keywords in any case but the letter upper-case only:
 * "the answer is a bit unclear" or "a is" in running text must not read as a
 * choice. Word boundaries keep "Answer is Absolutely" from reading as A.
 */
const LETTER = String.raw`\(?([AB])\)?(?![\w])`;
const LABEL = `(?:${anyCase('response')}\\s+|${anyCase('option')}\\s+|${anyCase('candidate')}\\s+)?`;
const PHRASES: RegExp[] = [
  // "answer is A", "final answer: B", "the answer is Response A"
  // Spaces, then stars and spaces: `\s*\**\s*` would try every split of a long run of spaces (quadratic).
  new RegExp(`${anyCase('answer')}\\s*(?:${anyCase('is')}|:)\\s*(?:\\*+\\s*)?${LABEL}${LETTER}`, 'g'),
  // "I choose B", "I would pick Response A", "I select option B"
  new RegExp(
    `\\bI\\s+(?:${anyCase('would')}\\s+|${anyCase('will')}\\s+)?(?:${anyCase('choose')}|${anyCase('pick')}|${anyCase('select')})\\s+${LABEL}${LETTER}`,
    'g',
  ),
  // "A is more realistic", "Response B is the real one", "B is closer to the ground truth", "A is better"
  new RegExp(
    `(?<![\\w])${LABEL}([AB])\\s+${anyCase('is')}\\s+(?:${anyCase('more realistic')}|${anyCase('the real')}|${anyCase('real')}\\b|${anyCase('the actual')}|${anyCase('closer')}|${anyCase('better')}|${anyCase('more accurate')}|${anyCase('more likely')})`,
    'g',
  ),
];

export function parseChoiceReply(reply: string): ChoiceParse {
  const text = stripThink(reply).trim();
  if (!text)
    return reply.trim()
      ? { ok: false, why: 'think-only', reason: 'empty reply after its think block' }
      : { ok: false, why: 'empty', reason: 'empty reply' };
  const boxed = [...text.matchAll(BOXED)].at(-1);
  if (boxed) return { ok: true, choice: boxed[1]!.toUpperCase() as Choice, via: 'boxed' };
  const phrase = lastPhrase(text);
  if (phrase) return { ok: true, choice: phrase, via: 'phrase' };
  return { ok: false, why: 'no-choice', reason: 'no choice (no \\boxed{A} or \\boxed{B}, no concluding phrase)' };
}

/** Among every phrase match, the one that starts last: like the boxed answer, the judge's conclusion comes at the end. */
function lastPhrase(text: string): Choice | undefined {
  let best: { at: number; choice: Choice } | undefined;
  for (const re of PHRASES) {
    for (const m of text.matchAll(re)) {
      if (!best || m.index >= best.at) best = { at: m.index, choice: m[1] as Choice };
    }
  }
  return best?.choice;
}

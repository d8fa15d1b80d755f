import { lastBlock, stripThink } from './think.js';

const OBSERVATION_TAG = 'predicted_observation';

/** What the official script records for a generation with nothing left once its reasoning is removed; the judge is shown it too. */
export const NO_OUTPUT = 'No output';

/**
 * The share of predictions without output (noOutput) past which infer and judge warn while they run, once
 * NO_OUTPUT_MIN_ROWS rows are in: a few per cent is a server's misconfiguration far more often than a model's choice.
 */
export const NO_OUTPUT_SHARE = 0.05;
export const NO_OUTPUT_MIN_ROWS = 20;

/** The label the world-model prompts put before each observation; the judge is shown observations without it. */
const OBSERVATION_MARKER = '**Environment Observation:**';

/**
 * The prediction in a world-model generation (recorded as
 * extracted_output): think blocks removed, then the content of the last
 * <predicted_observation> block (unclosed: to the end) when there is one,
 * else the whole cleaned text, `No output` when that is empty; trimmed. An
 * unclosed `<think>` ends at the observation tag, so a model that forgets to
 * close its reasoning still gets its observation judged.
 */
export function extractPrediction(gen: string, tag = OBSERVATION_TAG): string {
  const cleaned = stripThink(gen, tag);
  const block = lastBlock(cleaned, tag);
  return block === undefined ? cleaned.trim() || NO_OUTPUT : block.trim();
}

/**
 * Why a generation that came back holds no output (extractPrediction finds
 * nothing): `unclosed-think` when a `<think>` is never closed (a server
 * without a reasoning parser sends the model's thinking, and a reply cut off
 * mid-thought ends there too), `reasoning-only` when closed reasoning is all
 * there is, `blank` otherwise (white space, an empty observation block).
 * undefined for a generation with output, and for an empty one (no reply
 * content: counted apart, as a failure).
 */
export function noOutput(gen: string, tag = OBSERVATION_TAG): 'unclosed-think' | 'reasoning-only' | 'blank' | undefined {
  if (gen === '') return undefined;
  const cleaned = stripThink(gen, tag);
  const block = lastBlock(cleaned, tag);
  if ((block ?? cleaned).trim() !== '') return undefined;
  const opens = gen.match(/<think>/gi)?.length ?? 0;
  const closes = gen.match(/<\/think>/gi)?.length ?? 0;
  if (opens > closes) return 'unclosed-think';
  return opens + closes > 0 ? 'reasoning-only' : 'blank';
}

/**
 * An observation, predicted (as extracted) or real, as the judge is shown
 * it: without the observation label, as the official script removes it (a
 * leading one alone, else every one), and trimmed. Think blocks and tags are
 * left alone: a real observation (a file, a web page) may legitimately
 * contain the text `<think>`.
 */
export function cleanObservation(text: string): string {
  const rest = text.startsWith(OBSERVATION_MARKER) ? text.slice(OBSERVATION_MARKER.length) : text.replaceAll(OBSERVATION_MARKER, '');
  return rest.trim();
}

/** A judged row's fields of the evaluated turn; `prompt` and `response` are that turn's texts. Fields that are not text count as empty. */
export interface TurnFields {
  current_prompt?: unknown;
  prompt?: unknown;
  gen?: unknown;
  extracted_output?: unknown;
  response?: unknown;
}

/**
 * What the judge was shown of a row: the action (current_prompt, else the
 * turn's prompt), the prediction as extracted (recorded by the judge as
 * extracted_output, else taken from gen the rubric judge's way) and the
 * ground truth, both cleaned as the judge is shown them.
 */
export function judgedTexts(f: TurnFields): { action: string; prediction: string; truth: string } {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    action: text(f.current_prompt) || text(f.prompt),
    prediction: cleanObservation(typeof f.extracted_output === 'string' ? f.extracted_output : extractPrediction(text(f.gen))),
    truth: cleanObservation(text(f.response)),
  };
}

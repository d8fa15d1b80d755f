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
 * Why a generation that came back holds no output: `unclosed-think` when a `<think>` is never closed (a server without a
 * reasoning parser sends the model's thinking, and a reply cut off mid-thought ends there too), `reasoning-only` when
 * closed reasoning is all there is, `blank` otherwise (white space, an empty observation block).
 */
export type NoOutput = 'unclosed-think' | 'reasoning-only' | 'blank';

/**
 * A generation's prediction: `text`, what the judge is shown and extracted_output records, and `none`, why it holds no
 * output (undefined when it holds some). Whether a prediction has output is this fact, never a comparison of `text`
 * with NO_OUTPUT: a model may well predict the words "No output".
 */
export interface Prediction {
  text: string;
  none?: NoOutput;
}

/**
 * The prediction in a world-model generation: think blocks removed, then the content of the last
 * <predicted_observation> block (unclosed: to the end) when there is one, else the whole cleaned text, `No output`
 * when that is empty; trimmed. An unclosed `<think>` ends at the observation tag, so a model that forgets to close its
 * reasoning still gets its observation judged. An empty generation (no reply content: a failed inference, counted
 * apart) has no `none`.
 */
export function predictionOf(gen: string, tag = OBSERVATION_TAG): Prediction {
  const cleaned = stripThink(gen, tag);
  const block = lastBlock(cleaned, tag);
  const kept = (block ?? cleaned).trim();
  const text = block === undefined ? kept || NO_OUTPUT : kept;
  if (kept !== '' || gen === '') return { text };
  const opens = gen.match(/<think>/gi)?.length ?? 0;
  const closes = gen.match(/<\/think>/gi)?.length ?? 0;
  return { text, none: opens > closes ? 'unclosed-think' : opens + closes > 0 ? 'reasoning-only' : 'blank' };
}

/** The prediction's text (predictionOf), as extracted_output records it. */
export function extractPrediction(gen: string, tag = OBSERVATION_TAG): string {
  return predictionOf(gen, tag).text;
}

/**
 * Why a row's generation holds no output (predictionOf); undefined when it holds some, for an empty one, and for a
 * row without one (`gen` not a string). Every count of rows without output (infer, judge, score, fresh or resumed)
 * derives it here from the generation.
 */
export function noOutput(gen: unknown, tag = OBSERVATION_TAG): NoOutput | undefined {
  return typeof gen === 'string' ? predictionOf(gen, tag).none : undefined;
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

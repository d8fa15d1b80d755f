import { lastBlock, stripThink } from './think.js';

const OBSERVATION_TAG = 'predicted_observation';

/**
 * What the judge is shown of a world-model generation: think blocks removed,
 * then the content of the last <predicted_observation> block (unclosed: to
 * the end) when there is one, else the whole cleaned text; trimmed. An
 * unclosed `<think>` ends at the observation tag, so a model that forgets to
 * close its reasoning still gets its observation judged.
 */
export function extractPrediction(gen: string, tag = OBSERVATION_TAG): string {
  const cleaned = stripThink(gen, tag);
  return (lastBlock(cleaned, tag) ?? cleaned).trim();
}

/**
 * Ground truth as shown to the judge: the same tag unwrapping when the
 * observation is wrapped in the tag, otherwise unchanged apart from
 * trimming. Think blocks are left alone: a real observation (a file, a web
 * page) may legitimately contain the text `<think>`.
 */
export function cleanGroundTruth(text: string, tag = OBSERVATION_TAG): string {
  return (lastBlock(text, tag) ?? text).trim();
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
 * cleaned ground truth.
 */
export function judgedTexts(f: TurnFields): { action: string; prediction: string; truth: string } {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    action: text(f.current_prompt) || text(f.prompt),
    prediction: typeof f.extracted_output === 'string' ? f.extracted_output : extractPrediction(text(f.gen)),
    truth: cleanGroundTruth(text(f.response)),
  };
}

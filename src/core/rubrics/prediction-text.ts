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

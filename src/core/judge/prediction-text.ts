import { longestBacktickRun, mayHoldTag, trimmedInner } from '../rows/index.js';
import type { Observation } from '../infer/index.js';
import { decodeToken } from '../rows/index.js';
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

/**
 * cleanGroundTruth for a ground truth still in its JSON token: left escaped
 * (a multi-MB observation is never decoded) when no tag needs unwrapping,
 * else decoded and cleaned as a string.
 */
export function cleanGroundTruthToken(token: Buffer, tag = OBSERVATION_TAG): Observation {
  if (!mayHoldTag(token, tag)) {
    const escaped = trimmedInner(token);
    const longestBackticks = longestBacktickRun(escaped);
    if (longestBackticks !== undefined) return { escaped, longestBackticks };
  }
  return cleanGroundTruth(decodeToken(token), tag);
}

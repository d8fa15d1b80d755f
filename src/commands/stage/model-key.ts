import { STAGE_LINES } from '../words/stage/lines.js';
import { OPENAI_HOST, isOpenAIEndpoint } from '../../core/stage/index.js';

/*
 * Which key goes to the world model. OPENAI_API_KEY is the judge's usual key
 * (the README's quick start sets it), so it is sent to a world-model endpoint
 * only when that endpoint is OpenAI's own: a third-party or self-hosted world
 * model gets a key only when the user names one for it.
 */

/** The variables the world model's key is read from, in order: OPENAI_API_KEY only when every endpoint is OpenAI's. */
export function modelKeyVariables(urls: readonly string[]): string[] {
  return urls.length > 0 && urls.every(isOpenAIEndpoint) ? ['AWB_MODEL_API_KEY', 'OPENAI_API_KEY'] : ['AWB_MODEL_API_KEY'];
}

/**
 * The one line said when OPENAI_API_KEY is set but kept from the world model: no key was named for it
 * (neither the command's key option nor AWB_MODEL_API_KEY) and an endpoint is not OpenAI's. The key is never shown.
 */
export function keptKeyNote(
  urls: readonly string[],
  given: string | undefined,
  env: NodeJS.ProcessEnv,
  use: { command: string; option: string } = { command: 'infer', option: '--model-api-key' },
): string | undefined {
  if (given !== undefined || env.AWB_MODEL_API_KEY?.trim() || !env.OPENAI_API_KEY?.trim()) return undefined;
  const other = urls.find((u) => !isOpenAIEndpoint(u));
  if (other === undefined) return undefined;
  let host: string;
  try {
    host = new URL(other).host;
  } catch {
    host = other;
  }
  return STAGE_LINES.keyKept(use.command, host, OPENAI_HOST, use.option);
}

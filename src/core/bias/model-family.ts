/**
 * The maker of a model, from its id, for the self-preference check: a judge
 * tends to prefer answers of its own family. Ids come as users and servers
 * spell them: a provider prefix (`openai/gpt-4o`, `Qwen/Qwen3-8B`), a path
 * to local weights, a date or quantisation suffix. Only the last path
 * segment's leading word is read; unknown ids have no family.
 */
const FAMILIES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(gpt|o[134](?![a-z0-9])|chatgpt|text-davinci|davinci)/, 'openai'],
  [/^(qwen|qwq)/, 'qwen'],
  [/^claude/, 'anthropic'],
  [/^(gemini|gemma)/, 'google'],
  [/^(llama|meta-llama|codellama)/, 'meta'],
  [/^deepseek/, 'deepseek'],
  [/^(mistral|mixtral|codestral|ministral|magistral)/, 'mistral'],
  [/^(glm|chatglm)/, 'zhipu'],
];

/** The family of a model id (`gpt-4o-mini` → openai, `Qwen/Qwen3-32B` → qwen), or undefined when it is none we know. */
export function modelFamily(id: string | undefined): string | undefined {
  if (!id) return undefined;
  const name =
    id
      .trim()
      .toLowerCase()
      .split(/[/\\:]/)
      .filter(Boolean)
      .pop() ?? '';
  return FAMILIES.find(([re]) => re.test(name))?.[1];
}

import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { modelFamily } from '../../../src/core/bias/model-family.js';

test('modelFamily reads the maker from the ids users and servers spell', () => {
  const cases: Array<[string | undefined, string | undefined]> = [
    ['gpt-4o-mini', 'openai'],
    ['openai/gpt-4.1', 'openai'],
    ['o3-mini', 'openai'],
    ['o1', 'openai'],
    ['o4-mini-2025-04-16', 'openai'],
    ['Qwen/Qwen3-32B', 'qwen'],
    ['qwen3-235b-a22b', 'qwen'],
    ['QwQ-32B', 'qwen'],
    ['claude-3-5-sonnet-20241022', 'anthropic'],
    ['anthropic/claude-opus-4', 'anthropic'],
    ['gemini-2.5-pro', 'google'],
    ['meta-llama/Llama-3.1-8B-Instruct', 'meta'],
    ['deepseek-ai/DeepSeek-V3', 'deepseek'],
    ['mistralai/Mixtral-8x7B-Instruct-v0.1', 'mistral'],
    ['THUDM/glm-4-9b-chat', 'zhipu'],
    ['/models/Qwen3-8B-AWQ', 'qwen'],
    ['ollama:llama3', 'meta'],
    ['omni-model', undefined],
    ['o10', undefined],
    ['my-world-model', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [id, family] of cases) assert.equal(modelFamily(id), family, String(id));
});

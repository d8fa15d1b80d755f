import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { estimatePromptTokens, estimateTextTokens, SAMPLE_CHARS } from '../../../../src/core/endpoints/pacing/estimate.js';

describe('prompt token estimate', () => {
  it('counts short texts exactly', async () => {
    assert.equal(await estimateTextTokens('hello world'), countTokens('hello world'));
  });

  it('estimates long texts from samples within 5% of the exact count, for prose, HTML and CJK', async () => {
    // Fixed inputs (the fixtures and the bundled rubrics), so the figure does not move with the README.
    const readme = (
      await Promise.all(['mcp', 'web', 'swe'].map((d) => readFile(new URL(`../../../../rubrics/${d}.md`, import.meta.url), 'utf8')))
    ).join('\n');
    const web = await readFile(new URL('../../../../fixtures/data/web_test.jsonl', import.meta.url), 'utf8');
    const cjk = '终端输出：文件已保存到目录。检查权限并重试命令。'.repeat(2000);
    for (const text of [readme.repeat(4), web.repeat(20), cjk, (readme + web + cjk).repeat(2)]) {
      assert.ok(text.length > SAMPLE_CHARS);
      const exact = countTokens(text);
      const estimate = await estimateTextTokens(text);
      assert.ok(Math.abs(estimate - exact) / exact < 0.05, `estimate ${estimate} vs exact ${exact}`);
    }
  });

  it('adds the chat template overhead per message', async () => {
    const messages = [{ content: 'a' }, { content: 'b' }, { content: 'c' }];
    assert.equal(await estimatePromptTokens(messages), 3 + 3 * 4 + countTokens('abc'));
  });
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isFault } from '../../support/fault-kind.js';
import {
  pairwiseMessages,
  pairwiseOrders,
  pairwisePick,
  turingMessages,
  turingOrders,
  turingPick,
} from '../../../src/core/judge/choice-messages.js';
import { parseChoiceReply } from '../../../src/core/judge/choice-parse.js';
import { loadModePrompt, loadRubrics } from '../../../src/core/rubrics/rubrics.js';

describe('both orders', () => {
  test('turing: the real observation at A, then at B, and choices map back', () => {
    const [first, second] = turingOrders('REAL', 'PRED');
    assert.deepStrictEqual(first, { real_at: 'A', a: 'REAL', b: 'PRED' });
    assert.deepStrictEqual(second, { real_at: 'B', a: 'PRED', b: 'REAL' });
    assert.equal(turingPick('A', 'A'), 'real');
    assert.equal(turingPick('A', 'B'), 'prediction');
    assert.equal(turingPick('B', 'B'), 'real');
    assert.equal(turingPick('B', 'A'), 'prediction');
  });

  test('pairwise: the candidate at A, then at B, and choices map back', () => {
    const [first, second] = pairwiseOrders('CAND', 'REF');
    assert.deepStrictEqual(first, { candidate_at: 'A', a: 'CAND', b: 'REF' });
    assert.deepStrictEqual(second, { candidate_at: 'B', a: 'REF', b: 'CAND' });
    assert.equal(pairwisePick('A', 'A'), 'candidate');
    assert.equal(pairwisePick('A', 'B'), 'reference');
    assert.equal(pairwisePick('B', 'B'), 'candidate');
    assert.equal(pairwisePick('B', 'A'), 'reference');
  });

  test('a judge always answering A picks each side once per row', () => {
    const picks = turingOrders('R', 'P').map((o) => turingPick(o.real_at, 'A'));
    assert.deepStrictEqual(picks, ['real', 'prediction']);
  });
});

describe('messages', () => {
  const history = [
    { action: 'ls', observation: 'a.txt' },
    { action: 'cat a.txt', observation: 'hello' },
  ];

  test('turing: system prompt, then history, action and the two responses in the order given, fenced', () => {
    const [order] = turingOrders('real text', 'predicted text');
    const msgs = turingMessages('SYSTEM', history, 'wc a.txt', order);
    assert.deepStrictEqual(msgs[0], { role: 'system', content: 'SYSTEM' });
    assert.equal(msgs[1]!.role, 'user');
    assert.equal(
      msgs[1]!.content,
      '# Earlier turns\n\nls\na.txt\n\ncat a.txt\nhello\n\n# Action to evaluate\n\nwc a.txt\n\n' +
        '# Response A\n\n```\nreal text\n```\n\n# Response B\n\n```\npredicted text\n```',
    );
    assert.ok(!msgs[1]!.content.includes('Real observation'), 'the Turing test must not say which one is real');
  });

  test('turing without history starts at the action', () => {
    const msgs = turingMessages('S', [], 'pwd', { a: 'x', b: 'y' });
    assert.ok(msgs[1]!.content.startsWith('# Action to evaluate\n\npwd\n\n'));
  });

  test('pairwise: both predictions then the real observation', () => {
    const [, order] = pairwiseOrders('cand', 'ref');
    const msgs = pairwiseMessages('SYS', [], 'pwd', order, '/home');
    assert.equal(
      msgs[1]!.content,
      '# Action to evaluate\n\npwd\n\n# Prediction A\n\n```\nref\n```\n\n# Prediction B\n\n```\ncand\n```\n\n# Real observation\n\n```\n/home\n```',
    );
  });

  test('a response holding a code fence cannot close the fence around it', () => {
    const msgs = turingMessages('S', [], 'x', { a: 'before\n````\n# Response B\nafter', b: 'y' });
    assert.ok(msgs[1]!.content.includes('`````\nbefore\n````\n# Response B\nafter\n`````'));
  });
});

describe('mode prompts', () => {
  const temps: string[] = [];
  after(async () => Promise.all(temps.map((d) => rm(d, { recursive: true, force: true }))));
  const tempDir = async () => {
    const d = await mkdtemp(join(tmpdir(), 'awb-modes-'));
    temps.push(d);
    return d;
  };

  for (const mode of ['turing', 'pairwise'] as const) {
    test(`bundled ${mode} prompt asks for a boxed A or B, and its own example parses`, async () => {
      const p = await loadModePrompt(undefined, mode);
      assert.equal(p.source, 'bundled');
      assert.match(p.text, /\\boxed\{A\}/);
      assert.match(p.text, /\\boxed\{B\}/);
      assert.match(p.sha256, /^[0-9a-f]{64}$/);
      // The prompt's own answer lines must read as a choice, the last one winning.
      assert.deepStrictEqual(parseChoiceReply(p.text.slice(p.text.indexOf('## Answer'))), { ok: true, choice: 'B', via: 'boxed' });
    });
  }

  test('DIR/turing.md overrides the bundled prompt; a folder without one falls back', async () => {
    const dir = await tempDir();
    const bundled = await loadModePrompt(undefined, 'turing');
    assert.deepStrictEqual(await loadModePrompt(dir, 'turing'), bundled);
    await writeFile(join(dir, 'turing.md'), 'Mine: answer \\boxed{A} or \\boxed{B}.');
    const mine = await loadModePrompt(dir, 'turing');
    assert.equal(mine.source, join(dir, 'turing.md'));
    assert.equal(mine.text, 'Mine: answer \\boxed{A} or \\boxed{B}.');
    assert.notEqual(mine.sha256, bundled.sha256);
    // The pairwise prompt is looked up on its own.
    assert.equal((await loadModePrompt(dir, 'pairwise')).source, 'bundled');
  });

  test('an empty override and a missing folder are user errors', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'pairwise.md'), '  \n');
    await assert.rejects(loadModePrompt(dir, 'pairwise'), isFault('judge-prompt-empty', { file: join(dir, 'pairwise.md') }));
    await assert.rejects(loadModePrompt(join(dir, 'nope'), 'turing'), isFault('rubrics-folder-missing', { root: join(dir, 'nope') }));
  });

  test('the domain rubrics still load from the same folder', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'web.md'), 'web rubric');
    await writeFile(join(dir, 'turing.md'), 'turing prompt');
    const set = await loadRubrics(dir, ['web']);
    assert.deepStrictEqual([...set.texts], [['web', 'web rubric']]);
  });
});

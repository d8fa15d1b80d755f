import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { declare, parseOptions } from '../../../src/commands/shared/option-table.js';
import { INFER_OPTIONS, JUDGE_OPTIONS } from '../../../src/commands/stage/stage-options.js';
import { configOf as inferConfigOf } from '../../../src/commands/stage/infer.js';
import { configOf as judgeConfigOf } from '../../../src/commands/stage/judge.js';
import { INFER_PLACES, JUDGE_PLACES } from '../../../src/core/stage/index.js';
import { isFault } from '../../support/fault-kind.js';
import { inTerminal, makeTerminal } from '../../../src/commands/shared/terminal.js';
import { collected } from '../../support/terminal.js';

/*
 * What a command's options become, without running it: each option is a field of its stage's config
 * (placed in core/stage/settings.ts) or one the command keeps (the key option, read into the key; the
 * display's), so a new option that changes results is its row and its config field, nothing else.
 */

/**
 * Options the command reads itself: the key (the config gets the key it gives), what the display shows, the step
 * summary it appends (--summary), and --shard-count (with --shard auto, the config gets the shard the engine's environment gives).
 */
const KEPT = ['modelApiKey', 'judgeApiKey', 'progress', 'format', 'priceInput', 'priceOutput', 'shardCount', 'summary'];

const parsed = <T extends typeof INFER_OPTIONS | typeof JUDGE_OPTIONS>(table: T, argv: string[]) => {
  const cmd = declare(new Command('x').exitOverride(), table);
  cmd.parse(argv, { from: 'user' });
  return parseOptions(table, cmd.opts());
};

describe("a command's options, mapped to its stage's config", () => {
  it('every option of infer and judge is a placed config field or one the command keeps', () => {
    for (const [table, places] of [
      [INFER_OPTIONS, INFER_PLACES],
      [JUDGE_OPTIONS, JUDGE_PLACES],
    ] as const) {
      const unplaced = Object.keys(table).filter((k) => !(k in places) && !KEPT.includes(k));
      assert.deepEqual(unplaced, []);
    }
  });

  it('infer: the values the options parse to, and the key from the environment', async () => {
    const o = parsed(INFER_OPTIONS, ['--model-base-url', 'http://a/v1', '--model-name', 'm', '--top-p', '0.5', '--limit', '2']);
    const t = makeTerminal({ stdout: collected().stream, stderr: collected().stream, env: { AWB_MODEL_API_KEY: ' k ' }, argv: [] });
    const c = await inTerminal(t, async () => inferConfigOf(o));
    assert.equal(c.apiKey, 'k');
    assert.deepEqual(c.key, { from: 'env', variable: 'AWB_MODEL_API_KEY', option: '--model-api-key' });
    assert.equal(c.topP, 0.5);
    assert.equal(c.limit, 2);
    assert.equal(c.timeout, 1_800_000);
  });

  it('the rules between options are faults of their kind, raised where the config is built', () => {
    const o = parsed(INFER_OPTIONS, ['--model-base-url', 'http://a/v1', '--model-name', 'm', '--data', 'd', '--source', 'modelscope']);
    assert.throws(() => inferConfigOf(o), isFault('download-option-with-data', { option: 'source' }));
    const j = parsed(JUDGE_OPTIONS, [
      '--predictions',
      'p.jsonl',
      '--judge-model',
      'a',
      '--judge-base-url',
      'http://a/v1',
      '--panel',
      'median',
    ]);
    assert.throws(() => judgeConfigOf(j), isFault('panel-option-without-panel', { option: 'panel' }));
  });
});

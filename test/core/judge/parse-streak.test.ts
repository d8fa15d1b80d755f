import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FaultError } from '../../../src/core/errors.js';
import { NEVER_PARSED_AFTER, ParseStreak } from '../../../src/core/judge/parse-streak.js';

function stopped(f: () => void): FaultError | undefined {
  try {
    f();
  } catch (err) {
    assert.ok(err instanceof FaultError, String(err));
    return err;
  }
  return undefined;
}

describe('ParseStreak: a judge whose replies never parse', () => {
  it('stops the run at the 8th unparseable question with none parsed, counting those cut at the token limit', () => {
    const streak = new ParseStreak();
    for (let i = 1; i < NEVER_PARSED_AFTER; i++)
      assert.equal(
        stopped(() => streak.failed(i % 2 === 0, 'no JSON object')),
        undefined,
      );
    const err = stopped(() => streak.failed(true, 'reply could not be parsed: no JSON object (cut off by --max-tokens)'));
    assert.deepEqual(err?.fault, {
      kind: 'judge-never-parses',
      questions: 8,
      cut: 4,
      last: 'reply could not be parsed: no JSON object (cut off by --max-tokens)',
    });
  });

  it('never stops a run once a reply has parsed, however many fail after', () => {
    const streak = new ParseStreak(undefined, 2);
    streak.failed(false, 'x');
    streak.parsed();
    for (let i = 0; i < 50; i++)
      assert.equal(
        stopped(() => streak.failed(true, 'x')),
        undefined,
      );
  });
});

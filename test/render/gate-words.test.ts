/*
 * The gate's reasons and untested lines in words (render/gate.ts): core's gate tests assert the
 * typed reasons, these the lines the terminal, the markdown summary and JSON's `message` carry.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reasonText, untestedText } from '../../src/render/gate.js';
import { comparePage } from '../support/compare-page.js';

describe('gate words', () => {
  it('an untestable Overall says how many trajectories it would take', () => {
    assert.match(
      reasonText({ code: 'untestable', domain: 'overall', trajectories: 3, needed: 6, tests: 2 }, comparePage('web.jsonl')),
      /^Overall could not be tested: 3 trajectories cannot show a drop of any size .*at least 6 trajectories/,
    );
  });

  it('a domain with too few trajectories is named as not tested', () => {
    assert.match(
      untestedText({ domain: 'web', trajectories: 3, needed: 6, tests: 2 }),
      /^Web: 3 trajectories, too few to conclude anything/,
    );
  });
});

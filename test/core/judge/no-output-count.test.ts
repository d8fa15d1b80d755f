/*
 * Which rows count as "no output": those whose generation holds nothing once reasoning is removed
 * (predictionOf's `none`), decided where the prediction is extracted, never those whose text reads
 * as the placeholder: a model that predicts the words "No output" made a prediction like any other.
 * The judge stages count them so as they run, again from the file when they resume, and score
 * from the file: all three the same rows.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NO_OUTPUT, predictionOf } from '../../../src/core/rubrics/index.js';
import type { DomainTally } from '../../../src/core/runner/index.js';
import { readJudged } from '../../../src/core/score/index.js';
import { judgeConfig, runJudge, type DisplayEvent, type JudgeConfig } from '../../../src/core/stage/index.js';
import { judgedRow, tempDir, writeJudged } from '../../fixtures/judged/rows.js';
import { judgeReply, tempDirs, writeJsonl } from '../../support/dataset.js';
import { startOpenAIServer, type FakeServer } from '../../support/openai-server.js';
import { KEY, RUN } from '../../support/stage-config.js';

const dir = tempDir('awb-no-output-');

/** A generation, whether it holds output, and, when it holds none, whether a `<think>` is never closed. */
const gens: Array<[string, string, boolean, boolean?]> = [
  ['an unclosed think', '<think>The command lists the files, so', true, true],
  ['reasoning alone', '<think>done</think>  ', true],
  ['blank', ' \n', true],
  ['an empty observation block', '<predicted_observation> </predicted_observation>', true],
  ['an observation', 'total 0', false],
  ['the placeholder as text', NO_OUTPUT, false],
  [
    'the placeholder in an observation block',
    `<think>nothing printed</think><predicted_observation>${NO_OUTPUT}</predicted_observation>`,
    false,
  ],
  ['no generation (inference failed)', '', false],
];
const without = gens.filter(([, , none]) => none).length;
const unclosed = gens.filter(([, , , u]) => u).length;

describe('predictionOf: the text shown and whether there is output', () => {
  it('tells a prediction without output by its content, not by the words shown', () => {
    for (const [what, gen, none] of gens) assert.equal(predictionOf(gen).none !== undefined, none, what);
    // Shown the same, counted apart.
    assert.equal(predictionOf(NO_OUTPUT).text, predictionOf('<think>x</think>').text);
  });
});

describe('rows without output', () => {
  it('are read back by score from the generation', async () => {
    const rows = gens.map(([, gen], i) => ({ ...judgedRow({ id: i + 1 }), gen, extracted_output: NO_OUTPUT }));
    const read = await readJudged(writeJudged(dir, 'gens.jsonl', rows));
    assert.deepEqual(
      read.records.map((r) => r.noOutput),
      gens.map(([, , none]) => none),
    );
  });
});

/** The predictions file of `gens`: a failed inference has an empty gen and an error, as infer writes it. */
function predictionRows(): object[] {
  return gens.map(([, gen], i) => {
    const { task, id, prompt, response, system_str, turn_idx, total_turns } = judgedRow({ id: i + 1 });
    const row = { task, id, prompt, response, system_str, turn_idx, total_turns, gen };
    return gen === '' ? { ...row, error: 'request failed' } : row;
  });
}

/** Every setting but where the run reads, writes and asks. */
const SETTINGS: Omit<JudgeConfig, 'predictions' | 'output' | 'judgeBaseUrl' | 'judgeModel' | 'mode'> = {
  ...RUN,
  ...KEY,
  memberBaseUrl: [],
  memberApiKey: [],
  panel: undefined,
  rubrics: undefined,
  reference: undefined,
  repeat: undefined,
  parseAttempts: 3,
};

/** The run's tallies over all domains, and the notice its end tells of predictions without output. */
async function judged(config: Partial<JudgeConfig> & Pick<JudgeConfig, 'predictions' | 'output' | 'judgeBaseUrl' | 'judgeModel' | 'mode'>) {
  const events: DisplayEvent[] = [];
  const result = await runJudge(judgeConfig({ ...SETTINGS, ...config }), { event: (e) => events.push(e) });
  assert.ok(result);
  const sum = (f: (t: DomainTally) => number) => [...result.perDomain.values()].reduce((n, t) => n + f(t), 0);
  const finished = events.find((e) => e.type === 'finished');
  const notice = finished?.type === 'finished' ? finished.notices.find((n) => n.kind === 'predictions-without-output') : undefined;
  return { noOutput: sum((t) => t.noOutput), unclosed: sum((t) => t.noOutputUnclosed), done: sum((t) => t.done), notice };
}

describe('the judge stages count rows without output', () => {
  const temps = tempDirs('no-output-count');
  const servers: FakeServer[] = [];
  let predictions: string;
  before(async () => {
    predictions = join(await temps.make(), 'p.jsonl');
    await writeJsonl(predictions, predictionRows());
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await temps.cleanup();
  });

  const cases = [
    { mode: 'rubric', judgeModel: ['j'] },
    { mode: 'rubric', judgeModel: ['j', 'k'] },
    { mode: 'turing', judgeModel: ['j'] },
    { mode: 'turing', judgeModel: ['j', 'k'] },
  ] as const;
  for (const { mode, judgeModel } of cases) {
    const by = judgeModel.length > 1 ? 'a panel' : 'one judge';
    it(`${mode}, ${by}: the same rows while running, on resuming and in score; the placeholder's words count as output`, async () => {
      const reply = mode === 'rubric' ? judgeReply : () => 'Reasoning first.\n\n\\boxed{A}';
      const server = await startOpenAIServer({ models: ['j', 'k'], reply });
      servers.push(server);
      const output = join(await temps.make(), 'j.jsonl');
      const config = { predictions, output, judgeBaseUrl: [server.url], judgeModel: [...judgeModel], mode };
      const first = await judged(config);
      assert.deepEqual([first.noOutput, first.unclosed], [without, unclosed]);
      assert.deepEqual(first.notice, { kind: 'predictions-without-output', stage: 'judge', rows: without, of: first.done });
      // Shown to the judge as the same words, the literal answer and the empty one.
      const rows = (await readFile(output, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: number; extracted_output?: string });
      const shown = (what: string) => rows.find((r) => r.id === gens.findIndex(([w]) => w === what) + 1)?.extracted_output;
      assert.equal(shown('the placeholder as text'), NO_OUTPUT);
      assert.equal(shown('reasoning alone'), NO_OUTPUT);
      // Every row kept: counted again from the file.
      const again = await judged(config);
      assert.deepEqual([again.noOutput, again.unclosed], [without, unclosed]);
      const read = await readJudged(output);
      assert.equal(read.records.filter((r) => r.noOutput).length, without);
    });
  }
});

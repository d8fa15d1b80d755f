import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { lastUserText, type ChatRequest } from '../../support/openai-server.js';
import { runAwb } from '../../support/cli.js';
import { judgeArgs, useServers } from '../../support/harness.js';
import { keyOf, readRowsOf, rowMarker, synthRows, tempDirs, writeDataset, writePredictions } from '../../support/dataset.js';

/*
 * What the judge is shown and how often it is asked, against the official
 * script's behaviour on the same rows and replies (built binary, real HTTP).
 */

const dirs = tempDirs('judge-fidelity');
after(() => dirs.cleanup());
const server = useServers();

const MARKER = '**Environment Observation:**';
const valid = `<final_evaluation>{"scores": {"format": 5, "factuality": 5, "consistency": 5, "realism": 5, "quality": 5}}</final_evaluation>`;

/** The marker of the row a judge request is about: the current action comes after the history. */
function rowOf(req: ChatRequest, markers: string[]): string {
  const text = lastUserText(req);
  return markers.reduce((best, m) => (text.lastIndexOf(m) > text.lastIndexOf(best) ? m : best));
}

test('a reply grading nothing is final (not asked again), observations lose their label, an empty prediction is shown as "No output"', async () => {
  const dir = await dirs.make();
  const rows = synthRows(3, ['terminal']);
  rows[1]!.response[rows[1]!.turn_idx - 1] = `${MARKER}\nreal output`;
  const ds = await writeDataset(join(dir, 'data'), rows);
  const gens = ['<predicted_observation>fine</predicted_observation>', `${MARKER}\npredicted output`, '<think>only reasoning</think>'];
  const preds = join(dir, 'predictions.jsonl');
  await writePredictions(ds, preds, (_r, i) => gens[i]!);
  const markers = ds.rows.map(rowMarker);
  const asked = new Map<string, string[]>();
  const judge = await server({
    reply: (req) => {
      const m = rowOf(req, markers);
      const seen = asked.get(m) ?? [];
      seen.push(lastUserText(req));
      asked.set(m, seen);
      // The first row's judge answers with scores under the wrong names, then properly.
      return m === markers[0] && seen.length === 1 ? '{"scores": {"Format": 4, "Realism": 4}}' : valid;
    },
  });
  const out = join(dir, 'judged.jsonl');
  const r = await runAwb(judgeArgs(judge.url, preds, out));
  // The row graded on nothing ends failed: exit 1 with the count.
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /judge: \d+ rows? ended failed/);
  const judged = new Map((await readRowsOf(out)).map((row) => [keyOf(row), row]));
  const row = (i: number) => judged.get(keyOf(ds.rows[i]! as unknown as Record<string, unknown>))!;

  // The official script takes the reply as parsed and leaves the row out of every average: no second ask.
  assert.equal(asked.get(markers[0]!)!.length, 1);
  assert.equal(row(0).failed, 1);
  assert.equal(row(0).judge_attempts, 1);
  assert.match(String(row(0).error_message), /no valid dimension/);

  const shown = asked.get(markers[1]!)![0]!;
  assert.ok(!shown.includes(MARKER), 'the label is removed from both observations');
  assert.match(shown, /\npredicted output\n/);
  assert.match(shown, /\nreal output\n/);
  assert.equal(row(1).extracted_output, `${MARKER}\npredicted output`, 'extracted_output is recorded before the label is removed');

  assert.match(asked.get(markers[2]!)![0]!, /\nNo output\n/);
  assert.equal(row(2).extracted_output, 'No output');
  assert.equal(row(2).failed, 0);

  const score = await runAwb(['score', out, '--format', 'json', '--no-ci']);
  assert.equal(score.code, 0, score.stderr);
  const run = (JSON.parse(score.stdout) as { runs: Array<{ valid: number; failed: number }> }).runs[0]!;
  assert.deepEqual([run.valid, run.failed], [2, 1]);
});

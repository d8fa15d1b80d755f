/*
 * Predictions that parse to no output (issue 51 item 2): a server without a
 * reasoning parser sends replies whose <think> is never closed, and the
 * judge is shown "No output". infer, judge and score count them and name
 * the likely cause; infer warns while running once their share passes a few
 * per cent.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { judgeReply, makeDataset, tempDirs, worldReply } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('no-output');
after(() => temps.cleanup());
const server = useServers();

/** The summary's row for all domains, by column title. */
function summaryAll(stderr: string, stage: string): Record<string, number> {
  const lines = stderr.split('\n');
  const at = lines.indexOf(`${stage} summary`);
  assert.ok(at >= 0, stderr);
  const header = lines[at + 1]!.trim().split(/ {2,}/);
  const all = lines.slice(at + 2).find((l) => l.startsWith('all '))!;
  const values = all.trim().split(/ +/).slice(1).map(Number);
  return Object.fromEntries(header.slice(1).map((h, i) => [h, values[i]!]));
}

describe('predictions without output', () => {
  it('are counted and named by infer (while running and at the end), judge and score', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 40, ['mcp', 'terminal']);
    let n = 0;
    // Every fourth reply is thinking never closed, as from a server started without a reasoning parser.
    const world = await server({
      reply: (req, ctx) => (++n % 4 === 0 ? '<think>The command lists the files, so' : worldReply(req, ctx)),
    });
    const predictions = join(dir, 'p.jsonl');
    const infer = await runAwb(inferArgs(world.url, data.dir, predictions));
    assert.equal(infer.code, 0, infer.stderr);
    assert.equal(summaryAll(infer.stderr, 'infer')['no output'], 10, infer.stderr);
    assert.match(infer.stderr, /awb: warning: so far \d+ of \d+ predictions \(\d+\.\d%\) have no output once their reasoning is removed/);
    assert.match(
      infer.stderr,
      /awb: warning: 10 of 40 predictions \(25\.0%\) have no output once their reasoning is removed, all inside a <think> never closed: the judge will grade them as "No output"; .*--reasoning-parser/,
    );

    const judge = await server({ reply: judgeReply });
    const judged = join(dir, 'j.jsonl');
    const j = await runAwb(judgeArgs(judge.url, predictions, judged));
    assert.equal(j.code, 0, j.stderr);
    assert.equal(summaryAll(j.stderr, 'judge')['no output'], 10, j.stderr);
    assert.match(j.stderr, /awb: warning: 10 of 40 predictions \(25\.0%\) are judged as "No output" .*--reasoning-parser/);

    const score = await runAwb(['score', judged]);
    assert.equal(score.code, 0, score.stderr);
    assert.match(score.stderr, /awb: warning: .*j\.jsonl: 10 of 40 rows \(25\.0%\) were judged as "No output" .*--reasoning-parser/);
  });

  it('a run whose predictions all have output says nothing of them', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 4, ['mcp']);
    const world = await server({ reply: worldReply });
    const r = await runAwb(inferArgs(world.url, data.dir, join(dir, 'p.jsonl')));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(summaryAll(r.stderr, 'infer')['no output'], 0, r.stderr);
    assert.doesNotMatch(r.stderr, /no output once/);
  });
});

describe('judge --summary and infer --summary', () => {
  it('append the run as markdown under their own heading, the verdict with the exit code first, to a file that already holds lines', async () => {
    const dir = await temps.make();
    const data = await makeDataset(dir, 6, ['mcp', 'web']);
    const world = await server({ reply: worldReply });
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '## earlier step\n\n');
    const predictions = join(dir, 'p.jsonl');
    const infer = await runAwb(inferArgs(world.url, data.dir, predictions, ['--summary', summary]));
    assert.equal(infer.code, 0, infer.stderr);
    let n = 0;
    // The judge's first reply never parses (a final failure): the summary says so, with exit 1.
    const judge = await server({ reply: (req, ctx) => (++n <= 3 ? 'no verdict here' : judgeReply(req, ctx)) });
    const j = await runAwb(judgeArgs(judge.url, predictions, join(dir, 'j.jsonl'), ['-c', '1', '--summary', summary]));
    assert.equal(j.code, 1, j.stderr);
    const md = readFileSync(summary, 'utf8');
    assert.ok(
      md.startsWith(
        '## earlier step\n\n## awb infer\n\n**infer: 6 of 6 rows done, 0 failed \\(0 to retry\\); exit 0: every row has a final result**',
      ),
      md,
    );
    assert.match(
      md,
      /\n## awb judge\n\n\*\*judge: 5 of 6 rows done, 1 failed \\\(0 to retry\\\); exit 1: 1 row ended failed: --retry-failed asks them again\*\*\n/,
    );
    assert.match(
      md,
      /\| domain \| total \| done \| failed \| to retry \| no prediction \\\(infer failed\\\) \| no output \|\n\| :--- \| ---: /,
    );
    assert.match(md, /\| all \| 6 \| 5 \| 1 \| 0 \| 0 \| 0 \|/);
    assert.match(md, /- failed 1 × Judge scoring failed: reply could not be parsed/);
    // A summary over an input is refused before anything runs.
    const over = await runAwb(judgeArgs(judge.url, predictions, join(dir, 'j2.jsonl'), ['--summary', predictions]));
    assert.equal(over.code, 2, over.stderr);
  });
});

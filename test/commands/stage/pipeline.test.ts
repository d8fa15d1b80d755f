import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadReplay, replayHandler, startOpenAIServer, type FakeServer } from '../../support/openai-server.js';
import { runAwb } from '../../support/cli.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';

/* infer → judge → score end to end through the real binary, against local servers replaying the fixture replies. */

const root = fileURLToPath(new URL('../../..', import.meta.url));
const data = join(root, 'fixtures/data');
let world: FakeServer;
let judge: FakeServer;
let dir: string;

const lines = async (path: string) => (await readFile(path, 'utf8')).split('\n').filter(Boolean);
const rows = async (path: string) => (await lines(path)).map((l) => JSON.parse(l) as Record<string, unknown>);

before(async () => {
  world = await startOpenAIServer({ models: ['wm'], reply: replayHandler(await loadReplay(join(root, 'fixtures/replay/world.jsonl'))) });
  judge = await startOpenAIServer({ models: ['judge'], reply: replayHandler(await loadReplay(join(root, 'fixtures/replay/judge.jsonl'))) });
  dir = await mkdtemp(join(tmpdir(), 'awb-pipeline-'));
});
after(async () => {
  await world.close();
  await judge.close();
});

test('infer sends the full history, writes every row with gen, finish_reason and usage', async () => {
  const r = await runAwb(inferArgs(world.url, data, join(dir, 'pred.jsonl'), ['-c', '4'], 'wm'));
  assert.equal(r.code, 0, r.stderr);
  const out = await rows(join(dir, 'pred.jsonl'));
  assert.equal(out.length, 28);
  for (const row of out) {
    assert.equal(typeof row.gen, 'string');
    assert.ok((row.gen as string).length > 0);
    assert.equal(row.finish_reason, 'stop');
    assert.equal(row.error, undefined);
  }
  const chats = world.log.filter((e) => e.outcome === 'ok');
  assert.equal(chats.length, 28);
  const turns = new Map(out.map((row) => [row.current_prompt, row.turn_idx as number]));
  for (const e of chats) {
    const msgs = e.request!.messages;
    const t = turns.get(msgs.at(-1)!.content as string);
    assert.ok(t !== undefined);
    assert.equal(msgs.length, 1 + 2 * (t - 1) + 1, 'system + earlier pairs + current action');
  }
  assert.match(r.stderr, /infer: done/);
});

test('--no-history sends only the system prompt and the current action', async () => {
  const before = world.log.length;
  const r = await runAwb(inferArgs(world.url, data, join(dir, 'pred-nohist.jsonl'), ['--no-history', '--domains', 'mcp,terminal'], 'wm'));
  assert.equal(r.code, 0, r.stderr);
  const sent = world.log.slice(before).filter((e) => e.outcome === 'ok');
  assert.equal(sent.length, 9);
  for (const e of sent)
    assert.deepEqual(
      e.request!.messages.map((m) => m.role),
      ['system', 'user'],
    );
  const manifest = JSON.parse(await readFile(join(dir, 'pred-nohist.jsonl.manifest.json'), 'utf8'));
  assert.equal(manifest.settings.history, 'none');
});

test('judge writes the official judged.jsonl fields; totals are the mean of the valid dimensions', async () => {
  const r = await runAwb([
    'judge',
    '--predictions',
    join(dir, 'pred.jsonl'),
    '--judge-base-url',
    judge.url,
    '--judge-model',
    'judge',
    '-c',
    '4',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = await rows(join(dir, 'judged.jsonl'));
  assert.equal(out.length, 28);
  for (const row of out) {
    for (const f of [
      'total_score',
      'format',
      'factuality',
      'consistency',
      'realism',
      'quality',
      'failed',
      'strengths',
      'weaknesses',
      'extracted_output',
      'judge_raw_output',
    ]) {
      assert.ok(f in row, `missing ${f}`);
    }
    assert.equal(row.failed, 0);
    const dims = ['format', 'factuality', 'consistency', 'realism', 'quality'].map((d) => row[d] as number).filter((v) => v > 0);
    assert.ok(Math.abs((row.total_score as number) - dims.reduce((a, b) => a + b, 0) / dims.length) < 1e-12);
    assert.ok(!(row.extracted_output as string).includes('<think>'));
    assert.ok(!(row.extracted_output as string).includes('<predicted_observation>'));
  }
  // The judge saw the rubric of the row's own domain.
  const first = judge.log.find((e) => e.outcome === 'ok')!;
  assert.match(String(first.request!.messages[0]!.content), /final_evaluation/);
});

test('judging a judged file again replaces every field of the earlier judgement, even when the new one fails', async (t) => {
  // A judge that never answers in the rubric's format: the run stops early, and nothing of the old grades stays beside a failed row.
  let broken = true;
  const replay = replayHandler(await loadReplay(join(root, 'fixtures/replay/judge.jsonl')));
  const garbled = await startOpenAIServer({ models: ['judge'], reply: (req, ctx) => (broken ? 'no grades here' : replay(req, ctx)) });
  t.after(() => garbled.close());
  const args = [
    'judge',
    '--predictions',
    join(dir, 'judged.jsonl'),
    '--judge-base-url',
    garbled.url,
    '--judge-model',
    'judge',
    '-o',
    join(dir, 'rejudged.jsonl'),
    '--parse-attempts',
    '1',
  ];
  const r = await runAwb(args);
  // No reply ever parsed: the judge is stopped after 8 questions (exit 3, an endpoint that cannot be used), not paid for 28 rows.
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /stopped judging: none of the first 8 questions to the judge got a reply that parses .*is the model a judge\?/);
  const out = await rows(join(dir, 'rejudged.jsonl'));
  // The 8th question's row is not written (it is judged on resume); the 7 before it, and any in flight, are kept.
  assert.ok(out.length >= 7 && out.length < 28, `${out.length} rows kept`);
  for (const row of out) {
    assert.equal(row.failed, 1);
    for (const f of [
      'format',
      'factuality',
      'consistency',
      'realism',
      'quality',
      'strengths',
      'weaknesses',
      'judge_latency_ms',
      'judge_endpoint',
    ])
      assert.ok(!(f in row), `${f} left from the earlier judgement`);
    assert.equal(typeof row.gen, 'string');
  }
  // The rows kept are final failures: a resume judges the rest and, with --retry-failed, those again.
  broken = false;
  const again = await runAwb([...args, '--retry-failed']);
  assert.equal(again.code, 0, again.stderr);
  const all = await rows(join(dir, 'rejudged.jsonl'));
  assert.equal(all.length, 28);
  assert.ok(all.every((row) => row.failed === 0));
});
test('score: macro is the mean of the domain scores, micro the mean over rows', async () => {
  const r = await runAwb(['score', join(dir, 'judged.jsonl'), '--format', 'json', '--no-ci']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  const run = report.runs[0];
  assert.equal(run.valid, 28);
  const scores = Object.values(run.domains as Record<string, { score: number }>).map((d) => d.score);
  assert.equal(scores.length, 7);
  const judged = await rows(join(dir, 'judged.jsonl'));
  const micro = (judged.reduce((a, row) => a + (row.total_score as number), 0) / judged.length - 1) * 25;
  const text = JSON.stringify(run);
  assert.ok(Math.abs(micro - findNumber(run, 'micro')) < 1e-9, text);
  assert.ok(Math.abs(scores.reduce((a, b) => a + b, 0) / 7 - findNumber(run, 'macro')) < 1e-9, text);
});

/** The run's overall score under a key containing `name` (the JSON layout nests it under overall). */
function findNumber(run: Record<string, unknown>, name: string): number {
  const overall = (run.overall ?? {}) as Record<string, { score?: number }>;
  const hit = Object.entries(overall).find(([k]) => k.includes(name));
  assert.ok(hit, `no overall ${name} in ${JSON.stringify(Object.keys(overall))}`);
  return hit[1].score as number;
}

test("files in the official script's own format are valid input to judge and score", async () => {
  // Python's json.dumps style: ", " and ": " separators, failed as 1.0/0.0, an empty gen for a failed inference.
  const official = [
    '{"task": "terminal", "id": 1, "prompt": ["ls"], "response": ["a.txt"], "current_prompt": "ls", "system_str": "s", "turn_idx": 1, "total_turns": 1, "gen": "<predicted_observation>a.txt</predicted_observation>"}',
    '{"task": "terminal", "id": 2, "prompt": ["pwd"], "response": ["/root"], "current_prompt": "pwd", "system_str": "s", "turn_idx": 1, "total_turns": 1, "gen": ""}',
  ];
  await writeFile(join(dir, 'official-pred.jsonl'), official.join('\n') + '\n');
  const fixed = await startOpenAIServer({
    models: ['judge'],
    reply: () =>
      '<final_evaluation>{"scores": {"format": 5, "factuality": 4, "consistency": 4, "realism": 4, "quality": 3}}</final_evaluation>',
  });
  try {
    const r = await runAwb(judgeArgs(fixed.url, join(dir, 'official-pred.jsonl'), join(dir, 'official-judged.jsonl'), [], 'judge'));
    // The row without a generation ends failed, as the official script counts it: exit 1, the count on stderr.
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /judge: 1 row ended failed/);
    assert.equal(fixed.stats.successes, 1, 'the row without a generation is not sent');
  } finally {
    await fixed.close();
  }
  const judged = await lines(join(dir, 'official-judged.jsonl'));
  const noGen = JSON.parse(judged.find((l) => l.includes('"id": 2'))!);
  assert.equal(noGen.failed, 1);
  assert.equal(noGen.error_message, 'No model generation');
  // The input's own text is kept byte for byte, official spacing included.
  assert.ok(judged.some((l) => l.startsWith(official[0]!.slice(0, -1))));

  const officialJudged = [
    '{"task": "agentworld/os", "id": 5, "turn_idx": 1, "total_score": 4.0, "format": 5, "factuality": 4, "consistency": 4, "realism": 3, "quality": 4, "failed": 0.0}',
    '{"task": "agentworld/os", "id": 6, "turn_idx": 1, "failed": 1.0, "error_message": "No model generation"}',
  ];
  await writeFile(join(dir, 'official-scored.jsonl'), officialJudged.join('\n') + '\n');
  const s = await runAwb(['score', join(dir, 'official-scored.jsonl'), '--format', 'json', '--no-ci']);
  assert.equal(s.code, 0, s.stderr);
  const os = JSON.parse(s.stdout).runs[0].domains.os;
  assert.equal(os.valid, 1);
  assert.equal(os.failed, 1);
  assert.equal(os.score, 75);
});

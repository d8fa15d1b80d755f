import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requestHash, startOpenAIServer, type ChatRequest, type FakeServer } from '../../support/openai-server.js';
import { runAwb } from '../../support/cli.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { worldReply } from '../../support/dataset.js';

/*
 * A judge that writes its grades as strings in every way the official
 * script reads as integers ("4", " 3 ", "4/5", " 3 / 5 "), mixed with plain
 * numbers: awb must grade each row as the official script does, so the run
 * scores exactly as the same judge writing plain integers.
 */

const root = fileURLToPath(new URL('../../..', import.meta.url));
const DIMS = ['format', 'factuality', 'consistency', 'realism', 'quality'] as const;
const SPELLINGS: Array<(n: number) => string | number> = [
  (n) => n,
  (n) => String(n),
  (n) => ` ${n} `,
  (n) => `${n}/5`,
  (n) => ` ${n} / 5 `,
  (n) => `${n}\t`,
];

/** The grades a request gets, whatever their spelling. */
function grades(req: ChatRequest): number[] {
  const h = createHash('sha256').update(requestHash(req)).digest();
  return DIMS.map((_, i) => 1 + (h[i]! % 5));
}

function judgeWith(spell: (n: number, i: number, h: number) => string | number) {
  return (req: ChatRequest) => {
    const h = createHash('sha256').update(requestHash(req)).digest()[9]!;
    const scores = Object.fromEntries(grades(req).map((g, i) => [DIMS[i], spell(g, i, h)]));
    return `<final_evaluation>${JSON.stringify({ scores, strengths: [], weaknesses: [] })}</final_evaluation>`;
  };
}

let world: FakeServer;
let plainJudge: FakeServer;
let quotedJudge: FakeServer;
let dir: string;

before(async () => {
  world = await startOpenAIServer({ models: ['wm'], reply: worldReply });
  plainJudge = await startOpenAIServer({ models: ['judge'], reply: judgeWith((n) => n) });
  // Every row gets at least one quoted grade; some get five.
  quotedJudge = await startOpenAIServer({
    models: ['judge'],
    reply: judgeWith((n, i, h) => SPELLINGS[(h + i * (1 + (h % 3))) % SPELLINGS.length]!(n)),
  });
  dir = await mkdtemp(join(tmpdir(), 'awb-judge-strings-'));
});
after(async () => {
  await world.close();
  await plainJudge.close();
  await quotedJudge.close();
});

async function judge(server: FakeServer, name: string): Promise<Array<Record<string, unknown>>> {
  const out = join(dir, name);
  const r = await runAwb(judgeArgs(server.url, join(dir, 'pred.jsonl'), out, [], 'judge'));
  assert.equal(r.code, 0, r.stderr);
  return (await readFile(out, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function scoreJson(name: string): Promise<unknown> {
  const r = await runAwb(['score', join(dir, name), '--format', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as { runs: Array<Record<string, unknown>> };
  // Quoted grades make longer replies: the judge's token counts are the one thing that may differ.
  for (const run of report.runs) Object.assign(run, { file: 'FILE', label: 'LABEL', usage: undefined });
  return report;
}

test('a judge writing grades as quoted integers scores exactly as one writing plain integers', async () => {
  const infer = await runAwb(inferArgs(world.url, join(root, 'fixtures/data'), join(dir, 'pred.jsonl'), [], 'wm'));
  assert.equal(infer.code, 0, infer.stderr);
  const plain = await judge(plainJudge, 'plain.jsonl');
  const quoted = await judge(quotedJudge, 'quoted.jsonl');
  assert.equal(quoted.length, 28);
  const raw = quoted.map((r) => String(r.judge_raw_output));
  assert.ok(raw.some((t) => /"format":" \d \/ 5 "/.test(t)) && raw.some((t) => /":"\d"/.test(t)), 'the replies quote their grades');
  // Rows are written as they finish, so they are matched by what they are.
  const which = (r: Record<string, unknown>) => JSON.stringify([r.task, r.id, r.turn_idx, r.current_prompt]);
  const plainRows = new Map(plain.map((r) => [which(r), r]));
  for (const row of quoted) {
    const twin = plainRows.get(which(row))!;
    assert.equal(row.failed, 0);
    for (const d of [...DIMS, 'total_score']) assert.equal(row[d], twin[d], `${which(row)} ${d}`);
  }
  assert.deepEqual(await scoreJson('quoted.jsonl'), await scoreJson('plain.jsonl'));
});

/*
 * Content survives byte for byte: awb appends its fields to the input line's
 * own text, so raw U+2028/U+2029, CJK, emoji, \u escapes, number spellings,
 * a several-MB row and an id beyond 2^53 come out exactly as they went in,
 * through infer and then judge.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { inferArgs, judgeArgs } from '../../support/harness.js';
import { judgeReply, readJsonlFile, tempDirs, writeDataset, type SynthRow } from '../../support/dataset.js';
import { lastUserText, startOpenAIServer, type FakeServer } from '../../support/openai-server.js';

const temps = tempDirs('content');
let world: FakeServer;
let judge: FakeServer;
after(async () => {
  await world?.close();
  await judge?.close();
  await temps.cleanup();
});

const BIG_ID = '18446744073709551557';
const LS = '\u2028';
const PS = '\u2029';
/** What the world model answers: every kind of text the data holds, so gen is checked too. */
const GEN = `<think>思考 ${LS}</think><predicted_observation>预测 🌍 ${PS} ok\t"quoted"</predicted_observation>`;

/** The official files are written by Python's json.dumps: `", "` and `": "` separators. */
function pythonStyle(obj: Record<string, unknown>, asciiOnly = false): string {
  const enc = (v: unknown) => {
    const s = JSON.stringify(v);
    return asciiOnly ? s.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : s;
  };
  return `{${Object.entries(obj)
    .map(([k, v]) => `${enc(k)}: ${enc(v)}`)
    .join(', ')}}`;
}

function row(task: string, id: number | string, turns: string[][], turnIdx: number, extra: Record<string, unknown> = {}): SynthRow {
  const prompt = turns.map((t) => t[0]!);
  const response = turns.map((t) => t[1]!);
  return {
    task,
    id,
    prompt,
    response,
    current_prompt: prompt[turnIdx - 1]!,
    system_str: `Simulate the ${task} environment.`,
    turn_idx: turnIdx,
    total_turns: turns.length,
    ...extra,
  };
}

function contentLines(): string[] {
  const fiveMb = `${'observation line with a little of everything: 文档 ✓ \\ "x"\n'.repeat(80_000)}`;
  assert.ok(Buffer.byteLength(fiveMb) > 5_000_000);
  const lines = [
    // Raw line and paragraph separators inside strings (JSON.stringify leaves them raw).
    pythonStyle(row('search', 2001, [[`search "a${LS}b${PS}c"`, `results:${LS}1. one${PS}2. two`]], 1)),
    // CJK and emoji, including characters outside the BMP.
    pythonStyle(
      row(
        'agentworld/terminal',
        3002,
        [
          ['cd ~/文档', ''],
          ['ls 🚀 𠀀', '报告.txt  😀.png'],
        ],
        2,
      ),
    ),
    // The same text written as \u escapes (json.dumps default): the escapes must stay escapes.
    pythonStyle(row('mcp', 1001, [['call 工具', '{"ok": true, "名": "值"}']], 1), true),
    // A row of several MB: the history carries it to the world model and to the judge.
    pythonStyle(
      row(
        'web',
        6001,
        [
          ['open page', fiveMb],
          ['click "次へ"', '<html>page 2</html>'],
        ],
        2,
      ),
    ),
    // An id beyond 2^53 as a bare integer, and number spellings JSON.parse would normalise.
    pythonStyle(row('swe', 0, [['git status', 'nothing to commit']], 1, { weight: '__W__', ratio: '__R__' }))
      .replace('"id": 0', `"id": ${BIG_ID}`)
      .replace('"__W__"', '1.0')
      .replace('"__R__"', '1E2'),
    // A string id holding colons, which row keys use as separators.
    pythonStyle(row('android', 'ep:7:a', [['tap "OK"', '<node text="完成"/>']], 1)),
  ];
  return lines;
}

/** The input line without its closing brace: an output line must start with exactly this, then a comma. */
const prefixOf = (line: string) => line.slice(0, line.lastIndexOf('}'));

function assertPrefixes(outLines: string[], inLines: string[], what: string): Map<string, string> {
  assert.equal(outLines.length, inLines.length, `${what}: ${outLines.length} lines for ${inLines.length} rows`);
  const matched = new Map<string, string>();
  for (const inLine of inLines) {
    const hits = outLines.filter((o) => o.startsWith(`${prefixOf(inLine)},`));
    assert.equal(hits.length, 1, `${what}: ${hits.length} lines start with the input line ${inLine.slice(0, 80)}…`);
    matched.set(inLine, hits[0]!);
  }
  return matched;
}

describe('content byte for byte', () => {
  let dir: string;
  let input: string[];

  before(async () => {
    dir = await temps.make();
    input = contentLines();
    await writeDataset(join(dir, 'data'), input);
    world = await startOpenAIServer({ reply: () => GEN });
    judge = await startOpenAIServer({ reply: judgeReply });
  });

  it('through infer and judge, every input field keeps its bytes and the big id its digits', async () => {
    const preds = join(dir, 'pred.jsonl');
    const r1 = await runAwb(inferArgs(world.url, join(dir, 'data'), preds, ['-c', '4']));
    assert.equal(r1.code, 0, r1.stderr);
    const predFile = await readJsonlFile(preds);
    assert.ok(predFile.terminated);
    const predOf = assertPrefixes(predFile.lines, input, 'predictions');
    for (const [inLine, out] of predOf) {
      const parsed = JSON.parse(out) as Record<string, unknown>;
      assert.equal(parsed.gen, GEN, `gen of ${inLine.slice(0, 60)} changed`);
      assert.equal(parsed.error, undefined);
    }

    // What the world model was sent kept the separators and the characters outside the BMP.
    const sent = world.log.map((e) => (e.request ? lastUserText(e.request) : ''));
    assert.ok(sent.includes(`search "a${LS}b${PS}c"`));
    assert.ok(sent.includes('ls 🚀 𠀀'));
    assert.ok(
      world.log.some((e) => Buffer.byteLength(JSON.stringify(e.request?.messages ?? [])) > 5_000_000),
      'the large history was not sent',
    );

    const judged = join(dir, 'judged.jsonl');
    const r2 = await runAwb(judgeArgs(judge.url, preds, judged, ['-c', '4']));
    assert.equal(r2.code, 0, r2.stderr);
    const judgedFile = await readJsonlFile(judged);
    assert.ok(judgedFile.terminated);
    // Judged lines extend the prediction lines, which extend the input lines.
    const judgedOf = assertPrefixes(judgedFile.lines, [...predOf.values()], 'judged');
    for (const out of judgedOf.values()) assert.equal((JSON.parse(out) as Record<string, unknown>).failed, 0);
    assertPrefixes(judgedFile.lines, input, 'judged vs input');

    for (const lines of [predFile.lines, judgedFile.lines]) {
      const big = lines.filter((l) => l.includes(`"id": ${BIG_ID},`));
      assert.equal(big.length, 1, 'the id beyond 2^53 lost its digits');
      assert.ok(big[0]!.includes('"weight": 1.0, "ratio": 1E2'));
      assert.ok(lines.some((l) => l.includes('"id": "ep:7:a"')));
      assert.ok(
        lines.some((l) => l.includes(LS) && l.includes(PS)),
        'raw separators were escaped or lost',
      );
      assert.ok(
        lines.some((l) => l.includes('\\u5de5\\u5177')),
        'escapes were decoded',
      );
    }
    assert.ok(Buffer.byteLength(judgedFile.lines.find((l) => l.includes('"id": 6001'))!) > 5_000_000);
  });

  it('a resume over that output keeps every line and sends nothing', async () => {
    const preds = join(dir, 'pred.jsonl');
    const before = await readJsonlFile(preds);
    const requests = world.stats.requests;
    const r = await runAwb(inferArgs(world.url, join(dir, 'data'), preds, ['-c', '4']));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /0 of 6 rows to do/);
    assert.equal(world.stats.requests, requests, 'a finished row was sent again (its key did not survive the round trip)');
    assert.deepEqual((await readJsonlFile(preds)).lines, before.lines);
  });
});

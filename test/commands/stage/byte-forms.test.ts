/*
 * Issue 10: a row written in another byte form (escaped keys and text, `\/`,
 * reordered or repeated keys, odd whitespace, CRLF, decoy nested keys) gives
 * the same requests and the same outputs as its plain form, in infer, judge,
 * resume and merge; and every output line keeps its input line's bytes.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { judgeReply, readRowsOf, tempDirs, worldReply, writeDataset } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import type { FakeServer } from '../../support/openai-server.js';
import { spelledRows } from '../../support/respell.js';

const dirs = tempDirs('awb-respelled-');
after(() => dirs.cleanup());
const servers = useServers();
const { plainLines, spelledLines } = spelledRows();

const VOLATILE = new Set(['latency_ms', 'judge_latency_ms']);
const stable = (rows: Record<string, unknown>[]) =>
  rows
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !VOLATILE.has(k))))
    .sort((a, b) => (JSON.stringify([a.task, a.id, a.turn_idx]) < JSON.stringify([b.task, b.id, b.turn_idx]) ? -1 : 1));
const requests = (s: FakeServer) => s.log.map((e) => e.hash).sort();

describe('rows in other byte forms', () => {
  let dir: string;
  before(async () => {
    dir = await dirs.make();
  });

  it('infer, judge, resume and merge give the same requests and outputs as the plain form', async () => {
    const world = await servers({ reply: worldReply });
    const judge = await servers({ reply: judgeReply });
    const plain = await writeDataset(join(dir, 'plain'), plainLines);
    const spelled = await writeDataset(join(dir, 'spelled'), spelledLines);

    const run = async (args: string[]) => {
      const r = await runAwb(args);
      assert.equal(r.code, 0, r.stderr);
      return r;
    };
    await run(inferArgs(world.url, plain.dir, join(dir, 'plain.jsonl')));
    const plainRequests = requests(world);
    world.log.length = 0;
    await run(inferArgs(world.url, spelled.dir, join(dir, 'spelled.jsonl')));
    assert.deepEqual(requests(world), plainRequests);
    assert.deepEqual(stable(await readRowsOf(join(dir, 'spelled.jsonl'))), stable(await readRowsOf(join(dir, 'plain.jsonl'))));

    // Every output line is its input line, as spelled, with the fields added.
    const outLines = (await readFile(join(dir, 'spelled.jsonl'), 'utf8')).trimEnd().split('\n');
    for (const input of spelledLines) {
      const body = input.replace(/\s*}\s*$/, '');
      assert.ok(
        outLines.some((l) => l.startsWith(body)),
        `no output line keeps ${input.slice(0, 60)}`,
      );
    }

    await run(judgeArgs(judge.url, join(dir, 'plain.jsonl'), join(dir, 'plain-judged.jsonl')));
    const plainJudge = requests(judge);
    judge.log.length = 0;
    await run(judgeArgs(judge.url, join(dir, 'spelled.jsonl'), join(dir, 'spelled-judged.jsonl')));
    assert.deepEqual(requests(judge), plainJudge);
    assert.deepEqual(
      stable(await readRowsOf(join(dir, 'spelled-judged.jsonl'))),
      stable(await readRowsOf(join(dir, 'plain-judged.jsonl'))),
    );

    // Resume: a run cut after some rows redoes only the rest.
    const kept = outLines.slice(0, 9);
    await writeFile(join(dir, 'spelled.jsonl'), `${kept.join('\n')}\n${outLines[9]!.slice(0, 30)}`);
    world.log.length = 0;
    await run(inferArgs(world.url, spelled.dir, join(dir, 'spelled.jsonl')));
    assert.equal(world.log.length, spelledLines.length - 9);
    assert.deepEqual(stable(await readRowsOf(join(dir, 'spelled.jsonl'))), stable(await readRowsOf(join(dir, 'plain.jsonl'))));

    // Shards of the respelled data merge into the same rows.
    for (const k of [1, 2]) await run(inferArgs(world.url, spelled.dir, join(dir, `s${k}.jsonl`), ['--shard', `${k}/2`]));
    await run(['merge', join(dir, 'merged.jsonl'), join(dir, 's1.jsonl'), join(dir, 's2.jsonl')]);
    assert.deepEqual(stable(await readRowsOf(join(dir, 'merged.jsonl'))), stable(await readRowsOf(join(dir, 'plain.jsonl'))));
  });
});

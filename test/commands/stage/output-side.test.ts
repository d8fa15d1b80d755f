/*
 * The output side of infer and judge as a new user meets it: a run refused (a dead endpoint, an
 * output it cannot write, an output of other data) leaves nothing made or changed on disk and says
 * why in one line naming what the user gave; a run killed mid-rewrite leaves nothing the next one keeps.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import {
  closedPort,
  errorLines,
  makeDataset,
  readRowsOf,
  tempDirs,
  worldReply,
  judgeReply,
  writePredictions,
} from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('output-side');
after(() => temps.cleanup());
const server = useServers();

const deadUrl = async () => `http://127.0.0.1:${await closedPort()}/v1`;

/** Every file under `dir` with its bytes, to tell that a refused run changed nothing. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const p = join(dir, name);
    out.set(name, (await stat(p)).isDirectory() ? '<dir>' : await readFile(p, 'utf8'));
  }
  return out;
}

describe('the endpoint check', () => {
  it('fails before anything is made: no output folder, no lock, no manifest (exit 3)', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4, ['mcp']);
    const r = await runAwb(inferArgs(await deadUrl(), ds.dir, join(dir, 'new', 'deep', 'pred.jsonl')));
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /cannot reach world model endpoint/);
    assert.equal(existsSync(join(dir, 'new')), false, 'no output folder made');
  });

  it('fails before a resume changes anything: the rows to redo stay, the manifest is as it was', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4, ['mcp']);
    const out = join(dir, 'run', 'pred.jsonl');
    let n = 0;
    // The second request fails, not retried, so the output holds a failed row to redo.
    const s = await server({ reply: worldReply, faults: () => (++n === 2 ? '500' : undefined) });
    const first = await runAwb(inferArgs(s.url, ds.dir, out, ['-c', '1', '--max-retries', '0']));
    assert.equal(first.code, 1, first.stderr);
    const before = await snapshot(join(dir, 'run'));
    await s.close(); // the same endpoint (its host is a setting of the run), now down
    const r = await runAwb(inferArgs(s.url, ds.dir, out));
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(await snapshot(join(dir, 'run')), before);
  });

  it('is not made when every row is done: a finished resume needs no endpoint (infer and judge)', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4, ['mcp', 'swe']);
    const out = join(dir, 'pred.jsonl');
    const wm = await server({ reply: worldReply });
    assert.equal((await runAwb(inferArgs(wm.url, ds.dir, out))).code, 0);
    await wm.close(); // the same endpoint (its host is a setting of the run), now down
    const again = await runAwb(inferArgs(wm.url, ds.dir, out));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /0 of 4 rows to do/);
    const judge = await server({ reply: judgeReply });
    const judged = join(dir, 'judged.jsonl');
    assert.equal((await runAwb(judgeArgs(judge.url, out, judged))).code, 0);
    await judge.close();
    const rejudged = await runAwb(judgeArgs(judge.url, out, judged));
    assert.equal(rejudged.code, 0, rejudged.stderr);
  });

  it('comes after the output is refused: a mistake about the output wins (exit 2), with nothing made', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 2, ['mcp']);
    const dead = await deadUrl();
    await writeFile(join(dir, 'afile'), 'mine\n');
    const under = await runAwb(inferArgs(dead, ds.dir, join(dir, 'afile', 'x', 'pred.jsonl')));
    assert.equal(under.code, 2, under.stderr);
    assert.match(under.stderr, /afile: is a file, not a folder/);
    // An output of other settings is refused as well before the endpoint is asked.
    const wm = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(wm.url, ds.dir, out))).code, 0);
    await wm.close();
    const other = await runAwb(inferArgs(wm.url, ds.dir, out, ['--temperature', '0.3']));
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /was made with other settings/);
  });
});

describe('an output awb cannot write', () => {
  it('is one line naming the output given and why, exit 2, not the lock file', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 2, ['mcp']);
    // /proc takes no new files, even from root (a name too long for the lock: ci.test.ts).
    const out = '/proc/awb-pred.jsonl';
    const r = await runAwb(inferArgs(await deadUrl(), ds.dir, out));
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(errorLines(r.stderr), [`awb: cannot write --output ${out}: no file can be created in /proc`]);
  });
});

describe('temporary files left by a run killed mid-rewrite', () => {
  it('are removed by the next run on the output; one of a live process is not', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3, ['mcp']);
    const out = join(dir, 'pred.jsonl');
    const wm = await server({ reply: worldReply });
    assert.equal((await runAwb(inferArgs(wm.url, ds.dir, out))).code, 0);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const stale = [`${out}.awb-${gone}-0123456789ab.tmp`, `${out}.manifest.json.awb-${gone}-0123456789ab.tmp`];
    const live = `${out}.awb-${process.pid}-0123456789ab.tmp`;
    const otherOutput = join(dir, `other.jsonl.awb-${gone}-0123456789ab.tmp`);
    for (const p of [...stale, live, otherOutput]) await writeFile(p, 'half a file');
    const r = await runAwb(inferArgs(wm.url, ds.dir, out));
    assert.equal(r.code, 0, r.stderr);
    for (const p of stale) assert.equal(existsSync(p), false, p);
    assert.equal(existsSync(live), true, 'a live process keeps its file');
    assert.equal(existsSync(otherOutput), true, "another output's file is not this run's");
  });
});

describe('an output holding rows its data does not', () => {
  it('is refused in one line naming how many and the first one, exit 2, nothing changed; --force keeps them uncounted', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4, ['mcp']);
    const wm = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(wm.url, ds.dir, out))).code, 0);
    const rows = await readRowsOf(out);
    const foreign = { ...rows[0]!, id: 'from-elsewhere' };
    await writeFile(out, `${await readFile(out, 'utf8')}${JSON.stringify(foreign)}\n`);
    const before = await snapshot(dir);
    const r = await runAwb(inferArgs(wm.url, ds.dir, out));
    assert.equal(r.code, 2, r.stderr);
    const lines = errorLines(r.stderr);
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /pred\.jsonl holds 1 row that the data of this run does not \(the first at .*pred\.jsonl:5 \(mcp/);
    assert.deepEqual(await snapshot(dir), before);
    const forced = await runAwb(inferArgs(wm.url, ds.dir, out, ['--force', '--format', 'json']));
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stderr, /--force keeps them in the file, not counted in this run/);
    assert.match(forced.stderr, /resuming: 4 rows already done/);
    const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as { counts: { total: number; done: number } };
    assert.deepEqual([manifest.counts.total, manifest.counts.done], [4, 4]);
    assert.equal((await readRowsOf(out)).length, 5, 'the row is kept');
  });

  it('judge: a judged file of other predictions is refused the same way', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 4, ['mcp']);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const judge = await server({ reply: judgeReply });
    const judged = join(dir, 'judged.jsonl');
    assert.equal((await runAwb(judgeArgs(judge.url, preds, judged))).code, 0);
    // The predictions lose a row (a shorter data set): the judged file holds one they do not.
    const kept = (await readFile(preds, 'utf8')).split('\n').slice(1).join('\n');
    await writeFile(preds, kept);
    const r = await runAwb(judgeArgs(judge.url, preds, judged));
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      errorLines(r.stderr)[0]!,
      /judged\.jsonl holds 1 row that the data of this run does not \(the first at .*judged\.jsonl:\d \(mcp id 1000 turn 1\)\)/,
    );
  });
});

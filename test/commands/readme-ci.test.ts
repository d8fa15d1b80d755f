/*
 * The README's CI recipe (issue 51 item 3), taken from the README itself so the two cannot drift: run as written
 * under `bash -e` (as a GitHub Actions step runs it), with `awb` on PATH and local servers for the candidate and the
 * judge. It reaches the gate whatever judge's exit: a judge reply that never parses (judge exits 1) ends with the
 * gate's own code and every step's section in the job summary.
 */
import assert from 'node:assert/strict';
import { chmod, cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AWB_BIN, runAwb } from '../support/cli.js';
import { runScript } from '../support/workflow.js';
import { judgeReply, makeDataset, rowMarker, tempDirs, worldReply } from '../support/dataset.js';
import { lastUserText } from '../support/openai-server.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';

const temps = tempDirs('readme-ci');
after(() => temps.cleanup());
const server = useServers();

/** The first bash block of the README's "In CI" section, as a user copies it. */
async function recipe(): Promise<string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n## In CI\n'));
  const block = /```bash\n([\s\S]*?)```/.exec(section.slice(0, section.indexOf('\n## ', 1)));
  assert.ok(block, 'README: a bash block under ## In CI');
  return block[1]!;
}

describe("the README's CI recipe", () => {
  it('reaches the gate when judge exits 1, and every step writes its section of the job summary', async () => {
    const cwd = await temps.make();
    const data = await makeDataset(cwd, 14, ['mcp', 'terminal']);
    await symlink(data.dir, join(cwd, 'AgentWorldBench'));
    await mkdir(join(cwd, 'bin'));
    await writeFile(join(cwd, 'bin', 'awb'), `#!/bin/sh\nexec "${process.execPath}" "${AWB_BIN}" "$@"\n`);
    await chmod(join(cwd, 'bin', 'awb'), 0o755);
    const world = await server({ reply: worldReply, anyModel: true });
    // The baseline: the same rows, judged by a judge whose every reply parses.
    const good = await server({ reply: judgeReply, anyModel: true });
    const base = join(cwd, 'base');
    assert.equal((await runAwb(inferArgs(world.url, data.dir, join(base, 'p.jsonl')))).code, 0);
    const judgedBase = await runAwb(judgeArgs(good.url, join(base, 'p.jsonl'), join(base, 'j.jsonl'), [], 'gpt-5.2-2025-12-11'));
    assert.equal(judgedBase.code, 0, judgedBase.stderr);
    await mkdir(join(cwd, 'baseline'));
    await cp(join(base, 'j.jsonl'), join(cwd, 'baseline', 'judged.jsonl'));
    await cp(join(base, 'j.jsonl.manifest.json'), join(cwd, 'baseline', 'judged.jsonl.manifest.json'));

    // The candidate's judge never answers one row (a trajectory of one turn) in its format: judge ends with 1.
    const marker = rowMarker(data.rows[0]!);
    const judge = await server({
      reply: (req, ctx) => (lastUserText(req).includes(marker) ? 'no verdict' : judgeReply(req, ctx)),
      anyModel: true,
    });
    const summary = join(cwd, 'summary.md');
    // As a GitHub Actions step runs a `run:` block (bash -e), with `awb` on PATH.
    const env = { WM_URL: world.url, JUDGE_URL: judge.url, GITHUB_STEP_SUMMARY: summary };
    const r = await runScript(await recipe(), { cwd, env, bin: join(cwd, 'bin') });
    const out = r.stdout + r.stderr;
    assert.match(out, /awb judge: exit 1/, out);
    // The gate decided: the candidate failed a row the baseline has valid, an incomplete candidate.
    assert.equal(r.code, 5, out);
    const md = await readFile(summary, 'utf8');
    const sections = md.split('\n').filter((l) => l.startsWith('## '));
    assert.deepEqual(sections, ['## awb infer', '## awb judge', '## awb compare'], md);
  });
});

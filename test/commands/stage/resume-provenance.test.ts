/*
 * A resume compares what changes results, never where the endpoints are: a
 * world model or judge on a new port resumes without --force. Data files
 * whose hash changed are refused, naming the file, once a row holds an
 * answer made from the old ones; the manifest's record of
 * the data (commit, hashes) is never dropped by a resume.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Manifest } from '../../../src/core/schemas/index.js';
import { runAwb } from '../../support/cli.js';
import { dropLastLines, judgeReply, makeDataset, readJsonlFile, tempDirs, worldReply, type Dataset } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';
import { refusalLine } from '../../support/refusal.js';

const temps = tempDirs('resume-provenance');
after(() => temps.cleanup());
const server = useServers();
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

const manifestOf = async (out: string) => JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as Manifest;
const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** The record `awb download --dir` leaves beside the files: the commit and each file's hash. */
async function recordOrigin(ds: Dataset): Promise<Record<string, string>> {
  const files = await Promise.all(
    [...ds.files].map(async ([domain, path]) => ({
      domain,
      file: `${domain}_test.jsonl`,
      bytes: (await stat(path)).size,
      sha256: await sha256(path),
    })),
  );
  const origin = { repo: 'Qwen/AgentWorldBench', revision: 'main', commit: COMMIT, files };
  await writeFile(join(ds.dir, '.awb-dataset.json'), JSON.stringify(origin));
  return Object.fromEntries(files.map((f) => [f.domain, f.sha256]));
}

describe('a resume on an endpoint at another host:port', () => {
  it('infer and judge go on without --force, sending only the rows left, and record the new hosts', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 8, ['mcp', 'search']);
    const [a, b] = [await server({ reply: worldReply }), await server({ reply: worldReply })];
    assert.notEqual(new URL(a.url).port, new URL(b.url).port);
    const preds = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(a.url, ds.dir, preds))).code, 0);
    await dropLastLines(preds, 3);
    const sent = b.stats.requests;
    const resumed = await runAwb(inferArgs(b.url, ds.dir, preds));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(b.stats.requests - sent, 3);
    assert.equal((await readJsonlFile(preds)).lines.length, 8);
    assert.deepEqual((await manifestOf(preds)).settings.world_model?.hosts, [new URL(b.url).host]);

    const [ja, jb] = [await server({ reply: judgeReply }), await server({ reply: judgeReply })];
    const judged = join(dir, 'judged.jsonl');
    assert.equal((await runAwb(judgeArgs(ja.url, preds, judged))).code, 0);
    await dropLastLines(judged, 2);
    const again = await runAwb(judgeArgs(jb.url, preds, judged));
    assert.equal(again.code, 0, again.stderr);
    assert.equal(jb.stats.requests, 2);
    assert.equal((await readJsonlFile(judged)).lines.length, 8);
  });
});

describe('a resume from other data', () => {
  it('is refused in one line naming the changed file, leaving output and manifest as they were; --force records the mix', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6, ['mcp', 'search']);
    await recordOrigin(ds);
    const s = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(s.url, ds.dir, out))).code, 0);
    await dropLastLines(out, 2);
    // A blank line added: the same rows, another file.
    await appendFile(ds.files.get('mcp')!, '\n');
    const [rows, manifest] = [await readFile(out), await readFile(`${out}.manifest.json`)];
    const sent = s.stats.requests;
    const r = await runAwb(inferArgs(s.url, ds.dir, out));
    const line = refusalLine(r, 2);
    assert.ok(line.includes(`made from other data: ${ds.files.get('mcp')!} (sha256 `), line);
    assert.doesNotMatch(line, /search_test/);
    assert.equal(s.stats.requests, sent, 'a refused run sent requests');
    assert.ok((await readFile(out)).equals(rows));
    assert.ok((await readFile(`${out}.manifest.json`)).equals(manifest));

    const forced = await runAwb(inferArgs(s.url, ds.dir, out, ['--force']));
    assert.equal(forced.code, 0, forced.stderr);
    const mixed = (await manifestOf(out)).mixed ?? [];
    assert.ok(JSON.stringify(mixed).includes('dataset mcp: sha256 was'), JSON.stringify(mixed));
  });

  it('is taken when no row holds an answer yet (every request failed), and the new data is recorded', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6, ['mcp', 'search']);
    await recordOrigin(ds);
    const down = await server({ reply: worldReply, faults: () => '500' });
    const out = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(down.url, ds.dir, out, ['--max-retries', '0']))).code, 1);
    await appendFile(ds.files.get('mcp')!, '\n');
    const hashes = await recordOrigin(ds);
    const s = await server({ reply: worldReply });
    const r = await runAwb(inferArgs(s.url, ds.dir, out));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.stats.requests, 6);
    const manifest = await manifestOf(out);
    assert.deepEqual(manifest.dataset.sha256, hashes);
    assert.equal(manifest.dataset.commit, COMMIT);
    assert.equal(manifest.mixed, undefined);
  });

  it('keeps the commit and hashes when the folder resumed from has lost its origin record, and checks the files against them', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 6, ['mcp', 'search']);
    const hashes = await recordOrigin(ds);
    const s = await server({ reply: worldReply });
    const out = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(s.url, ds.dir, out))).code, 0);
    assert.equal((await manifestOf(out)).dataset.commit, COMMIT);
    await dropLastLines(out, 2);
    await rm(join(ds.dir, '.awb-dataset.json'));
    const resumed = await runAwb(inferArgs(s.url, ds.dir, out));
    assert.equal(resumed.code, 0, resumed.stderr);
    const after = (await manifestOf(out)).dataset;
    assert.equal(after.commit, COMMIT);
    assert.equal(after.repo, 'Qwen/AgentWorldBench');
    assert.deepEqual(after.sha256, hashes);

    // Without the record, the files are hashed against the manifest's: an edit is still seen.
    await dropLastLines(out, 1);
    await appendFile(ds.files.get('search')!, '\n');
    const line = refusalLine(await runAwb(inferArgs(s.url, ds.dir, out)), 2);
    assert.ok(line.includes(`made from other data: ${ds.files.get('search')!} (sha256 `), line);
  });
});

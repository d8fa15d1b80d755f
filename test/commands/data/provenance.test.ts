import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ORIGIN_FILE } from '../../../src/core/dataset/index.js';
import { runAwb } from '../../support/cli.js';
import { makeDataset, tempDirs } from '../../support/dataset.js';
import { inferArgs, useServers } from '../../support/harness.js';
import { startHubServer } from '../../support/hub-server.js';

/*
 * Provenance of a download folder whose files the hub served without LFS (under its threshold: the
 * listing gives only git hashes), issue 51 item 13: every file's SHA-256 is recorded, and a file
 * edited since is checked before its rows pass for the hub's. A fresh infer says so and records its
 * own hash and no commit; a resume of rows made from the hub's file refuses it.
 */

const dirs = tempDirs('provenance');
const serve = useServers();
const hubs: { close(): Promise<void> }[] = [];
after(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  await dirs.cleanup();
});

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const manifestOf = async (out: string) => JSON.parse(await readFile(`${out}.manifest.json`, 'utf8'));

describe('a download folder of files served without LFS', { concurrency: 1 }, async () => {
  const dir = await dirs.make();
  const ds = await makeDataset(dir, 6, ['mcp', 'search']);
  const files: Record<string, Buffer> = {};
  for (const name of await readdir(ds.dir)) files[name] = await readFile(join(ds.dir, name));
  const hub = await startHubServer({ files: { ...files, 'README.md': '# AgentWorldBench\n' }, lfs: () => false });
  hubs.push(hub);
  const env = { HF_ENDPOINT: hub.url, HF_HOME: join(dir, 'hf-home') };
  const folder = join(dir, 'download');
  const model = await serve({});
  const mcp = join(folder, 'mcp_test.jsonl');
  const record = async () => JSON.parse(await readFile(join(folder, ORIGIN_FILE), 'utf8'));
  /** An edit a user might make: one row's words changed, the file still valid. */
  const edit = async () => writeFile(mcp, (await readFile(mcp, 'utf8')).replace('run step 1', 'run step one'));

  it('records every file with its SHA-256 beside the git hash the hub listed', async () => {
    const r = await runAwb(['download', '--dir', folder], { env });
    assert.equal(r.code, 0, r.stderr);
    const { files: recorded } = await record();
    assert.deepEqual(
      recorded.map((f: { file: string; sha256: string; gitOid: string }) => [f.file, f.sha256, /^[0-9a-f]{40}$/.test(f.gitOid)]),
      Object.keys(files)
        .sort()
        .map((name) => [name, sha256(files[name]!), true]),
    );
  });

  it('a file edited since: a resume of rows made from the hub file refuses it; a fresh infer says so and claims no commit', async () => {
    const out = join(dir, 'first.jsonl');
    const first = await runAwb(inferArgs(model.url, folder, out));
    assert.equal(first.code, 0, first.stderr);
    const made = await manifestOf(out);
    assert.equal(made.dataset.commit, hub.commit);
    assert.equal(made.dataset.sha256.mcp, sha256(files['mcp_test.jsonl']!));

    await edit();
    const edited = sha256(await readFile(mcp));
    const resumed = await runAwb(inferArgs(model.url, folder, out));
    assert.equal(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, /mcp_test\.jsonl/);
    assert.equal((await manifestOf(out)).dataset.commit, hub.commit, 'the refused resume leaves the manifest as it was');

    const fresh = join(dir, 'fresh.jsonl');
    const requests = model.stats.requests;
    const r = await runAwb(inferArgs(model.url, folder, fresh));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /mcp_test\.jsonl differs from what the download of Qwen\/AgentWorldBench@[0-9a-f]{12} recorded/);
    assert.match(r.stderr, /download --dir /);
    assert.ok(model.stats.requests > requests);
    const m = await manifestOf(fresh);
    assert.equal(m.dataset.commit, undefined, "an edited file is not the hub's commit");
    assert.deepEqual(m.dataset.edited, ['mcp']);
    assert.equal(m.dataset.sha256.mcp, edited);
    assert.equal(m.dataset.sha256.search, sha256(files['search_test.jsonl']!), 'the files left alone keep their hashes');
  });

  it("a record written before every file had its SHA-256 (git hashes only) still tells an edited file from the hub's", async () => {
    // The hub's files back, then a record as older versions wrote it: no sha256 for files served without LFS.
    const again = await runAwb(['download', '--dir', folder], { env });
    assert.equal(again.code, 0, again.stderr);
    const old = await record();
    await writeFile(
      join(folder, ORIGIN_FILE),
      JSON.stringify({ ...old, files: old.files.map(({ sha256: _s, ...f }: Record<string, unknown>) => f) }),
    );
    const out = join(dir, 'old-record.jsonl');
    const made = await runAwb(inferArgs(model.url, folder, out));
    assert.equal(made.code, 0, made.stderr);
    assert.doesNotMatch(made.stderr, /differs from what the download/);
    const m = await manifestOf(out);
    assert.equal(m.dataset.commit, hub.commit);
    assert.equal(m.dataset.sha256.mcp, sha256(files['mcp_test.jsonl']!), 'hashed, checked by its git hash');

    // An output whose manifest names the commit but no hashes (as older versions wrote it from such a record).
    const { sha256: _gone, ...dataset } = m.dataset;
    await writeFile(`${out}.manifest.json`, JSON.stringify({ ...m, dataset }));
    await edit();
    await writeFile(
      join(folder, ORIGIN_FILE),
      JSON.stringify({ ...old, files: old.files.map(({ sha256: _s, ...f }: Record<string, unknown>) => f) }),
    );
    const resumed = await runAwb(inferArgs(model.url, folder, out));
    assert.equal(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, /dataset mcp: was the file of commit [0-9a-f]{40}, now edited since its download/);
  });
});

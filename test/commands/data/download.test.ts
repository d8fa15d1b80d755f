/* awb download end to end, against a local hub: what it prints, its exit codes, signals and secrets (core's download: test/core/download/). */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { runAwb, startAwb } from '../../support/cli.js';
import { waitFor } from '../../support/dataset.js';
import { SAMPLE_FILES as FILES, startHubServer, type HubServer, type HubServerOptions } from '../../support/hub-server.js';

let tmp: string;
const servers: HubServer[] = [];

async function hub(opts: Partial<HubServerOptions> = {}): Promise<HubServer> {
  const server = await startHubServer({ files: FILES, ...opts });
  servers.push(server);
  return server;
}

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'awb-download-cli-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await rm(tmp, { recursive: true, force: true });
});

describe('awb download (end to end)', () => {
  it('downloads with HF_ENDPOINT into --dir and prints folder, commit and row counts', { timeout: 180_000 }, async () => {
    const server = await hub();
    const dir = join(tmp, 'cli-data');
    const env = { HF_ENDPOINT: server.url, HF_HOME: join(tmp, 'h') };
    const { code, stdout, stderr } = await runAwb(['download', '--dir', dir, '--domains', 'mcp,search'], { env });
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`^Qwen/AgentWorldBench at main \\(commit ${server.commit}\\)$`, 'm'));
    assert.match(stdout, new RegExp(`^folder: ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.match(stdout, /^ {2}MCP +5 rows .* published: 286$/m);
    assert.match(stdout, /^ {2}Search +40 rows .* published: 458$/m);
    assert.match(stdout, /2 domains differ from the published test split/);
    assert.match(stderr, /mcp_test\.jsonl: done/);
    assert.equal(await readFile(join(dir, 'search_test.jsonl'), 'utf8'), FILES['search_test.jsonl']);

    const chess = await runAwb(['download', '--dir', dir, '--domains', 'chess'], { env });
    assert.equal(chess.code, 2, chess.stderr);
    assert.match(chess.stderr, /^awb: no domain "chess" in Qwen\/AgentWorldBench at main; it has: mcp, search, terminal\n$/);
  });
});

describe('awb download against a hostile or missing hub (end to end)', () => {
  it('exits 3 with one line when the hub is unreachable, 2 for a revision that does not exist', async () => {
    const server = await hub();
    const missing = await runAwb(['download', '--dir', join(tmp, 'd'), '--revision', 'nope'], {
      env: { HF_ENDPOINT: server.url, HF_HOME: join(tmp, 'h') },
    });
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /^awb: no revision "nope" in dataset Qwen\/AgentWorldBench on http:\/\/127\.0\.0\.1:\d+\n$/);
    await server.close();
    const down = await runAwb(['download', '--dir', join(tmp, 'd')], { env: { HF_ENDPOINT: server.url, HF_HOME: join(tmp, 'h') } });
    assert.equal(down.code, 3, down.stderr);
    assert.match(down.stderr, /^awb: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)[^\n]*\n$/);
  });

  it('a --dir or cache that cannot be a folder (a file, a path under /proc) is one line, exit 2', async () => {
    const server = await hub();
    const file = join(tmp, 'a-file');
    await writeFile(file, 'mine\n');
    const cases: { args: string[]; env?: Record<string, string>; says: RegExp }[] = [
      { args: ['--dir', file], says: /^awb: \S+a-file: is a file, not a folder; --dir takes a folder\n$/ },
      // The file in the way is named, not the path under it.
      { args: ['--dir', join(file, 'sub')], says: /^awb: \S+a-file: is a file, not a folder; --dir takes a folder\n$/ },
      { args: ['--dir', '/proc/awb-test-dataset'], says: /^awb: \/proc\/awb-test-dataset: cannot create a folder here\n$/ },
      { args: [], env: { HF_HOME: '/proc/awb-test-hf-home' }, says: /^awb: \/proc\/awb-test-hf-home: cannot create a folder here\n$/ },
    ];
    for (const c of cases) {
      const r = await runAwb(['download', '--domains', 'mcp', ...c.args], {
        env: { HF_ENDPOINT: server.url, HF_HOME: join(tmp, 'h'), ...c.env },
        timeoutMs: 60_000,
      });
      assert.equal(r.code, 2, `${c.args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, c.says);
    }
    assert.equal(await readFile(file, 'utf8'), 'mine\n', 'the file in the way is left as it was');
  });

  it('Ctrl-C mid-file, in download and in the download infer starts: one line, exit 130, no temporary file left', async () => {
    // terminal_test.jsonl sends one byte and then nothing, so the run is mid-file when the signal comes.
    const server = await hub({ body: { 'terminal_test.jsonl': 'trickle' } });
    const dir = join(tmp, 'cut');
    const home = join(tmp, 'h');
    const runs = [
      { args: ['download', '--dir', dir], where: dir },
      {
        // No endpoint listens: without --no-preflight, infer would stop at the endpoint check, before downloading.
        args: [
          'infer',
          '--model-base-url',
          'http://127.0.0.1:9/v1',
          '--model-name',
          'm',
          '--no-preflight',
          '-o',
          join(tmp, 'run', 'p.jsonl'),
        ],
        where: home,
      },
    ];
    for (const { args, where } of runs) {
      const before = server.downloads().length;
      const run = startAwb(args, { env: { HF_ENDPOINT: server.url, HF_HOME: home } });
      await waitFor(
        () => server.downloads().slice(before).includes('terminal_test.jsonl'),
        run.exited,
        'the download of terminal_test.jsonl',
      );
      run.child.kill('SIGINT');
      const r = await run.exited;
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stderr, /^awb: download interrupted; nothing partial was kept, and the same command continues where it stopped\n$/m);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack');
      const left = await readdir(where, { recursive: true });
      assert.deepEqual(
        left.filter((p) => p.endsWith('.tmp') || p.includes('terminal_test')),
        [],
        `nothing of the file cut off: ${left.join(', ')}`,
      );
    }
    assert.equal(await readFile(join(dir, 'mcp_test.jsonl'), 'utf8'), FILES['mcp_test.jsonl'], 'a file already complete stays');
    assert.equal(existsSync(join(tmp, 'run')), false, 'infer wrote nothing');
  });

  it('says why it used the complete copy already in the cache: HF_HUB_OFFLINE, or a hub that cannot be reached', async () => {
    const server = await hub();
    const env = { HF_ENDPOINT: server.url, HF_HOME: join(tmp, 'h') };
    assert.equal((await runAwb(['download'], { env })).code, 0);
    const offline = await runAwb(['download'], { env: { ...env, HF_HUB_OFFLINE: '1' } });
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(offline.stderr, /^awb: HF_HUB_OFFLINE is set: the hub was not asked; using the complete copy already here$/m);
    await server.close();
    const down = await runAwb(['download'], { env });
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stderr, /^awb: the hub could not be reached; using the complete copy already here$/m);
    for (const r of [offline, down])
      assert.match(r.stdout, new RegExp(`^Qwen/AgentWorldBench at main \\(commit ${server.commit}\\)$`, 'm'));
  });

  it('never shows a token, from HF_ENDPOINT credentials or HF_TOKEN', async () => {
    const secret = 'hf_' + 'S3cretT0kenValue'.repeat(2);
    const server = await hub({ token: 'hf_the_right_one_0123456789' });
    const port = new URL(server.url).port;
    const withCreds = await runAwb(['download', '--dir', join(tmp, 'd')], {
      env: { HF_ENDPOINT: `http://user:${secret}@127.0.0.1:${port}`, HF_HOME: join(tmp, 'h') },
    });
    assert.equal(withCreds.code, 2);
    assert.match(withCreds.stderr, /^awb: HF_ENDPOINT carries credentials \(user:password@\): remove them and put the token in HF_TOKEN/);
    const denied = await runAwb(['download', '--dir', join(tmp, 'd')], {
      env: { HF_ENDPOINT: server.url, HF_TOKEN: secret, HF_HOME: join(tmp, 'h') },
    });
    assert.equal(denied.code, 3, denied.stderr);
    assert.match(denied.stderr, /access denied .*HF_TOKEN was sent but does not give access/);
    for (const r of [withCreds, denied]) {
      for (const part of [secret, secret.slice(0, 12), secret.slice(-12)]) {
        assert.equal((r.stdout + r.stderr).includes(part), false, 'the token is not shown');
      }
    }
    assert.equal(
      await readdir(join(tmp, 'd'))
        .catch(() => [])
        .then((l) => l.length),
      0,
    );
  });
});

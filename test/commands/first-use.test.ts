/*
 * A new user's first hour with the installed CLI: keys pasted from files or
 * left empty by CI, files that are not what the command wants, URLs copied
 * from other tools' docs. Each is the real binary against real HTTP servers
 * on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { invocation } from '../../src/commands/shared/invocation.js';
import { AWB_BIN, runAwb } from '../support/cli.js';
import { makeDataset, readRowsOf, rowMarker, stackLines, tempDirs, worldReply } from '../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../support/harness.js';
import { lastUserText } from '../support/openai-server.js';
import { refusalLine } from '../support/refusal.js';

const temps = tempDirs('first-use');
after(() => temps.cleanup());
const server = useServers();

const SECRET = 'sk-test-SECRET123456789';
const FRAGMENT = 'SECRET123456789';

describe('API keys as people pass them', { concurrency: 2 }, () => {
  it('a key with a line end (a key file saved on Windows) is sent as the key, and a server echoing it never shows it', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 7);
    const marker = rowMarker(ds.rows[2]!);
    const s = await server({
      apiKey: SECRET,
      reply: worldReply,
      faults: (req) => (lastUserText(req).includes(marker) ? { kind: '500', message: `upstream refused key ${SECRET}` } : undefined),
    });
    const out = join(dir, 'pred.jsonl');
    const r = await runAwb(inferArgs(s.url, ds.dir, out, ['--max-retries', '0']), { env: { AWB_MODEL_API_KEY: `${SECRET}\r\n` } });
    // Every other row was accepted with the key: the line end is no part of it.
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.filter((row) => row.error === undefined).length, 6);
    for (const f of await readdir(dir)) if (f.startsWith('pred')) assert.ok(!(await readFile(join(dir, f), 'utf8')).includes(FRAGMENT), f);
    assert.ok(!r.stderr.includes(FRAGMENT), r.stderr);
    assert.match(String(rows.find((row) => row.error !== undefined)!.error), /upstream refused key \*\*\*/);
  });

  it('an empty key (a CI secret that is not set) is no key: one line naming the empty variable, not a stack trace', async () => {
    const locked = await server({ apiKey: 'sk-right' });
    const models = refusalLine(await runAwb(['models', '--base-url', locked.url], { env: { AWB_MODEL_API_KEY: '' } }), 3);
    assert.match(
      models,
      /rejected the API key \(401 Unauthorized\): no key was given \(\$AWB_MODEL_API_KEY is set but empty\): set AWB_MODEL_API_KEY/,
    );
    const given = refusalLine(await runAwb(['models', '--base-url', locked.url, '--api-key', ' ']), 3);
    assert.match(given, /no key was given \(--api-key is empty\)/);
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const infer = await runAwb(inferArgs(locked.url, ds.dir, join(dir, 'p.jsonl')), { env: { AWB_MODEL_API_KEY: '', OPENAI_API_KEY: '' } });
    assert.equal(infer.code, 3, infer.stderr);
    assert.deepEqual(stackLines(infer.stderr), []);
    // OPENAI_API_KEY is not a world model's key unless the endpoint is OpenAI's (test/model-key.test.ts).
    assert.match(infer.stderr, /\(\$AWB_MODEL_API_KEY is set but empty\): set AWB_MODEL_API_KEY, or pass --model-api-key KEY/);
    const open = await server({ apiKey: 'sk-right' });
    const listed = await runAwb(['models', '--base-url', open.url], { env: { AWB_MODEL_API_KEY: 'sk-right' } });
    assert.equal(listed.code, 0, listed.stderr);
    // awb models, like infer, keeps OPENAI_API_KEY from a host that is not OpenAI's: the server sees no key.
    const kept = await runAwb(['models', '--base-url', open.url], { env: { OPENAI_API_KEY: 'sk-right' } });
    assert.equal(kept.code, 3, kept.stderr);
    const modelKey = await runAwb(inferArgs(open.url, ds.dir, join(dir, 'q.jsonl')), {
      env: { AWB_MODEL_API_KEY: ' ', OPENAI_API_KEY: 'sk-right' },
    });
    // OPENAI_API_KEY, even the right one, is kept from a world model on 127.0.0.1: no key, so the server refuses.
    assert.equal(modelKey.code, 3, modelKey.stderr);
  });
});

describe('commands awb prints to be pasted', () => {
  it('installed in a project and run with npx awb: they start with npx, since the shell has no awb on PATH', async () => {
    const files = new Map([['/p/node_modules/.bin/awb', '/p/node_modules/agentworldbench/bin/awb.js']]);
    const realpath = (p: string) => files.get(p) ?? (p.startsWith('/p/node_modules/agentworldbench/') ? p : undefined);
    const script = '/p/node_modules/.bin/awb';
    assert.equal(invocation({ script, cwd: '/p', env: { PATH: '/usr/bin:/p/node_modules/.bin' }, realpath }), 'npx agentworldbench');
    // The same install linked into a bin folder of the user's own is on the shell's PATH.
    files.set('/usr/local/bin/awb', '/p/node_modules/agentworldbench/bin/awb.js');
    assert.equal(invocation({ script, cwd: '/p', env: { PATH: '/usr/local/bin:/p/node_modules/.bin' }, realpath }), 'awb');

    const dir = await temps.make();
    await mkdir(join(dir, 'node_modules', '.bin'), { recursive: true });
    await symlink(AWB_BIN, join(dir, 'node_modules', '.bin', 'awb'));
    const r = await runAwb(['merge', 'shard1.jsonl'], {
      cwd: dir,
      env: { PATH: `${dirname(process.execPath)}${delimiter}${join(dir, 'node_modules', '.bin')}` },
    });
    assert.match(refusalLine(r, 2), /\(npx agentworldbench merge -o merged\.jsonl shard1\.jsonl \.\.\.\)/);
  });
});

describe('a file that is not what the command reads', () => {
  it('a gzipped JSONL: one line saying how to decompress it, before the judge is asked anything', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 7);
    const world = await server({ reply: worldReply });
    const judge = await server({ reply: worldReply });
    const pred = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(world.url, ds.dir, pred))).code, 0);
    const gz = join(dir, 'pred.jsonl.gz');
    await writeFile(gz, gzipSync(await readFile(pred)));
    const out = join(dir, 'judged', 'judged.jsonl');
    const line = refusalLine(await runAwb(judgeArgs(judge.url, gz, out)), 2);
    assert.equal(line, `awb: ${gz}: is gzip-compressed, not JSONL; decompress it first (gunzip -k FILE)`);
    assert.equal(judge.stats.requests, 0);
    assert.equal(existsSync(join(dir, 'judged')), false);
    for (const cmd of [
      ['score', gz],
      ['rows', gz],
      ['report', gz, '-o', join(dir, 'r.html')],
      ['compare', gz, pred],
    ])
      assert.match(refusalLine(await runAwb(cmd), 2), /pred\.jsonl\.gz: is gzip-compressed/, cmd[0]);
  });

  it("a UTF-16 file (PowerShell's >), with or without its byte order mark: one line saying to convert it", async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const world = await server({ reply: worldReply });
    const pred = join(dir, 'pred.jsonl');
    assert.equal((await runAwb(inferArgs(world.url, ds.dir, pred))).code, 0);
    const text = await readFile(pred, 'utf8');
    const le = join(dir, 'le.jsonl');
    const be = join(dir, 'be.jsonl');
    await writeFile(le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    await writeFile(be, Buffer.from(text, 'utf16le').swap16());
    for (const file of [le, be]) {
      const line = refusalLine(await runAwb(['score', file]), 2);
      assert.equal(
        line,
        `awb: ${file}: is UTF-16 text (as Windows PowerShell's > writes it), not UTF-8; convert it first (iconv -f UTF-16 -t UTF-8 FILE > fixed.jsonl)`,
      );
    }
  });
});

describe('a base URL copied with its route', () => {
  it('(…/v1/chat/completions, …/v1/models) is refused before anything is sent, with the base URL to give instead', async () => {
    const s = await server({ reply: worldReply });
    const dir = await temps.make();
    const ds = await makeDataset(dir, 3);
    const infer = refusalLine(await runAwb(inferArgs(`${s.url}/chat/completions?key=sk-in-query`, ds.dir, join(dir, 'p.jsonl'))), 2);
    assert.equal(
      infer,
      `awb: --model-base-url ${s.url}/chat/completions ends in the route /chat/completions: give the base URL without it (${s.url}); awb adds the routes itself`,
    );
    const judge = refusalLine(await runAwb(judgeArgs(`${s.url}/models/`, join(dir, 'p.jsonl'), join(dir, 'j.jsonl'))), 2);
    assert.match(
      judge,
      /--judge-base-url \S+\/v1\/models ends in the route \/models: give the base URL without it \(http:\/\/127\.0\.0\.1:\d+\/v1\)/,
    );
    assert.match(refusalLine(await runAwb(['models', '--base-url', `${s.url}/chat/completions`]), 2), /ends in the route/);
    assert.equal(s.stats.requests, 0);
  });
});

describe('--domains', () => {
  it('takes the names separated by spaces as by commas ("terminal swe", "Terminal, SWE")', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const s = await server({ reply: worldReply });
    const requests = async (domains: string) => {
      const r = await runAwb(inferArgs(s.url, ds.dir, join(dir, 'p.jsonl'), ['--dry-run', '--format', 'json', '--domains', domains]));
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { requests: number }).requests;
    };
    const both = await requests('terminal,swe');
    assert.ok(both > 0);
    assert.equal(await requests('terminal swe'), both);
    assert.equal(await requests(' Terminal,  SWE '), both);
  });
});

describe('judge given a file of another tool', () => {
  it('says it is not AgentWorldBench predictions, rather than calling it dataset rows', async () => {
    const dir = await temps.make();
    const other = join(dir, 'chats.jsonl');
    await writeFile(other, '{"messages":[{"role":"user","content":"hi"}],"label":1}\n');
    const s = await server({ reply: worldReply });
    const line = refusalLine(await runAwb(judgeArgs(s.url, other, join(dir, 'j.jsonl'))), 2);
    assert.match(
      line,
      /chats\.jsonl: is not AgentWorldBench predictions \(its first row has neither task nor gen\); judge the predictions\.jsonl that `(awb|node \S+) infer` writes$/,
    );
    assert.equal(s.stats.requests, 0);
  });
});

describe('--help', { concurrency: 4 }, () => {
  const help = async (args: string[]) => {
    const r = await runAwb([...args, '--help']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const REQUIRED: Record<string, string[]> = {
    infer: ['--model-base-url', '--model-name'],
    // --judge-base-url is required unless a panel names each member's own (checked when judge runs).
    judge: ['--predictions', '--judge-model'],
    models: ['--base-url'],
  };
  for (const cmd of ['download', 'infer', 'judge', 'models', 'score', 'report', 'compare', 'rows', 'merge']) {
    it(`${cmd}: an example, defaults as typed, required options marked`, async () => {
      const text = await help([cmd]);
      assert.match(text, new RegExp(`\\nExamples?:\\n  \\$ awb ${cmd} `));
      assert.doesNotMatch(text, /default: "/);
      for (const flag of REQUIRED[cmd] ?? []) {
        const from = text.indexOf(`\n  ${flag} <`);
        assert.ok(from >= 0, flag);
        assert.match(text.slice(from, text.indexOf('\n  -', from + 1)), /\(required\)$/, flag);
      }
    });
  }
  it('infer, judge and models name the variables their key comes from, and that OPENAI_BASE_URL is not one awb reads', async () => {
    for (const [cmd, vars] of [
      [
        'infer',
        /AWB_MODEL_API_KEY: the key when --model-api-key is not given[^]*OPENAI_API_KEY: read as well, after it, only when the endpoint is https:\/\/api\.openai\.com/,
      ],
      ['judge', /AWB_JUDGE_API_KEY, OPENAI_API_KEY: the key when --judge-api-key is not given/],
      [
        'models',
        /AWB_MODEL_API_KEY: the key when --api-key is not given[^]*OPENAI_API_KEY: read as well, after it, only when the endpoint is https:\/\/api\.openai\.com/,
      ],
    ] as const) {
      const text = await help([cmd]);
      assert.match(text, /\nEnvironment:\n/, cmd);
      assert.match(text, vars, cmd);
      assert.match(text, /OPENAI_BASE_URL is not read/, cmd);
    }
    assert.match(await help(['infer']), /HF_ENDPOINT, HF_TOKEN/);
  });
  it('awb --help lists the exit codes README documents, with a quick start', async () => {
    const text = await help([]);
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('Exit codes answer one question'));
    const codes = [...section.slice(0, section.indexOf('\n\n', section.indexOf('- `130`'))).matchAll(/^- `(\d+)`:/gm)].map((m) => m[1]);
    assert.deepEqual(codes, ['0', '1', '2', '3', '4', '5', '6', '7', '130']);
    const listed = [...text.slice(text.indexOf('Exit codes:')).matchAll(/^ {2}(\d+) /gm)].map((m) => m[1]);
    assert.deepEqual(listed, codes);
    assert.match(text, /Quick start[^\n]*\n {2}\$ awb infer /);
  });
});

describe("another command's name for an option", { concurrency: 3 }, () => {
  it('names the option this command takes, in one line, exit 2, never repeating the value (a key)', async () => {
    for (const [args, line] of [
      [['judge', '--predictions', 'p.jsonl', '--model-name', 'm'], 'awb: judge takes --judge-model, not --model-name'],
      [['judge', '--model-api-key=sk-secret-000000000'], 'awb: judge takes --judge-api-key, not --model-api-key'],
      [['infer', '--base-url', 'http://127.0.0.1:9/v1'], 'awb: infer takes --model-base-url, not --base-url'],
      [['infer', '--judge-model'], 'awb: infer takes --model-name, not --judge-model'],
      [['models', '--model-base-url', 'http://127.0.0.1:9/v1'], 'awb: models takes --base-url, not --model-base-url'],
    ] as const)
      assert.equal(refusalLine(await runAwb([...args]), 2), line, args.join(' '));
    // They stay out of the help: each command lists only its own options.
    const help = (await runAwb(['judge', '--help'])).stdout;
    assert.doesNotMatch(help, /--model-name|--model-base-url|--model-api-key|--base-url/);
  });
});

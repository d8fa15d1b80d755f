/*
 * Bad input and bad options: one line on stderr naming the file, line and
 * field where there is one, no stack trace, a non-zero exit, nothing sent
 * and nothing written, so an existing output stays byte for byte as it was.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runAwb, type AwbResult } from '../../support/cli.js';
import {
  errorLines,
  judgeReply,
  keyOf,
  makeDataset,
  readRowsOf,
  synthRows,
  tempDirs,
  worldReply,
  writePredictions,
  type Dataset,
} from '../../support/dataset.js';
import { startOpenAIServer, type FakeServer } from '../../support/openai-server.js';
import { refusalLine, snapshot } from '../../support/refusal.js';

const temps = tempDirs('bad-input');
let world: FakeServer;
let judgeServer: FakeServer;
let root: string;
let good: Dataset;
/** A finished run's output that every refused run below must leave untouched. */
let existing: string;
let predictions: string;

before(async () => {
  world = await startOpenAIServer({ reply: worldReply });
  judgeServer = await startOpenAIServer({ reply: judgeReply });
  root = await temps.make();
  good = await makeDataset(root, 21);
  existing = join(root, 'out', 'pred.jsonl');
  const r = await runAwb(inferArgs(good.dir, existing));
  assert.equal(r.code, 0, r.stderr);
  predictions = join(root, 'predictions.jsonl');
  await writePredictions(good, predictions);
});

after(async () => {
  await world.close();
  await judgeServer.close();
  await temps.cleanup();
});

function inferArgs(data: string, out: string, extra: string[] = []): string[] {
  return ['infer', '--model-base-url', world.url, '--model-name', 'test-model', '--data', data, '-o', out, '--no-progress', ...extra];
}

function judgeArgs(preds: string, out: string, extra: string[] = []): string[] {
  return [
    'judge',
    '--judge-base-url',
    judgeServer.url,
    '--judge-model',
    'test-model',
    '--predictions',
    preds,
    '-o',
    out,
    '--no-progress',
    ...extra,
  ];
}

/** A copy of the good dataset with one domain file replaced. */
async function datasetWith(file: string, text: string): Promise<string> {
  const dir = join(await temps.make(), 'data');
  await cp(good.dir, dir, { recursive: true });
  await writeFile(join(dir, file), text);
  return dir;
}

/** The good web file with line `lineNo` (1-based) replaced or, with `insert`, a line put before it. */
async function webWithLine(lineNo: number, line: string, insert = false): Promise<string> {
  const lines = (await readFile(good.files.get('web')!, 'utf8')).split('\n').filter(Boolean);
  lines.splice(lineNo - 1, insert ? 0 : 1, line);
  return datasetWith('web_test.jsonl', lines.map((l) => `${l}\n`).join(''));
}

/**
 * Runs awb and checks it refused cleanly: one error line matching `pattern`,
 * no stack, files untouched and nothing sent. A bad row is found while rows
 * are sent (checking all rows first would cost a full parse of the data
 * before the first request), so with `atRow` the rows before it may have
 * been sent and appended: the earlier content must still be there, whole.
 */
async function assertRefused(
  args: string[],
  pattern: RegExp,
  opts: { files?: string[]; server?: FakeServer; atRow?: boolean } = {},
): Promise<AwbResult> {
  const files = opts.files ?? [existing, `${existing}.manifest.json`];
  const server = opts.server ?? world;
  const before = await snapshot(files);
  const requests = server.stats.requests;
  const r = await runAwb(args);
  assert.match(refusalLine(r), pattern);
  if (!opts.atRow) assert.equal(server.stats.requests, requests, 'a refused run sent chat requests');
  const after = await snapshot(files);
  for (const [p, b] of before) {
    const a = after.get(p);
    if (opts.atRow && p.endsWith('.manifest.json')) continue;
    if (opts.atRow && p.endsWith('.jsonl') && b !== undefined && a !== undefined) {
      assert.ok(a.subarray(0, b.length).equals(b), `${p}: earlier content changed`);
      assert.ok(a.length === 0 || a[a.length - 1] === 0x0a, `${p}: ends in a cut line`);
      continue;
    }
    assert.ok(b === undefined ? a === undefined : a !== undefined && a.equals(b), `${p} changed`);
  }
  return r;
}

const webLine = (n: number) => new RegExp(`web_test\\.jsonl:${n}: `);

// One at a time: the runs stopped at a bad row append to the shared output that the others snapshot.
describe('bad data', { concurrency: 1 }, () => {
  it('a data folder that does not exist', async () => {
    await assertRefused(inferArgs(join(root, 'nope'), existing), /nope: no such data folder/);
  });

  it('a folder without *_test.jsonl files', async () => {
    const dir = join(await temps.make(), 'data');
    await mkdir(dir);
    await writeFile(join(dir, 'train.jsonl'), await readFile(good.files.get('web')!, 'utf8'));
    await writeFile(join(dir, 'README.md'), '# not the dataset\n');
    await assertRefused(inferArgs(dir, existing), /holds no \*_test\.jsonl files/);
  });

  it('a file that is not JSONL', async () => {
    const dir = await datasetWith('os_test.jsonl', 'task,id,prompt,response\nos,1,ls,file.txt\n');
    await assertRefused(inferArgs(dir, existing), /os_test\.jsonl:1: not valid JSON/, { atRow: true });
  });

  it('one malformed line among good ones names its line', async () => {
    const dir = await webWithLine(2, '{"task": "web", "id": 77, "prompt": ["a"], ', true);
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(2).source}not valid JSON`), { atRow: true });
  });

  it('a row without turn_idx names the field', async () => {
    const row = { ...good.rows.find((r) => r.task === 'web')! } as Record<string, unknown>;
    delete row.turn_idx;
    const dir = await webWithLine(1, JSON.stringify(row));
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(1).source}turn_idx: is missing`), { atRow: true });
  });

  it('a row whose prompt is a number names the field', async () => {
    const row = { ...good.rows.find((r) => r.task === 'web')!, prompt: 42 };
    const dir = await webWithLine(2, JSON.stringify(row));
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(2).source}prompt: `), { atRow: true });
  });

  it('a turn_idx of the wrong type is not reported as missing', async () => {
    const row = { ...good.rows.find((r) => r.task === 'web')!, turn_idx: '1' };
    const dir = await webWithLine(1, JSON.stringify(row));
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(1).source}turn_idx: .*expected number, received string`), {
      atRow: true,
    });
  });

  it('a prompt list with a non-string item names the item', async () => {
    const row = { ...good.rows.find((r) => r.task === 'web')!, prompt: ['a', 3] };
    const dir = await webWithLine(2, JSON.stringify(row));
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(2).source}prompt\\.1: .*expected string, received number`), {
      atRow: true,
    });
  });

  it('a turn_idx beyond the responses', async () => {
    const row = { ...good.rows.find((r) => r.task === 'web')!, turn_idx: 4 };
    const dir = await webWithLine(1, JSON.stringify(row));
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(1).source}turn_idx: is 4 but response has 1`), { atRow: true });
  });

  it('bytes that are not UTF-8 name the line and field, rather than reaching the model as U+FFFD', async () => {
    const [head, tail] = JSON.stringify({ ...good.rows.find((r) => r.task === 'web')!, system_str: 'caf@' }).split('@') as [string, string];
    const lines = (await readFile(good.files.get('web')!, 'utf8')).split('\n').filter(Boolean);
    // é as Latin-1, one byte 0xE9: a row saved in the wrong encoding.
    const bad = Buffer.concat([Buffer.from(head), Buffer.from([0xe9]), Buffer.from(tail)]);
    const text = Buffer.concat([
      Buffer.from(`${lines[0]}\n`),
      bad,
      Buffer.from(
        lines
          .slice(1)
          .map((l) => `\n${l}`)
          .join('') + '\n',
      ),
    ]);
    const dir = join(await temps.make(), 'data');
    await cp(good.dir, dir, { recursive: true });
    await writeFile(join(dir, 'web_test.jsonl'), text);
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(2).source}system_str: is not valid UTF-8`), { atRow: true });
  });

  it('a row repeating the key of another, differing only outside it (history, total_turns), says what they share', async () => {
    const row = good.rows.find((r) => r.task === 'web')! as Record<string, unknown>;
    const twin = { ...row, total_turns: Number(row.total_turns ?? 1) + 5 };
    const dir = await webWithLine(2, JSON.stringify(twin), true);
    const r = await assertRefused(inferArgs(dir, existing), webLine(2), { atRow: true });
    assert.match(
      refusalLine(r),
      /web_test\.jsonl:2: the same row as \S+web_test\.jsonl:1 \(same task, id, turn_idx, system_str, action and ground truth\)/,
    );
  });

  it('a finished row whose line has since gone bad outside its key is reported on a resume, not passed over', async () => {
    const row = good.rows.find((r) => r.task === 'web')! as Record<string, unknown>;
    const dir = await webWithLine(1, JSON.stringify({ ...row, total_turns: 0 }));
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(1).source}total_turns: `), { atRow: true });
  });

  it('a bad copy of a finished row put before it is reported for its own fault, not the good row as its repeat', async () => {
    const row = good.rows.find((r) => r.task === 'web')! as Record<string, unknown>;
    const dir = await webWithLine(1, JSON.stringify({ ...row, total_turns: 0 }), true);
    await assertRefused(inferArgs(dir, existing), new RegExp(`${webLine(1).source}total_turns: `), { atRow: true });
  });

  it('a bad prediction row stops the judge the same way', async () => {
    const dir = await temps.make();
    const preds = join(dir, 'pred.jsonl');
    const lines = (await readFile(predictions, 'utf8')).split('\n');
    lines[3] = lines[3]!.replace(/"gen":"/, '"gen":{"oops":"');
    await writeFile(preds, lines.join('\n'));
    const out = join(dir, 'judged.jsonl');
    await writeFile(out, '');
    await assertRefused(judgeArgs(preds, out), /pred\.jsonl:4: /, { files: [out, preds], server: judgeServer, atRow: true });
  });

  it('a predictions row without gen (edited by hand) is refused at its line and field, not judged as a failed inference', async () => {
    const dir = await temps.make();
    const preds = join(dir, 'pred.jsonl');
    const lines = (await readFile(predictions, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace(/,"gen":"(?:[^"\\]|\\.)*"/, '');
    assert.doesNotMatch(lines[2]!, /"gen"/);
    await writeFile(preds, lines.join('\n'));
    const out = join(dir, 'judged.jsonl');
    await writeFile(out, '');
    const r = await assertRefused(judgeArgs(preds, out), /pred\.jsonl:3: gen: is missing/, {
      files: [out],
      server: judgeServer,
      atRow: true,
    });
    assert.equal(r.code, 2);
    assert.ok((await readRowsOf(out)).every((row) => row.gen !== undefined));
  });

  it('a predictions row that lost its gen after it was judged is reported at its line and field on a resume', async () => {
    const dir = await temps.make();
    const preds = join(dir, 'pred.jsonl');
    const out = join(dir, 'judged.jsonl');
    assert.equal((await runAwb(judgeArgs(predictions, out))).code, 0);
    const lines = (await readFile(predictions, 'utf8')).split('\n');
    lines[2] = lines[2]!.replace(/,"gen":"(?:[^"\\]|\\.)*"/, '');
    lines[3] = lines[3]!.replace(/"gen":"(?:[^"\\]|\\.)*"/, '"gen":42');
    await writeFile(preds, lines.join('\n'));
    // Stopped at the first, or each reported with --on-bad-row skip: never refused as judgements of other predictions.
    const stopped = await runAwb(judgeArgs(preds, out));
    assert.equal(stopped.code, 2, stopped.stderr);
    assert.match(refusalLine(stopped), /pred\.jsonl:3: gen: is missing/);
    const skipped = await runAwb(judgeArgs(preds, out, ['--on-bad-row', 'skip']));
    assert.match(skipped.stderr, /pred\.jsonl:3: gen: is missing/, skipped.stderr);
    assert.match(skipped.stderr, /pred\.jsonl:4: gen: /, skipped.stderr);
    assert.doesNotMatch(skipped.stderr, /other predictions/, skipped.stderr);
  });

  it('a predictions row with gen null is a failed request, as the official script writes one', async () => {
    const dir = await temps.make();
    const preds = join(dir, 'pred.jsonl');
    const lines = (await readFile(predictions, 'utf8')).split('\n');
    lines[0] = lines[0]!.replace(/"gen":"(?:[^"\\]|\\.)*"/, '"gen":null');
    await writeFile(preds, lines.join('\n'));
    const out = join(dir, 'judged.jsonl');
    const r = await runAwb(judgeArgs(preds, out));
    // Every row is written, and the one that ended failed makes the run exit 1.
    assert.equal(r.code, 1, r.stderr);
    const rows = await readRowsOf(out);
    assert.equal(rows.length, lines.filter(Boolean).length);
    assert.equal(rows.filter((row) => row.failed === 1 && row.error_message === 'No model generation').length, 1);
  });
});

describe('--on-bad-row stop', () => {
  it('sends and saves every row before the bad one, even those still waiting for a slot, then resumes after the fix', async (t) => {
    // Its own slow server: with one slot, the rows before the bad one are still queued when it is read.
    const s = await startOpenAIServer({ reply: worldReply, latencyMs: 150 });
    t.after(() => s.close());
    const web = (await readFile(good.files.get('web')!, 'utf8')).split('\n').filter(Boolean);
    assert.ok(web.length >= 3);
    const dir = join(await temps.make(), 'data');
    await mkdir(dir);
    const badLines = [...web.slice(0, 2), '{"task": "web", "id": 1, "prompt": 7}', ...web.slice(2)];
    await writeFile(join(dir, 'web_test.jsonl'), badLines.map((l) => `${l}\n`).join(''));
    const out = join(dir, '..', 'pred.jsonl');
    const args = inferArgs(dir, out, ['-c', '1']);
    args[args.indexOf(world.url)] = s.url;
    const r = await runAwb(args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(errorLines(r.stderr).join('\n'), /web_test\.jsonl:3: .*rows before it are done and saved/);
    assert.equal((await readFile(out, 'utf8')).split('\n').filter(Boolean).length, 2);

    await writeFile(join(dir, 'web_test.jsonl'), web.map((l) => `${l}\n`).join(''));
    const again = await runAwb(args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await readFile(out, 'utf8')).split('\n').filter(Boolean).length, web.length);
    assert.equal(s.stats.successes, web.length, 'a saved row was sent again');
  });

  it('found first (it heads the longest trajectory): rows before it are still sent, rows after it never are', async (t) => {
    const s = await startOpenAIServer({ reply: worldReply });
    t.after(() => s.close());
    // Trajectories of 1, 2 and 3 turns; the 3-turn one goes first, so its bad turn 1 is read before any row above it is sent.
    const [a1, b1, b2, c1, c2, c3] = synthRows(6, ['web']).map((r) => JSON.stringify(r));
    const bad = c1!.replace('"response":[', '"response":[7,');
    const dir = join(await temps.make(), 'data');
    await mkdir(dir);
    const file = join(dir, 'web_test.jsonl');
    const above = [a1!, b1!];
    const write = (middle: string) => writeFile(file, [...above, middle, c2!, c3!, b2!].map((l) => `${l}\n`).join(''));
    await write(bad);
    const out = join(dir, '..', 'pred.jsonl');
    const args = ['infer', '--model-base-url', s.url, '--model-name', 'test-model', '--data', dir, '-o', out, '--no-progress', '-c', '2'];
    const r = await runAwb(args);
    assert.equal(r.code, 2, r.stderr);
    assert.match(errorLines(r.stderr).join('\n'), /web_test\.jsonl:3: response.*rows before it are done and saved/);
    const saved = await readRowsOf(out);
    assert.deepEqual(new Set(saved.map(keyOf)), new Set(above.map((l) => keyOf(JSON.parse(l) as Record<string, unknown>))));
    assert.equal(s.stats.requests, above.length, 'a row after the bad one was sent');

    await write(c1!);
    const again = await runAwb(args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await readRowsOf(out)).length, 6);
    assert.equal(s.stats.successes, 6, 'a saved row was sent again');
  });

  it('a bad row found later but higher in the file moves the stop up to it; rows already sent stay saved', async (t) => {
    const s = await startOpenAIServer({ reply: worldReply });
    t.after(() => s.close());
    const [a1, b1, b2, c1, c2, c3] = synthRows(6, ['web']).map((r) => JSON.stringify(r));
    const dir = join(await temps.make(), 'data');
    await mkdir(dir);
    // c1 (line 4) heads the longest trajectory and is read first; the small bad line 2 is read last.
    const lines = [a1!, '{"task": "web", "id": 5, "prompt": 7}', b1!, c1!.replace('"response":[', '"response":[7,'), c2!, c3!, b2!];
    await writeFile(join(dir, 'web_test.jsonl'), lines.map((l) => `${l}\n`).join(''));
    const out = join(dir, '..', 'pred.jsonl');
    const r = await runAwb([
      'infer',
      '--model-base-url',
      s.url,
      '--model-name',
      'test-model',
      '--data',
      dir,
      '-o',
      out,
      '--no-progress',
      '-c',
      '2',
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(errorLines(r.stderr).join('\n'), /web_test\.jsonl:2: /);
    const sent = [a1!, b1!].map((l) => keyOf(JSON.parse(l) as Record<string, unknown>));
    assert.deepEqual(new Set((await readRowsOf(out)).map(keyOf)), new Set(sent));
    assert.equal(s.stats.requests, 2, 'a row after the first bad line was sent once it was found');
  });
});

describe('--on-bad-row skip', () => {
  it('skips the bad rows, reports them, and completes the rest', async () => {
    const lines = (await readFile(good.files.get('web')!, 'utf8')).split('\n').filter(Boolean);
    const noTurn = { ...(JSON.parse(lines[0]!) as Record<string, unknown>) };
    delete noTurn.turn_idx;
    const dir = await datasetWith(
      'web_test.jsonl',
      [JSON.stringify(noTurn), '{"task": "web", ', ...lines.slice(1)].map((l) => `${l}\n`).join(''),
    );
    const out = join(await temps.make(), 'pred.jsonl');
    const requests = world.stats.requests;
    const r = await runAwb(inferArgs(dir, out, ['--on-bad-row', 'skip']));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /skipped bad row: .*web_test\.jsonl:1: turn_idx: is missing/);
    assert.match(r.stderr, /skipped bad row: .*web_test\.jsonl:2: not valid JSON/);
    const rows = await readRowsOf(out);
    const expected = good.rows.filter((row) => keyOf(row) !== keyOf(JSON.parse(lines[0]!) as Record<string, unknown>));
    assert.deepEqual(new Set(rows.map(keyOf)), new Set(expected.map((row) => keyOf(row))));
    assert.equal(world.stats.requests - requests, expected.length);
    // The line whose task could not be read belongs to no domain: no '?' row in the summary or the manifest's counts.
    assert.doesNotMatch(r.stderr, /^\?\s/m);
    const manifest = JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as { counts: { per_domain: Record<string, unknown> } };
    assert.deepEqual(Object.keys(manifest.counts.per_domain).sort(), [...good.files.keys()].sort());
  });
});

describe('judge rubrics', () => {
  it('a domain without a rubric fails before any request', async () => {
    const dir = await temps.make();
    const rubrics = join(dir, 'rubrics');
    await cp(fileURLToPath(new URL('../../../rubrics/', import.meta.url)), rubrics, { recursive: true });
    await rm(join(rubrics, 'web.md'));
    assert.ok(!(await readdir(rubrics)).includes('web.md'));
    const out = join(dir, 'judged.jsonl');
    const lists = judgeServer.stats.modelListRequests;
    // The line of the first row that asks for it, so a misspelt task is found at once.
    const lines = (await readFile(predictions, 'utf8')).split('\n');
    const first = lines.findIndex((l) => /"task": ?"(agentworld\/)?web"/.test(l)) + 1;
    assert.ok(first > 0);
    await assertRefused(
      judgeArgs(predictions, out, ['--rubrics', rubrics]),
      new RegExp(`predictions\\.jsonl:${first}: task: no rubric for domain 'web'`),
      {
        files: [out, predictions],
        server: judgeServer,
      },
    );
    assert.equal(judgeServer.stats.modelListRequests, lists);
  });
});

describe('bad options', { concurrency: 4 }, () => {
  it('--concurrency 0', async () => {
    await assertRefused(
      inferArgs(good.dir, existing, ['--concurrency', '0']),
      /--concurrency must be a whole number from 1 to \d+, got "0"/,
    );
  });

  it('--extra-body that is not JSON', async () => {
    await assertRefused(inferArgs(good.dir, existing, ['--extra-body', '{"chat_template_kwargs": ']), /--extra-body is not valid JSON/);
  });

  it('--extra-body setting a field awb sets itself (stream, model, messages): refused, naming the option that does it', async () => {
    // "stream" would have the server answer events to a request read as one JSON reply: every row failed.
    await assertRefused(inferArgs(good.dir, existing, ['--extra-body', '{"stream": true}']), /--extra-body .*"stream".*--stream/);
    await assertRefused(inferArgs(good.dir, existing, ['--extra-body', '{"model": "other"}']), /--extra-body .*"model".*--model-name/);
    await assertRefused(
      judgeArgs(predictions, join(root, 'judged-extra.jsonl'), ['--extra-body', '{"messages": []}']),
      /--extra-body .*"messages"/,
      { files: [predictions], server: judgeServer },
    );
  });

  it('--data with --revision', async () => {
    await assertRefused(inferArgs(good.dir, existing, ['--revision', 'x']), /--revision .*--data/);
  });

  it('judge --output equal to --predictions', async () => {
    await assertRefused(judgeArgs(predictions, predictions), /also the input/, { files: [predictions], server: judgeServer });
  });

  it('judge --output equal to --predictions, spelled differently', async () => {
    await assertRefused(judgeArgs(predictions, join(root, '.', 'out', '..', 'predictions.jsonl')), /also the input/, {
      files: [predictions],
      server: judgeServer,
    });
  });
});

describe('output that cannot be written', { concurrency: 4 }, () => {
  it('a path under a regular file', async () => {
    const dir = await temps.make();
    await writeFile(join(dir, 'afile'), 'x');
    await assertRefused(inferArgs(good.dir, join(dir, 'afile', 'pred.jsonl')), /afile: is a file, not a folder/, {
      files: [join(dir, 'afile')],
    });
    await assertRefused(inferArgs(good.dir, join(dir, 'afile', 'sub', 'pred.jsonl')), /afile.*not a folder/, {
      files: [join(dir, 'afile')],
    });
  });

  it('a path under /proc', async () => {
    await assertRefused(inferArgs(good.dir, '/proc/awb-test-output/pred.jsonl'), /\/proc\/awb-test-output: cannot create a folder/, {
      files: [],
    });
    const r = await assertRefused(inferArgs(good.dir, '/proc/awb-test-pred.jsonl'), /\/proc\/awb-test-pred\.jsonl/, { files: [] });
    assert.ok(r.code !== null && r.code !== 0);
  });

  it('an empty path, or one ending in / (a folder that does not exist yet): refused before anything is written', async () => {
    const dir = await temps.make();
    await assertRefused(inferArgs(good.dir, ''), /--output is empty/, { files: [] });
    await assertRefused(inferArgs(good.dir, `${join(dir, 'new')}/`), /new\/: ends in "\/", a folder; --output takes a file path/, {
      files: [],
    });
    assert.deepEqual(await readdir(dir), []);
  });

  it('a folder as the output', async () => {
    const dir = await temps.make();
    await assertRefused(inferArgs(good.dir, dir), /is a folder/, { files: [] });
  });

  it('a full disk while writing', async (t) => {
    if (!existsSync('/dev/full')) return t.skip('no /dev/full here');
    const dir = await temps.make();
    const out = join(dir, 'pred.jsonl');
    await symlink('/dev/full', out);
    // Its own server: the tests beside it count requests on the shared one.
    const s = await startOpenAIServer({ reply: worldReply });
    t.after(() => s.close());
    const args = inferArgs(good.dir, out, ['-c', '2']);
    args[args.indexOf(world.url)] = s.url;
    assert.match(refusalLine(await runAwb(args)), /pred\.jsonl: the disk is full/);
    // It stops at the first failed write instead of spending a request on every row.
    assert.ok(s.stats.successes <= 4, `${s.stats.successes} requests answered`);
  });
});

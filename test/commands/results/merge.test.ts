import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { domainOfTask } from '../../../src/core/domains.js';
import { manifestSchema, type Manifest } from '../../../src/core/schemas/manifest.js';
import { runAwb, type AwbResult } from '../../support/cli.js';
import { startOpenAIServer, type ChatRequest, type FakeServer } from '../../support/openai-server.js';

/*
 * Sharded runs end to end through the real binary: infer and judge split
 * three ways against local servers whose replies depend only on the request,
 * so a sharded run and an unsharded one must agree row for row.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const FIXTURES = join(ROOT, 'fixtures', 'data');
const FIXTURE_ROWS = 28;

const digest = (req: ChatRequest) => createHash('sha256').update(JSON.stringify(req.messages)).digest('hex');
const worldReply = (req: ChatRequest) => `predicted observation ${digest(req).slice(0, 12)}`;
function judgeReply(req: ChatRequest): string {
  const h = digest(req);
  const s = (i: number) => 1 + (parseInt(h.slice(i, i + 2), 16) % 5);
  return `Compared.\n<final_evaluation>\n{"scores": {"format": ${s(0)}, "factuality": ${s(2)}, "consistency": ${s(4)}, "realism": ${s(6)}, "quality": ${s(8)}}, "strengths": [], "weaknesses": []}\n</final_evaluation>`;
}

let world: FakeServer;
let judge: FakeServer;
let work: string;
/** Outputs made once in `before`, copied by each test that alters them. */
const made: Record<string, string> = {};

const p = (name: string) => join(work, name);

function worldArgs(output: string, ...extra: string[]): string[] {
  return [
    'infer',
    '--data',
    FIXTURES,
    '--model-base-url',
    world.url,
    '--model-name',
    'wm',
    '--output',
    output,
    '--concurrency',
    '4',
    '--no-progress',
    ...extra,
  ];
}

function judgeArgs(predictions: string, output: string, ...extra: string[]): string[] {
  return [
    'judge',
    '--predictions',
    predictions,
    '--judge-base-url',
    judge.url,
    '--judge-model',
    'jm',
    '--output',
    output,
    '--concurrency',
    '4',
    '--no-progress',
    ...extra,
  ];
}

async function ok(args: string[]): Promise<AwbResult> {
  const r = await runAwb(args);
  assert.equal(r.code, 0, `awb ${args[0]} failed (${r.code}):\n${r.stderr}`);
  return r;
}

interface Line {
  raw: string;
  row: Record<string, unknown>;
}

async function lines(file: string): Promise<Line[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((raw) => ({ raw, row: parseLossless(raw) as Record<string, unknown> }));
}

/** (task, id, turn_idx, gen): ids compared as exact text, since one is beyond 2^53. */
const ident = (l: Line) => JSON.stringify([l.row.task, String(l.row.id), String(l.row.turn_idx), l.row.gen]);

/** The whole row minus what varies between runs of the same request. */
function content(l: Line): string {
  const { latency_ms: _a, endpoint: _b, judge_latency_ms: _c, judge_endpoint: _d, ...rest } = l.row;
  return stringifyLossless(rest) ?? '';
}

const sorted = (xs: string[]) => [...xs].sort();

const display = (l: Line) => `${domainOfTask(String(l.row.task))} id ${String(l.row.id)} turn ${String(l.row.turn_idx)}`;

async function manifestOf(file: string): Promise<Manifest> {
  return manifestSchema.parse(JSON.parse(await readFile(`${file}.manifest.json`, 'utf8')));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Copies outputs (with their manifests) into a fresh folder, so a test can damage them freely. */
async function copies(...names: string[]): Promise<{ dir: string; files: string[] }> {
  const dir = await mkdtemp(join(work, 'case-'));
  const files = [];
  for (const name of names) {
    const to = join(dir, basename(made[name]!));
    await copyFile(made[name]!, to);
    await copyFile(`${made[name]!}.manifest.json`, `${to}.manifest.json`);
    files.push(to);
  }
  return { dir, files };
}

/** A refusal: non-zero exit, one line on stderr, and nothing written at OUT. */
async function refused(out: string, args: string[]): Promise<string> {
  const r = await runAwb(['merge', '-o', out, ...args]);
  assert.notEqual(r.code, 0, `merge should refuse, got exit 0:\n${r.stderr}`);
  const message = r.stderr.trim();
  assert.equal(message.split('\n').length, 1, `expected one line, got:\n${r.stderr}`);
  assert.match(message, /^awb: /);
  assert.ok(!(await exists(out)), 'OUT must not be written');
  assert.ok(!(await exists(`${out}.manifest.json`)), 'no manifest for OUT');
  const leftovers = (await readdir(join(out, '..'))).filter((n) => n.startsWith(basename(out)));
  assert.deepEqual(leftovers, [], 'no temporary file left beside OUT');
  return message;
}

before(async () => {
  world = await startOpenAIServer({ models: ['wm', 'wm-other'], reply: worldReply });
  judge = await startOpenAIServer({ models: ['jm'], reply: judgeReply });
  work = await mkdtemp(join(tmpdir(), 'awb-merge-'));
  const runs: Array<[string, string[]]> = [['all', []]];
  for (const k of [1, 2, 3]) runs.push([`s${k}`, ['--shard', `${k}/3`]]);
  runs.push(['s3-hot', ['--shard', '3/3', '--temperature', '0.7']]);
  runs.push(['s3-other-model', ['--shard', '3/3']]);
  await Promise.all(
    runs.map(async ([name, extra]) => {
      made[name] = p(`${name}.jsonl`);
      const args = worldArgs(made[name]!, ...extra);
      if (name === 's3-other-model') args[args.indexOf('wm')] = 'wm-other';
      await ok(args);
    }),
  );
});

after(async () => {
  await Promise.all([world?.close(), judge?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('awb infer --shard, then awb merge', () => {
  it('three shards are disjoint and cover the fixture data once, both android duplicates included', async () => {
    const shards = await Promise.all([1, 2, 3].map((k) => lines(made[`s${k}`]!)));
    const all = await lines(made.all!);
    assert.equal(all.length, FIXTURE_ROWS);
    for (const s of shards) assert.ok(s.length > 0, 'no shard is empty');
    const joined = shards.flat();
    assert.equal(joined.length, FIXTURE_ROWS);
    assert.equal(new Set(joined.map(ident)).size, FIXTURE_ROWS, 'no row in two shards');
    assert.deepEqual(sorted(joined.map(ident)), sorted(all.map(ident)));
    const dup = joined.filter((l) => display(l) === 'android id 3107 turn 2');
    assert.equal(dup.length, 2, 'both rows of the duplicated android (id, turn) pair are predicted');
    assert.notEqual(dup[0]!.row.gen, dup[1]!.row.gen);
    assert.ok(
      joined.some((l) => String(l.row.id) === '18446744073709551557'),
      'the id beyond 2^53 survives exactly',
    );

    for (const k of [1, 2, 3]) {
      const m = await manifestOf(made[`s${k}`]!);
      assert.deepEqual(m.settings.shard, { index: k, count: 3 });
      assert.equal(m.complete, true);
      assert.equal(m.counts.total, shards[k - 1]!.length);
    }
  });

  it('merge gives the rows of one unsharded run, with a manifest for the whole data', async () => {
    const out = p('merged.jsonl');
    const r = await ok(['merge', '-o', out, made.s1!, made.s2!, made.s3!]);
    assert.match(r.stderr, /wrote 28 rows from 3 shards/);
    made.merged = out;

    const merged = await lines(out);
    const all = await lines(made.all!);
    assert.deepEqual(sorted(merged.map(ident)), sorted(all.map(ident)));
    assert.deepEqual(sorted(merged.map(content)), sorted(all.map(content)));
    const shardLines = (await Promise.all([1, 2, 3].map((k) => lines(made[`s${k}`]!)))).flat();
    assert.deepEqual(sorted(merged.map((l) => l.raw)), sorted(shardLines.map((l) => l.raw)), 'shard lines are copied byte for byte');

    const m = await manifestOf(out);
    const whole = await manifestOf(made.all!);
    assert.equal(m.settings.shard, undefined);
    assert.deepEqual(m.settings, whole.settings);
    assert.equal(m.stage, 'infer');
    assert.equal(m.complete, true);
    assert.ok(m.finished_at);
    assert.deepEqual(
      { total: m.counts.total, done: m.counts.done, failed: m.counts.failed },
      { total: FIXTURE_ROWS, done: FIXTURE_ROWS, failed: 0 },
    );
    assert.deepEqual(m.counts.per_domain, whole.counts.per_domain);
    assert.deepEqual(m.dataset.rows, whole.dataset.rows);
    assert.deepEqual(m.dataset.domains, whole.dataset.domains, "every domain of the data, not only the first shard's");
    assert.equal(m.usage.prompt_tokens, whole.usage.prompt_tokens);
    assert.equal(m.usage.completion_tokens, whole.usage.completion_tokens);
  });

  it('shards saved with CRLF endings (and a byte order mark) merge into the same LF lines, no \\r kept', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    for (const [i, f] of files.entries()) {
      const crlf = (await readFile(f, 'utf8')).replaceAll('\n', '\r\n');
      await writeFile(f, `${i === 0 ? '\uFEFF' : ''}${crlf}`);
    }
    const out = join(dir, 'merged.jsonl');
    await ok(['merge', '-o', out, ...files]);
    const text = await readFile(out, 'utf8');
    assert.ok(!text.includes('\r'), 'the merged file mixes CRLF lines into LF ones');
    const shardLines = (await Promise.all([1, 2, 3].map((k) => lines(made[`s${k}`]!)))).flat();
    assert.deepEqual(sorted((await lines(out)).map((l) => l.raw)), sorted(shardLines.map((l) => l.raw)));
  });

  it("the merged manifest keeps every shard's record of mixed runs", async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    // As a resume forced past other settings leaves them (test/mixed.test.ts); the first shard has none.
    const records = [2, 3].map((k) => ({
      at: `2026-01-0${k}T00:00:00.000Z`,
      reason: `sampling: was {"temperature":0.${k}}, now {"temperature":0.6}`,
      rows: k,
    }));
    for (const [i, record] of records.entries()) {
      const path = `${files[i + 1]!}.manifest.json`;
      const m = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      await writeFile(path, JSON.stringify({ ...m, mixed: [record] }));
    }
    const out = join(dir, 'merged.jsonl');
    await ok(['merge', '-o', out, ...files]);
    assert.deepEqual((await manifestOf(out)).mixed, records);
  });

  it("the merged manifest lists every shard's Batch API batches, each once", async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    // As `--batch` shards leave them; the first shard asked online only, two shards share a batch (a resumed run).
    const batches = [[], ['batch_a', 'batch_b'], ['batch_b', 'batch_c']];
    for (const [i, ids] of batches.entries()) {
      const path = `${files[i]!}.manifest.json`;
      const m = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
      await writeFile(path, JSON.stringify({ ...m, ...(ids.length ? { batches: ids } : {}) }));
    }
    const out = join(dir, 'merged.jsonl');
    await ok(['merge', '-o', out, ...files]);
    assert.deepEqual((await manifestOf(out)).batches, ['batch_a', 'batch_b', 'batch_c']);
  });

  it('judge shards merged score exactly like the unsharded judged file', async () => {
    assert.ok(made.merged, 'needs the merged predictions of the previous test');
    const whole = p('judged-all.jsonl');
    await ok(judgeArgs(made.all!, whole));
    const parts = [1, 2, 3].map((k) => p(`judged-s${k}.jsonl`));
    await Promise.all(parts.map((part, i) => ok(judgeArgs(made.merged!, part, '--shard', `${i + 1}/3`))));
    for (const [i, part] of parts.entries()) assert.deepEqual((await manifestOf(part)).settings.shard, { index: i + 1, count: 3 });

    const merged = p('judged-merged.jsonl');
    // The form scripts written before -o use: the first positional is the merged file.
    await ok(['merge', merged, ...parts]);
    const m = await manifestOf(merged);
    assert.equal(m.stage, 'judge');
    assert.equal(m.complete, true);
    assert.equal(m.settings.shard, undefined);
    assert.equal(m.counts.total, FIXTURE_ROWS);
    const judgedWhole = await lines(whole);
    const judgedMerged = await lines(merged);
    assert.deepEqual(sorted(judgedMerged.map(ident)), sorted(judgedWhole.map(ident)));
    assert.deepEqual(sorted(judgedMerged.map(content)), sorted(judgedWhole.map(content)));

    const score = async (file: string) => {
      const r = await ok(['score', file, '--format', 'json', '--no-ci']);
      const report = JSON.parse(r.stdout) as { domains: string[]; runs: Array<Record<string, unknown>> };
      assert.equal(report.runs.length, 1);
      const { file: _file, ...run } = report.runs[0]!;
      return { domains: report.domains, run };
    };
    const a = await score(whole);
    const b = await score(merged);
    assert.deepEqual(b, a);
    assert.equal((a.run.overall as { micro: { rows: number } }).micro.rows, FIXTURE_ROWS);
  });

  it('judge runs of infer shards that hold different domains (each loads only its rubrics) merge, with the rubrics of every domain', async () => {
    const whole = await manifestOf(p('judged-all.jsonl'));
    assert.ok(whole.settings.rubrics?.domains, 'needs the unsharded judged file of an earlier test');
    const parts = [1, 2, 3].map((k) => p(`judged-of-s${k}.jsonl`));
    await Promise.all(parts.map((part, i) => ok(judgeArgs(made[`s${i + 1}`]!, part))));
    const recorded = await Promise.all(parts.map(async (part) => Object.keys((await manifestOf(part)).settings.rubrics?.domains ?? {})));
    assert.ok(
      recorded.some((domains) => domains.length < 7),
      `some infer shard of 3 should lack a domain: ${JSON.stringify(recorded)}`,
    );
    const merged = p('judged-of-merged.jsonl');
    await ok(['merge', '-o', merged, ...parts]);
    assert.deepEqual((await manifestOf(merged)).settings.rubrics?.domains, whole.settings.rubrics.domains);

    // A shard judged with another rubric for a domain it shares with another shard is refused, naming the domain.
    const domain = recorded[0]!.find((d) => recorded[1]!.includes(d));
    assert.ok(domain, `shards 1 and 2 should share a domain: ${JSON.stringify(recorded)}`);
    parts.forEach((part, i) => (made[`judged-of-s${i + 1}`] = part));
    const { dir, files } = await copies('judged-of-s1', 'judged-of-s2', 'judged-of-s3');
    const m = await manifestOf(files[1]!);
    m.settings.rubrics!.domains![domain] = 'f'.repeat(64);
    await writeFile(`${files[1]!}.manifest.json`, JSON.stringify(m));
    assert.match(await refused(join(dir, 'out.jsonl'), files), new RegExp(`another ${domain} rubric`));
  });

  it('a judged shard whose `failed` is no flag (0.5) is refused at its file, line and field, and nothing is written', async () => {
    assert.ok(made['judged-of-s1'], 'needs the judged shards of the previous test');
    const { dir, files } = await copies('judged-of-s1', 'judged-of-s2', 'judged-of-s3');
    const rows = (await readFile(files[1]!, 'utf8')).split('\n');
    rows[1] = JSON.stringify({ ...(JSON.parse(rows[1]!) as object), failed: 0.5 });
    await writeFile(files[1]!, rows.join('\n'));
    const said = await refused(join(dir, 'out.jsonl'), files);
    assert.match(said, new RegExp(`${basename(files[1]!).replace(/[.]/g, '\\.')}:2: failed: must be 0 \\(graded\\) or 1 \\(failed\\)`));
  });

  it('without -o, the shards of a run get default files of their own (-shard-K-of-N), side by side, that merge joins', async () => {
    const cwd = p('defaults');
    await mkdir(cwd);
    // infer's default folder is the current one's results/ (a process of its own there); judge's is beside the
    // predictions, named whole here, so judge runs in the test's process.
    const run = async (args: string[]) => {
      const at = args.indexOf('--output');
      const argv = [...args.slice(0, at), ...args.slice(at + 2)];
      const r = await runAwb(argv, argv[0] === 'infer' ? { cwd } : {});
      assert.equal(r.code, 0, `awb ${argv.join(' ')} failed (${r.code}):\n${r.stderr}`);
    };
    const folder = join(cwd, 'results', 'wm');
    const inFolder = async (prefix: string) => sorted((await readdir(folder)).filter((f) => f.startsWith(prefix) && f.endsWith('.jsonl')));
    await Promise.all([1, 2, 3].map((k) => run(worldArgs('', '--shard', `${k}/3`))));
    const preds = ['predictions-shard-1-of-3.jsonl', 'predictions-shard-2-of-3.jsonl', 'predictions-shard-3-of-3.jsonl'];
    assert.deepEqual(await inFolder('predictions'), preds);
    // One shard's predictions judged alone keep its name; so does a judge run cut in shards.
    await Promise.all(preds.map((f) => run(judgeArgs(join(folder, f), ''))));
    const merged = join(folder, 'predictions.jsonl');
    await ok(['merge', '-o', merged, ...preds.map((f) => join(folder, f))]);
    assert.deepEqual(sorted((await lines(merged)).map(ident)), sorted((await lines(made.all!)).map(ident)));
    await Promise.all([1, 2].map((k) => run(judgeArgs(merged, '', '--shard', `${k}/2`))));
    assert.deepEqual(await inFolder('judged'), [
      'judged-shard-1-of-2.jsonl',
      'judged-shard-1-of-3.jsonl',
      'judged-shard-2-of-2.jsonl',
      'judged-shard-2-of-3.jsonl',
      'judged-shard-3-of-3.jsonl',
    ]);
  });

  it('checks coverage against --data when the folder recorded in the manifests is not on this machine', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    for (const f of files) {
      const m = JSON.parse(await readFile(`${f}.manifest.json`, 'utf8')) as Manifest;
      m.dataset.source = '/nonexistent/ci-runner-7/agentworldbench';
      await writeFile(`${f}.manifest.json`, JSON.stringify(m));
    }
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.match(msg, /\/nonexistent\/ci-runner-7\/agentworldbench/);
    assert.match(msg, /--data/);
    await ok(['merge', '-o', join(dir, 'out.jsonl'), ...files, '--data', FIXTURES]);
    assert.equal((await lines(join(dir, 'out.jsonl'))).length, FIXTURE_ROWS);
    // The merged manifest names the input the rows were checked against, not the shards' stale folder.
    assert.equal((await manifestOf(join(dir, 'out.jsonl'))).dataset.source, FIXTURES);
  });
});

describe('awb merge refuses what does not belong together', () => {
  it('a missing shard: names the missing rows by domain, id and turn', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const msg = await refused(join(dir, 'out.jsonl'), files.slice(0, 2));
    const absent = await lines(files[2]!);
    assert.match(msg, new RegExp(`${absent.length} rows missing`));
    for (const l of absent) assert.ok(msg.includes(display(l)), `message should name ${display(l)}: ${msg}`);
    assert.match(msg, /--allow-gaps/);
  });

  it('the same shard given twice, by path or as a copy', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const msg = await refused(join(dir, 'out.jsonl'), [...files, files[0]!]);
    assert.ok(msg.includes(`${files[0]!} is given twice`), msg);

    const copy = join(dir, 'shard-1-again.jsonl');
    await copyFile(files[0]!, copy);
    await copyFile(`${files[0]!}.manifest.json`, `${copy}.manifest.json`);
    const again = await refused(join(dir, 'out.jsonl'), [...files, copy]);
    assert.match(again, /shard-1-again\.jsonl/);
    assert.match(again, /both shard 1\/3/);
  });

  it("a shard's manifest that is not JSON: names it, without infer's advice to delete it and --force (merge cannot go on without it)", async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    await writeFile(`${files[1]!}.manifest.json`, '{"format": "agentworldbench-manifest", ');
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.ok(msg.includes(`${files[1]!}.manifest.json: not valid JSON`), msg);
    assert.doesNotMatch(msg, /--force|delete it/);
  });

  it('shards of different splits', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const m = JSON.parse(await readFile(`${files[2]!}.manifest.json`, 'utf8')) as Manifest;
    m.settings.shard = { index: 3, count: 4 };
    await writeFile(`${files[2]!}.manifest.json`, JSON.stringify(m));
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.match(msg, /different splits/);
  });

  it('a line copied into another shard: names the row', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const stray = (await lines(files[0]!))[0]!;
    await writeFile(files[1]!, `${await readFile(files[1]!, 'utf8')}${stray.raw}\n`);
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.match(msg, /more than once/);
    assert.ok(msg.includes(display(stray)), msg);
  });

  it('a shard made with another temperature: says the sampling differs', async () => {
    const { dir, files } = await copies('s1', 's2', 's3-hot');
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.match(msg, /s3-hot\.jsonl/);
    assert.match(msg, /temperature/);
    assert.match(msg, /0\.6/);
    assert.match(msg, /0\.7/);
  });

  it('a shard made with another model name: says the model differs', async () => {
    const { dir, files } = await copies('s1', 's2', 's3-other-model');
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.match(msg, /world_model/);
    assert.match(msg, /wm-other/);
  });

  it('a shard whose last line is cut short', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const size = (await stat(files[1]!)).size;
    await truncate(files[1]!, size - 25);
    const msg = await refused(join(dir, 'out.jsonl'), files);
    assert.match(msg, /cut short/);
    assert.ok(msg.includes(basename(files[1]!)), msg);
  });

  it('a shard holding a failed row: reports it; --allow-gaps writes it and says so', async () => {
    const { dir } = await copies();
    const failing = join(dir, 's2-failed.jsonl');
    const first = world.stats.requests + 1;
    world.setOptions({ faults: (_req, n) => (n === first ? '500' : undefined) });
    try {
      const r = await runAwb(worldArgs(failing, '--shard', '2/3', '--max-retries', '0', '--concurrency', '1'));
      assert.equal(r.code, 1, r.stderr);
    } finally {
      world.setOptions({ faults: undefined });
    }
    const bad = (await lines(failing)).filter((l) => l.row.error !== undefined);
    assert.equal(bad.length, 1);
    const { files } = await copies('s1', 's3');
    const out = join(dir, 'out.jsonl');
    const msg = await refused(out, [files[0]!, failing, files[1]!]);
    assert.match(msg, /1 row failed/);
    assert.ok(msg.includes(display(bad[0]!)), msg);

    const r = await runAwb(['merge', '-o', out, files[0]!, failing, files[1]!, '--allow-gaps']);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes(`failed: ${display(bad[0]!)}`), r.stderr);
    assert.equal((await lines(out)).length, FIXTURE_ROWS);
    const m = await manifestOf(out);
    assert.equal(m.complete, false);
    assert.equal(m.counts.failed, 1);
    assert.equal(m.counts.done, FIXTURE_ROWS - 1);
  });

  it('--allow-gaps writes what there is, lists every gap on stderr and exits 1', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const out = join(dir, 'out.jsonl');
    const r = await runAwb(['merge', '-o', out, files[0]!, files[1]!, '--allow-gaps']);
    assert.equal(r.code, 1, r.stderr);
    const present = [...(await lines(files[0]!)), ...(await lines(files[1]!))];
    const absent = await lines(files[2]!);
    const written = await lines(out);
    assert.deepEqual(sorted(written.map((l) => l.raw)), sorted(present.map((l) => l.raw)));
    for (const l of absent) assert.ok(r.stderr.includes(`missing: ${display(l)}`), `stderr should list ${display(l)}:\n${r.stderr}`);
    assert.match(r.stderr, new RegExp(`${absent.length} rows missing`));
    const m = await manifestOf(out);
    assert.equal(m.complete, false);
    assert.equal(m.finished_at, undefined);
    assert.equal(m.counts.total, FIXTURE_ROWS);
    assert.equal(m.counts.done, present.length);
    const whole = await manifestOf(made.all!);
    assert.deepEqual(m.dataset.rows, whole.dataset.rows, 'the data the merged file is measured against, gaps included');
    for (const [domain, c] of Object.entries(whole.counts.per_domain)) {
      assert.equal(m.counts.per_domain[domain]?.total, c.total, `${domain}: missing rows still count in the domain's total`);
    }
  });

  it('an existing OUT: refused without --force and left alone; replaced with --force', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const out = join(dir, 'out.jsonl');
    await writeFile(out, 'precious\n');
    const r = await runAwb(['merge', '-o', out, ...files]);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /already exists/);
    assert.match(r.stderr, /--force/);
    assert.equal(await readFile(out, 'utf8'), 'precious\n');

    await ok(['merge', '-o', out, ...files, '--force']);
    assert.equal((await lines(out)).length, FIXTURE_ROWS);
  });

  it('without -o, a first file that is a shard is never written over, --force or not: the shard kept', async () => {
    const { files } = await copies('s1', 's2', 's3');
    const before = await readFile(files[0]!, 'utf8');
    const r = await runAwb(['merge', ...files, '--force', '--allow-gaps']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /is shard 1\/3 of a run .*merge never writes over a shard; name the merged file with -o FILE/);
    assert.equal(await readFile(files[0]!, 'utf8'), before);
  });

  it('with -o every positional is a shard, the first one too; without -o a lone file is a usage error', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const out = join(dir, 'out.jsonl');
    const first = await readFile(files[0]!, 'utf8');
    const r = await ok(['merge', files[0]!, files[1]!, '-o', out, files[2]!]);
    assert.match(r.stderr, /wrote 28 rows from 3 shards/);
    assert.equal((await lines(out)).length, FIXTURE_ROWS);
    assert.equal(await readFile(files[0]!, 'utf8'), first, 'the first shard is read, not written');

    const lone = await runAwb(['merge', join(dir, 'other.jsonl')]);
    assert.equal(lone.code, 2);
    assert.match(lone.stderr.trim(), /^awb: merge: name the merged file with -o FILE/);
    assert.ok(!(await exists(join(dir, 'other.jsonl'))));
  });

  it('a merge cut short earlier leaves nothing that ends up in the next one', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const out = join(dir, 'out.jsonl');
    // What an interrupted merge leaves behind: the temporary file, part written.
    const partial = (await lines(files[0]!)).slice(0, 2);
    await writeFile(`${out}.awb-merging`, partial.map((l) => `${l.raw}\n`).join(''));
    await ok(['merge', '-o', out, ...files]);
    const written = await lines(out);
    assert.equal(written.length, FIXTURE_ROWS);
    assert.equal(new Set(written.map(ident)).size, FIXTURE_ROWS);
  });

  it('OUT named as one of the shards, spelled another way: refused, the shard kept', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const before = await readFile(files[0]!, 'utf8');
    const sameFile = relative(process.cwd(), join(dir, '.', basename(files[0]!)));
    const r = await runAwb(['merge', '-o', `./${sameFile}`, ...files, '--force']);
    assert.notEqual(r.code, 0, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /is also the input/);
    assert.equal(await readFile(files[0]!, 'utf8'), before);
  });

  it('OUT reaching a shard through a linked folder, with --force: refused naming both, the shard kept', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const alias = join(dir, 'alias');
    await symlink(dir, alias);
    const before = await readFile(files[0]!, 'utf8');
    const out = join(alias, basename(files[0]!));
    const r = await runAwb(['merge', '-o', out, ...files, '--force']);
    assert.notEqual(r.code, 0, r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(out) && r.stderr.includes(files[0]!), r.stderr);
    assert.equal(await readFile(files[0]!, 'utf8'), before);
  });

  it('OUT is a folder, with --force: one line, the folder untouched, nothing left beside it', async () => {
    const { dir, files } = await copies('s1', 's2', 's3');
    const out = join(dir, 'merged');
    await mkdir(out);
    const r = await runAwb(['merge', '-o', out, ...files, '--force']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^awb: .*merged: is a folder/);
    assert.deepEqual(await readdir(out), []);
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.startsWith('merged')),
      ['merged'],
    );
  });
});

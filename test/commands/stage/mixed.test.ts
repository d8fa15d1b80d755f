/*
 * A resume forced past other settings (or into rows of unknown settings)
 * leaves a file that mixes runs: its manifest says so from then on, the run
 * says so when it starts, and score and compare call the file not comparable.
 */
import assert from 'node:assert/strict';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runAwb } from '../../support/cli.js';
import { judgeReply, makeDataset, readJsonlFile, tempDirs, worldReply, writePredictions } from '../../support/dataset.js';
import { inferArgs, judgeArgs, useServers } from '../../support/harness.js';

const temps = tempDirs('mixed');
after(() => temps.cleanup());
const server = useServers();

interface MixedRecord {
  at: string;
  reason: string;
  rows: number;
  settings?: { sampling?: { temperature?: number } };
}

interface ManifestJson {
  settings: { sampling?: { temperature?: number }; judge_sampling?: { temperature?: number } };
  mixed?: MixedRecord[];
  upstream?: { mixed?: MixedRecord[] };
}

const readManifestJson = async (out: string) => JSON.parse(await readFile(`${out}.manifest.json`, 'utf8')) as ManifestJson;

/** Cuts the last `drop` lines, as an interrupted run leaves a file, so a resume has rows to redo. */
async function cutLast(out: string, drop: number): Promise<void> {
  const { lines } = await readJsonlFile(out);
  await writeFile(out, lines.slice(0, -drop).join('\n') + '\n');
}

/** A finished infer run: its folder, predictions file and command. */
async function inferred(): Promise<{ dir: string; preds: string; base: string[] }> {
  const dir = await temps.make();
  const ds = await makeDataset(dir, 14);
  const world = await server({ reply: worldReply });
  const preds = join(dir, 'pred.jsonl');
  const base = inferArgs(world.url, ds.dir, preds, ['-c', '4']);
  assert.equal((await runAwb(base)).code, 0);
  return { dir, preds, base };
}

/** The stderr lines that warn of a forced resume into a mixed file. */
const mixedWarnings = (stderr: string) => stderr.split('\n').filter((l) => /record the file as mixed/.test(l));

describe('a forced resume over other settings', () => {
  it('records the mix in the manifest, warns, and score and compare report the file as not comparable', async () => {
    const { dir, preds, base } = await inferred();
    const judge = await server({ reply: judgeReply });
    await cutLast(preds, 4);

    const forced = await runAwb([...base, '--temperature', '0.2', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    const warnings = mixedWarnings(forced.stderr);
    assert.equal(warnings.length, 1, forced.stderr);
    assert.match(warnings[0]!, /--force: the 10 rows already in .*pred\.jsonl .*sampling: was .*0\.6.*, now .*0\.2/);

    const m = await readManifestJson(preds);
    assert.equal(m.settings.sampling?.temperature, 0.2);
    assert.equal(m.mixed?.length, 1);
    const [record] = m.mixed!;
    assert.match(record!.reason, /^sampling: was .*0\.6.*, now .*0\.2/);
    assert.equal(record!.rows, 10);
    assert.equal(record!.settings?.sampling?.temperature, 0.6, 'the earlier settings are kept');
    assert.ok(!Number.isNaN(Date.parse(record!.at)));

    // Judging the mixed predictions carries the record in the judged file's upstream manifest.
    const judged = join(dir, 'judged.jsonl');
    assert.equal((await runAwb(judgeArgs(judge.url, preds, judged))).code, 0);
    assert.equal((await readManifestJson(judged)).upstream?.mixed?.length, 1);

    const score = await runAwb(['score', judged, '--no-ci']);
    assert.equal(score.code, 0, score.stderr);
    const notes = `${score.stdout}\n${score.stderr}`.split('\n').filter((l) => /mixes rows/.test(l));
    assert.equal(notes.length, 1, score.stdout);
    assert.match(
      notes[0]!,
      /not comparable: .*judged\.jsonl.* mixes rows made under different settings.*predictions: sampling: was .*0\.6.*, now .*0\.2/,
    );

    const page = join(dir, 'report.html');
    const report = await runAwb(['report', judged, '-o', page]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(await readFile(page, 'utf8'), /mixes rows made under different settings/);

    // The same rows with no record of the mix: the baseline compare sets against it.
    const clean = join(dir, 'clean.jsonl');
    await cp(judged, clean);
    const cm = await readManifestJson(judged);
    delete cm.upstream!.mixed;
    await writeFile(`${clean}.manifest.json`, JSON.stringify(cm));
    const compare = await runAwb(['compare', clean, judged]);
    assert.equal(compare.code, 0, compare.stderr);
    assert.match(compare.stdout, /not comparable: .*mixes rows made under different settings.*predictions: sampling/);
  });

  it('fails compare --fail-below as not comparable unless --allow-incomparable', async () => {
    const dir = await temps.make();
    const ds = await makeDataset(dir, 14);
    const preds = join(dir, 'pred.jsonl');
    await writePredictions(ds, preds);
    const judge = await server({ reply: judgeReply });
    const judged = join(dir, 'judged.jsonl');
    const base = judgeArgs(judge.url, preds, judged, ['-c', '4']);
    assert.equal((await runAwb(base)).code, 0);
    const baseline = join(dir, 'baseline.jsonl');
    await cp(judged, baseline);
    await cp(`${judged}.manifest.json`, `${baseline}.manifest.json`);

    // The fake judge's scores do not depend on its temperature: the candidate's deltas are all 0.
    await cutLast(judged, 5);
    const forced = await runAwb([...base, '--temperature', '0.3', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(mixedWarnings(forced.stderr).length, 1, forced.stderr);
    assert.match((await readManifestJson(judged)).mixed?.[0]?.reason ?? '', /^judge_sampling: was .*0\.6.*, now .*0\.3/);

    const gated = await runAwb(['compare', baseline, judged, '--fail-below', '1']);
    assert.equal(gated.code, 4, `${gated.stdout}\n${gated.stderr}`);
    assert.match(gated.stdout, /mixes rows made under different settings.*judgements: judge_sampling.*--allow-incomparable to gate anyway/);

    const allowed = await runAwb(['compare', baseline, judged, '--fail-below', '1', '--allow-incomparable']);
    assert.equal(allowed.code, 0, `${allowed.stdout}\n${allowed.stderr}`);
    // The mixed side may be the baseline too.
    const reversed = await runAwb(['compare', judged, baseline, '--fail-below', '1']);
    assert.equal(reversed.code, 4, `${reversed.stdout}\n${reversed.stderr}`);
  });

  it('into rows without a manifest, or with an unreadable one, records that their settings are unknown', async () => {
    const { preds, base } = await inferred();

    for (const [broken, words] of [
      [() => rm(`${preds}.manifest.json`), /no manifest/],
      [() => writeFile(`${preds}.manifest.json`, '{'), /an unreadable manifest/],
    ] as const) {
      await broken();
      await cutLast(preds, 3);
      const refused = await runAwb(base);
      assert.notEqual(refused.code, 0, 'resumed into rows of unknown settings without --force');
      const forced = await runAwb([...base, '--force']);
      assert.equal(forced.code, 0, forced.stderr);
      const warnings = mixedWarnings(forced.stderr);
      assert.equal(warnings.length, 1, forced.stderr);
      assert.match(warnings[0]!, words);
      const m = await readManifestJson(preds);
      assert.equal(m.mixed?.length, 1, JSON.stringify(m.mixed));
      assert.match(m.mixed![0]!.reason, words);
      assert.match(m.mixed![0]!.reason, /settings are unknown/);
      assert.equal(m.mixed![0]!.rows, 11);
      assert.equal(m.mixed![0]!.settings, undefined);
    }
  });

  it('is kept by later resumes with the same settings, and added to by another forced one', async () => {
    const { preds, base } = await inferred();

    const resume = async (extra: string[]) => {
      await cutLast(preds, 2);
      const r = await runAwb([...base, ...extra]);
      assert.equal(r.code, 0, r.stderr);
      return { warnings: mixedWarnings(r.stderr), mixed: (await readManifestJson(preds)).mixed };
    };
    // Same settings, with or without --force: one run throughout.
    for (const extra of [[], ['--force']]) {
      const r = await resume(extra);
      assert.deepEqual(r, { warnings: [], mixed: undefined });
    }

    const first = await resume(['--temperature', '0.2', '--force']);
    assert.equal(first.warnings.length, 1);
    assert.equal(first.mixed?.length, 1);
    // The new settings now, normally or forced: the record stays as it was.
    for (const extra of [
      ['--temperature', '0.2'],
      ['--temperature', '0.2', '--force'],
    ]) {
      const r = await resume(extra);
      assert.deepEqual(r, { warnings: [], mixed: first.mixed });
    }

    const second = await resume(['--temperature', '0.3', '--force']);
    assert.equal(second.warnings.length, 1);
    assert.equal(second.mixed?.length, 2);
    assert.deepEqual(second.mixed![0], first.mixed![0]);
    assert.match(second.mixed![1]!.reason, /^sampling: was .*0\.2.*, now .*0\.3/);
    assert.equal(second.mixed![1]!.settings?.sampling?.temperature, 0.2);
  });
});

describe('what does not make a file mixed', () => {
  it('a forced resume that adds no row leaves the manifest as the earlier run wrote it', async () => {
    const { preds, base } = await inferred();
    const before = await readFile(`${preds}.manifest.json`, 'utf8');
    const forced = await runAwb([...base, '--temperature', '0.2', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    const m = await readManifestJson(preds);
    assert.equal(m.settings.sampling?.temperature, 0.6, `${before}\n---\n${JSON.stringify(m)}`);
    assert.equal(m.mixed, undefined);
    // So the same command as before still resumes it, without --force.
    assert.equal((await runAwb(base)).code, 0);
  });

  it('a forced resume that only moved the endpoint or covers more rows records no mix', async () => {
    const { preds, base } = await inferred();
    await cutLast(preds, 4);
    const moved = await server({ reply: worldReply });
    const url = base.indexOf('--model-base-url') + 1;
    const elsewhere = base.map((a, i) => (i === url ? moved.url : a));
    const forced = await runAwb([...elsewhere, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(mixedWarnings(forced.stderr), []);
    assert.equal((await readManifestJson(preds)).mixed, undefined);
  });
  it('a judge resume over more domains differs in its selection only: refused naming domains, forced with no mix', async () => {
    const { dir, preds } = await inferred();
    const judge = await server({ reply: judgeReply });
    const judged = join(dir, 'judged.jsonl');
    const base = judgeArgs(judge.url, preds, judged, ['-c', '4']);
    assert.equal((await runAwb([...base, '--domains', 'terminal'])).code, 0);
    const refused = await runAwb(base);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /made with other settings \(domains: was \["terminal"\], now unset\);/);
    const forced = await runAwb([...base, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(mixedWarnings(forced.stderr), []);
    assert.equal((await readManifestJson(judged)).mixed, undefined);
    const score = await runAwb(['score', judged, '--no-ci']);
    assert.equal(score.code, 0, score.stderr);
    assert.doesNotMatch(score.stdout + score.stderr, /not comparable/);
  });

  it('a forced judge resume with the same rubric texts read from another folder records no mix', async () => {
    const { dir, preds } = await inferred();
    const judge = await server({ reply: judgeReply });
    const judged = join(dir, 'judged.jsonl');
    const base = judgeArgs(judge.url, preds, judged, ['-c', '4']);
    assert.equal((await runAwb(base)).code, 0);
    await cutLast(judged, 4);
    // The bundled rubrics, byte for byte, from a folder of the user's.
    const copy = join(dir, 'my-rubrics');
    await cp(fileURLToPath(new URL('../../../rubrics/', import.meta.url)), copy, { recursive: true });
    const forced = await runAwb([...base, '--rubrics', copy, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(mixedWarnings(forced.stderr), []);
    assert.equal((await readManifestJson(judged)).mixed, undefined);
  });
});

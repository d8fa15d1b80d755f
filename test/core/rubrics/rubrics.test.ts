import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DOMAINS } from '../../../src/core/domains.js';
import { isFault } from '../../support/fault-kind.js';
import { loadRubrics } from '../../../src/core/rubrics/rubrics.js';

const temps: string[] = [];
after(async () => {
  await Promise.all(temps.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'awb-rubrics-'));
  temps.push(dir);
  return dir;
}

async function writeOurs(dir: string, domain: string, text: string): Promise<void> {
  await writeFile(join(dir, `${domain}.md`), text);
}

async function writeOfficial(dir: string, domain: string, text: string): Promise<void> {
  await mkdir(join(dir, domain), { recursive: true });
  await writeFile(join(dir, domain, 'judge_system_prompt.txt'), text);
}

test('bundled rubrics cover all seven domains with the five dimensions and the answer block', async () => {
  const set = await loadRubrics(undefined, [...DOMAINS]);
  assert.equal(set.source, 'bundled');
  assert.deepEqual([...set.texts.keys()], [...DOMAINS]);
  for (const [domain, text] of set.texts) {
    for (const dim of ['Format', 'Factuality', 'Consistency', 'Realism', 'Quality']) {
      assert.ok(text.includes(`### ${dim}`), `${domain}: no section for ${dim}`);
      assert.ok(text.includes(`"${dim.toLowerCase()}": 1-5`), `${domain}: ${dim} missing from the answer template`);
    }
    assert.ok(text.includes('<final_evaluation>') && text.includes('</final_evaluation>'), `${domain}: no answer block`);
  }
  assert.match(set.sha256, /^[0-9a-f]{64}$/);
});

test('official layout loads', async () => {
  const dir = await tempDir();
  await writeOfficial(dir, 'terminal', 'official terminal prompt');
  await writeOfficial(dir, 'mcp', 'official mcp prompt');
  const set = await loadRubrics(dir, ['terminal', 'mcp']);
  assert.equal(set.source, dir);
  assert.equal(set.texts.get('terminal'), 'official terminal prompt');
  assert.equal(set.texts.get('mcp'), 'official mcp prompt');
});

test('mixed layout: each domain found in either layout, our file wins', async () => {
  const dir = await tempDir();
  await writeOurs(dir, 'web', 'our web');
  await writeOfficial(dir, 'web', 'official web');
  await writeOfficial(dir, 'os', 'official os');
  const set = await loadRubrics(dir, ['web', 'os']);
  assert.equal(set.texts.get('web'), 'our web');
  assert.equal(set.texts.get('os'), 'official os');
});

test('missing domains are all named in one message', async () => {
  const dir = await tempDir();
  await writeOurs(dir, 'mcp', 'x');
  await assert.rejects(loadRubrics(dir, ['mcp', 'swe', 'android']), isFault('rubric-missing', { domains: ['swe', 'android'], root: dir }));
  await assert.rejects(loadRubrics(dir, ['mcp', 'swe']), isFault('rubric-missing', { domains: ['swe'], at: undefined }));
});

test('a folder that does not exist, or a file, is refused', async () => {
  const dir = await tempDir();
  await assert.rejects(loadRubrics(join(dir, 'nope'), ['mcp']), isFault('rubrics-folder-missing', { root: join(dir, 'nope') }));
  await writeFile(join(dir, 'file'), 'x');
  await assert.rejects(loadRubrics(join(dir, 'file'), ['mcp']), isFault('rubrics-not-a-folder'));
});

test('an empty rubric file is refused, naming it', async () => {
  const dir = await tempDir();
  await writeOfficial(dir, 'search', '  \n\n');
  await assert.rejects(loadRubrics(dir, ['search']), isFault('rubric-empty', { file: join(dir, 'search', 'judge_system_prompt.txt') }));
});

test('hash depends on content only, not on location or layout', async () => {
  const a = await tempDir();
  const b = await tempDir();
  await writeOurs(a, 'mcp', 'rubric one');
  await writeOurs(a, 'swe', 'rubric two');
  await writeOfficial(b, 'mcp', 'rubric one');
  await writeOurs(b, 'swe', 'rubric two');
  const setA = await loadRubrics(a, ['mcp', 'swe']);
  const setB = await loadRubrics(b, ['swe', 'mcp']);
  assert.equal(setA.sha256, setB.sha256);

  await writeOurs(b, 'swe', 'rubric two, edited');
  const changed = await loadRubrics(b, ['mcp', 'swe']);
  assert.notEqual(changed.sha256, setA.sha256);
});

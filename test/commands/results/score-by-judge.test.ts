import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAwb } from '../../support/cli.js';
import { judgeReply, rowMarker, synthRows, tempDirs } from '../../support/dataset.js';
import { lastUserText, type ReplyFn } from '../../support/openai-server.js';
import { useServers } from '../../support/harness.js';

/* awb score --by-judge: a panel's file scored member by member, each from its own grades in the rows' `panel`. */

const dirs = tempDirs('by-judge');
const serve = useServers();
const rows = synthRows(8, ['mcp', 'search']);
let panelFile: string;
let singleFile: string;

/** Each member grades every dimension of a row alike, by domain: a 3/2, b 4/4, c 5/3 (mcp/search). */
const GRADES: Record<string, Record<string, number>> = { a: { mcp: 3, search: 2 }, b: { mcp: 4, search: 4 }, c: { mcp: 5, search: 3 } };
const byMember: ReplyFn = (req) => {
  const domain = lastUserText(req).includes('[row mcp/') ? 'mcp' : 'search';
  const g = GRADES[req.model]![domain]!;
  return `<final_evaluation>${JSON.stringify({ scores: { format: g, factuality: g, consistency: g, realism: g, quality: g }, strengths: [], weaknesses: [] })}</final_evaluation>`;
};

const judge = (url: string, predictions: string, out: string, models: string) =>
  runAwb(['judge', '--judge-base-url', url, '--judge-model', models, '--predictions', predictions, '-o', out, '--no-progress']);

before(async () => {
  const dir = await dirs.make();
  const predictions = join(dir, 'predictions.jsonl');
  const lines = rows.map((r) => JSON.stringify({ ...r, gen: `<predicted_observation>obs of ${rowMarker(r)}</predicted_observation>` }));
  await writeFile(predictions, lines.map((l) => `${l}\n`).join(''));
  const panel = await serve({ models: ['a', 'b', 'c'], reply: byMember });
  panelFile = join(dir, 'panel.jsonl');
  const r = await judge(panel.url, predictions, panelFile, 'a,b,c');
  assert.equal(r.code, 0, r.stderr);
  const single = await serve({ models: ['solo'], reply: judgeReply });
  singleFile = join(dir, 'single.jsonl');
  const s = await judge(single.url, predictions, singleFile, 'solo');
  assert.equal(s.code, 0, s.stderr);
});

const score = async (args: string[]) => {
  const r = await runAwb(['score', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return r;
};

/** CSV records by header (quoted fields unquoted; no field here holds a newline). */
function csvRecords(text: string): Array<Record<string, string>> {
  const fields = (line: string) =>
    [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"'));
  const [header, ...lines] = text.trim().split('\n').map(fields);
  return lines.map((l) => Object.fromEntries(header!.map((h, i) => [h, l[i]!])));
}

type RunJson = { label: string; member_of: string | null; provenance: { judge: string }; domains: Record<string, { score: number }> };

test('json: the panel run, then each member with its own per-domain scores; the panel is their mean', async () => {
  const doc = JSON.parse((await score([panelFile, '--by-judge', '--format', 'json', '--no-ci'])).stdout);
  const runs = doc.runs as RunJson[];
  assert.deepEqual(
    runs.map((r) => [r.provenance.judge, r.member_of === null, r.domains.mcp!.score, r.domains.search!.score]),
    [
      ['a,b,c', true, 75, 50],
      ['a', false, 50, 25],
      ['b', false, 75, 75],
      ['c', false, 100, 50],
    ],
  );
  const panel = runs[0]!;
  for (const m of runs.slice(1)) assert.equal(m.member_of, panel.label);
  for (const d of ['mcp', 'search'])
    assert.equal(panel.domains[d]!.score, runs.slice(1).reduce((s, m) => s + m.domains[d]!.score, 0) / 3, `${d}: the panel's mean`);
  const plain = JSON.parse((await score([panelFile, '--format', 'json', '--no-ci'])).stdout);
  assert.equal(plain.runs.length, 1, 'without --by-judge, the panel alone');
  assert.equal('member_of' in plain.runs[0], false);
});

test('csv: a record per member and domain, marked panel-member, the judge named', async () => {
  const records = csvRecords((await score([panelFile, '--by-judge', '--format', 'csv', '--no-ci'])).stdout);
  const search = records.filter((r) => r.domain === 'search').map((r) => [r.source, r.judge, Number(r.score)]);
  assert.deepEqual(search, [
    ['run', 'a,b,c', 50],
    ['panel-member', 'a', 25],
    ['panel-member', 'b', 75],
    ['panel-member', 'c', 50],
  ]);
});

test('table and markdown: a per-domain table per member beside the panel, no member marked best', async () => {
  for (const format of ['table', 'markdown']) {
    const out = (await score([panelFile, '--by-judge', '--format', format, '--no-ci'])).stdout;
    // Markdown escapes the parentheses of a label (they could open a link).
    for (const m of ["a", "b", "c"]) assert.match(out, new RegExp(`Per domain: [^\\n]*\\\\?\\(judge ${m}\\\\?\\)`), `${format}: member ${m}`);
    assert.equal(out.match(/Per domain:/g)!.length, 4, format);
    assert.doesNotMatch(out, /best in its column/, `${format}: members are not ranked against their panel`);
  }
  const table = (await score([panelFile, '--by-judge', '--no-ci'])).stdout;
  const line = table.split('\n').find((l) => l.includes('(judge c)') && !l.includes('Per domain'))!;
  assert.match(line, /100\.00\s+50\.00/);
});

test('a file judged by one judge: --by-judge shows its table alone and says so, in every format', async () => {
  const json = JSON.parse((await score([singleFile, '--by-judge', '--format', 'json', '--no-ci'])).stdout);
  assert.equal(json.runs.length, 1);
  assert.ok(
    (json.method as string[]).some((n) => /judged by one judge \(solo\), no panel/.test(n)),
    'the note names the single judge',
  );
  const table = (await score([singleFile, '--by-judge', '--no-ci'])).stdout;
  assert.match(table, /judged by one judge \(solo\)/);
  const csv = await score([singleFile, '--by-judge', '--format', 'csv', '--no-ci']);
  assert.match(csv.stderr, /awb: note: .*judged by one judge \(solo\)/);
});

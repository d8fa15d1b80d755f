import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatBody } from '../src/core/endpoints/chat-body.js';
import { judgeMessages, worldModelMessages, type ChatMessage } from '../src/core/infer/messages.js';
import type { BodyPlan } from '../src/core/endpoints/request-body.js';
import { currentAction, decodeToken, groundTruth, readRow, type RowText } from '../src/core/rows/row-text.js';
import { datasetRowSchema, type DatasetRow } from '../src/core/schemas/dataset-row.js';

const row = (over: Partial<DatasetRow> = {}): DatasetRow => ({
  task: 'terminal',
  id: 7,
  prompt: ['A1', 'A2', 'A3', 'A4'],
  response: ['O1', 'O2', 'O3', 'O4'],
  current_prompt: 'A3',
  system_str: 'SYS',
  turn_idx: 3,
  total_turns: 4,
  ...over,
});

/** A row as the stage reads it: from the bytes of its line. */
function read(r: DatasetRow) {
  const got = readRow(Buffer.from(JSON.stringify(r)), datasetRowSchema, { file: 'x.jsonl', lineNo: 1, terminated: true, added: [] });
  assert.ok(got.ok);
  return got;
}

async function bodyBytes(plan: BodyPlan): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of plan.chunks()) chunks.push(Buffer.from(c));
  const body = Buffer.concat(chunks);
  assert.equal(body.length, plan.length);
  return body;
}

/** The messages as the endpoint receives them. */
async function sent(messages: ChatMessage[], text: RowText): Promise<{ role: string; content: string }[]> {
  return (
    JSON.parse((await bodyBytes(chatBody('m', messages, {}, text))).toString('utf8')) as { messages: { role: string; content: string }[] }
  ).messages;
}

const worldModel = (r: DatasetRow, history: 'full' | 'none') => {
  const { row: checked, text } = read(r);
  return sent(worldModelMessages(checked, text, history), text);
};

const judge = (r: DatasetRow, pred: string, truth: string, rubric: string) => {
  const { row: checked, text } = read(r);
  return sent(judgeMessages(checked, text, pred, truth, rubric), text);
};

test('full history: system, then each earlier turn as a user/assistant pair, then the current action', async () => {
  assert.deepEqual(await worldModel(row(), 'full'), [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'A1' },
    { role: 'assistant', content: 'O1' },
    { role: 'user', content: 'A2' },
    { role: 'assistant', content: 'O2' },
    { role: 'user', content: 'A3' },
  ]);
});

test('later turns in the lists are never shown: the ground truth and beyond stay hidden', async () => {
  const text = JSON.stringify(await worldModel(row(), 'full'));
  assert.ok(!text.includes('O3') && !text.includes('O4') && !text.includes('A4'));
});

test('no history: system and current action only (the protocol before the official fix)', async () => {
  assert.deepEqual(await worldModel(row(), 'none'), [
    { role: 'system', content: 'SYS' },
    { role: 'user', content: 'A3' },
  ]);
});

test('first turn has no history; an empty system prompt sends no system message', async () => {
  assert.deepEqual(await worldModel(row({ turn_idx: 1, current_prompt: 'A1', system_str: '' }), 'full'), [{ role: 'user', content: 'A1' }]);
});

test('an empty current_prompt falls back to the prompt list entry of the turn', async () => {
  const { row: r, text } = read(row({ current_prompt: '' }));
  assert.equal(decodeToken(currentAction(r, text)), 'A3');
  assert.equal(decodeToken(groundTruth(r, text)), 'O3');
  assert.deepEqual((await worldModel(row({ current_prompt: '' }), 'none')).at(-1), { role: 'user', content: 'A3' });
});

test('texts keep every character: escapes, quotes, U+2028, astral and lone surrogates, CJK', async () => {
  const odd = 'a "quoted" \\ back\nslash\t\u2028\u2029 \u0001 \ud83d\ude00 \ud800 中文 </script>';
  const r = row({ system_str: odd, prompt: [odd, 'A2', 'A3'], response: [`${odd}!`, 'O2', 'O3'] });
  const messages = await worldModel(r, 'full');
  assert.equal(messages[0]!.content, odd);
  assert.equal(messages[1]!.content, odd);
  assert.equal(messages[2]!.content, `${odd}!`);
  assert.ok((await judge(r, odd, odd, odd))[1]!.content.includes(`${odd}\n${odd}!`));
});

test('sampling parameters and extra body fields go into the body; an extra body model replaces the model', async () => {
  const plan = chatBody(
    'm',
    [{ role: 'user', content: ['hi'] }],
    { temperature: 0.6, max_tokens: undefined, top_k: 20, model: 'other' },
    { locate: (p) => p },
  );
  const body = JSON.parse((await bodyBytes(plan)).toString());
  assert.deepEqual(body, { model: 'other', temperature: 0.6, top_k: 20, messages: [{ role: 'user', content: 'hi' }] });
});

test('judge messages: rubric as system; history, action, prediction and ground truth in the user message', async () => {
  const [system, user] = await judge(row(), 'PRED', 'TRUTH', 'RUBRIC');
  assert.deepEqual(system, { role: 'system', content: 'RUBRIC' });
  const text = user!.content;
  const order = ['A1', 'O1', 'A2', 'O2', 'A3', 'PRED', 'TRUTH'].map((s) => text.indexOf(s));
  assert.ok(
    order.every((i) => i >= 0),
    text,
  );
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
  );
  assert.ok(!text.includes('O3'));
});

test('judge messages: first turn has no history section', async () => {
  const [, user] = await judge(row({ turn_idx: 1, current_prompt: 'A1' }), 'P', 'T', 'R');
  assert.ok(!user!.content.includes('Earlier turns'));
});

test('observations containing code fences cannot close the fence around them', async () => {
  const pred = 'before\n```\nnot the end\n````\nafter';
  const [, user] = await judge(row(), pred, 'T', 'R');
  const text = user!.content;
  assert.ok(text.includes('`````\nbefore'), text);
  assert.ok(text.includes('after\n`````'), text);
});

test('a body planned over the input file reads the same bytes as one held in memory, and re-reads them on every send', async () => {
  const { mkdtemp, open, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const odd = 'line "1"\n\u2028 中文 \\ end';
  const lines = [
    JSON.stringify(row({ task: 'first' })),
    JSON.stringify(row({ system_str: odd, prompt: [odd, 'A2', 'A3'], response: ['O1 '.repeat(50_000), 'O2', 'O3'] })),
  ];
  const path = join(await mkdtemp(join(tmpdir(), 'awb-body-')), 'in.jsonl');
  await writeFile(path, lines.join('\n') + '\n');
  const handle = await open(path, 'r');
  try {
    const bytes = Buffer.from(lines[1]!);
    const options = { file: path, lineNo: 2, terminated: true, added: [] };
    const fromFile = readRow(bytes, datasetRowSchema, {
      ...options,
      source: { file: { handle, path }, offset: Buffer.byteLength(lines[0]!) + 1 },
    });
    const inMemory = readRow(Buffer.from(bytes), datasetRowSchema, options);
    assert.ok(fromFile.ok && inMemory.ok);
    const plan = chatBody('m', judgeMessages(fromFile.row, fromFile.text, 'P', 'T', 'R'), {}, fromFile.text);
    assert.ok(
      plan.parts.some((p) => !Buffer.isBuffer(p)),
      'texts are planned as ranges of the file',
    );
    bytes.fill(0x20); // the line buffer is reused for the next line: the plan must not depend on it
    const expected = await bodyBytes(chatBody('m', judgeMessages(inMemory.row, inMemory.text, 'P', 'T', 'R'), {}, inMemory.text));
    assert.deepEqual(await bodyBytes(plan), expected);
    assert.deepEqual(await bodyBytes(plan), expected);
  } finally {
    await handle.close();
  }
});

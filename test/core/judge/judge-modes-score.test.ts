import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isFault } from '../../support/fault-kind.js';
import {
  pairwiseMessages,
  pairwiseOrderResult,
  pairwiseOrders,
  pairwiseResult,
  parseChoiceReply,
  turingMessages,
  turingOrderResult,
  turingOrders,
  turingResult,
  combineRepeats,
  type ChoiceMessage,
} from '../../../src/core/judge/index.js';
import { Ratio, formatFixed, readModeFile, sampleSd, scoreModeFile, type ModeScore } from '../../../src/core/score/index.js';
import type { JudgeRepeat } from '../../../src/core/schemas/index.js';

const temps: string[] = [];
after(async () => Promise.all(temps.map((d) => rm(d, { recursive: true, force: true }))));

async function writeRows(rows: readonly unknown[], tail = '\n'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'awb-modes-score-'));
  temps.push(dir);
  const file = join(dir, 'judged.jsonl');
  await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n') + tail);
  return file;
}

/** Rows of two domains, several turns per trajectory, with histories, as prediction rows carry them. */
function dataset(): Array<{ task: string; id: number; turn_idx: number; prompt: string[]; response: string[]; gen: string }> {
  const rows = [];
  for (const task of ['agentworld/terminal', 'web']) {
    for (let id = 1; id <= 4; id++) {
      for (let turn = 1; turn <= 3; turn++) {
        const prompt = [1, 2, 3].map((t) => `${task} ${id} action ${t}`);
        const response = [1, 2, 3].map((t) => `REAL ${task} ${id} observation ${t}`);
        rows.push({ task, id, turn_idx: turn, prompt, response, gen: `<think>hmm</think>SIMULATED ${task} ${id} ${turn}` });
      }
    }
  }
  return rows;
}

type Judge = (messages: ChoiceMessage[]) => string;

/** The text of one titled, fenced section of the judge's user message. */
function sectionOf(messages: ChoiceMessage[], title: string): string {
  const user = messages[1]!.content;
  const start = user.indexOf(`# ${title}\n\n`);
  assert.ok(start >= 0, `no section ${title}`);
  return user.slice(start).split('\n')[3]!;
}

/** Asks a simulated judge about every row in both orders, through the real builders, and stores the turing fields. */
function runTuring(judge: Judge) {
  return dataset().map((row) => {
    const t = row.turn_idx - 1;
    const history = row.prompt.slice(0, t).map((action, i) => ({ action, observation: row.response[i]! }));
    const prediction = row.gen.replace(/<think>.*<\/think>/, '');
    const orders = turingOrders(row.response[t]!, prediction).map((o) => {
      const raw = judge(turingMessages('SYSTEM', history, row.prompt[t]!, o));
      const parsed = parseChoiceReply(raw);
      return turingOrderResult(o.real_at, { choice: parsed.ok ? parsed.choice : null, raw, attempts: 1 });
    });
    const turing = turingResult([orders[0]!, orders[1]!]);
    return { ...row, turing, failed: turing.failed, extracted_output: prediction };
  });
}

function runPairwise(judge: Judge) {
  return dataset().map((row) => {
    const t = row.turn_idx - 1;
    const candidate = `CANDIDATE ${row.gen}`;
    const reference = `REFERENCE ${row.gen}`;
    const orders = pairwiseOrders(candidate, reference).map((o) => {
      const raw = judge(pairwiseMessages('SYSTEM', [], row.prompt[t]!, o, row.response[t]!));
      const parsed = parseChoiceReply(raw);
      return pairwiseOrderResult(o.candidate_at, { choice: parsed.ok ? parsed.choice : null, raw, attempts: 1 });
    });
    const pairwise = pairwiseResult(`key-${row.task}-${row.id}-${row.turn_idx}`, [orders[0]!, orders[1]!], reference);
    return { ...row, pairwise, failed: pairwise.failed };
  });
}

const spotsReal: Judge = (m) =>
  sectionOf(m, 'Response A').startsWith('REAL') ? 'The first is real. \\boxed{A}' : '<think>\\boxed{A}?</think>\\boxed{B}';
const alwaysFooled: Judge = (m) => (sectionOf(m, 'Response A').startsWith('REAL') ? 'I choose B' : 'Response A is the real one.');
const alwaysA: Judge = () => '\\boxed{A}';
const prefersCandidate: Judge = (m) => (sectionOf(m, 'Prediction A').startsWith('CANDIDATE') ? '\\boxed{A}' : '$\\boxed{b}$');
const prefersReference: Judge = (m) => (sectionOf(m, 'Prediction A').startsWith('REFERENCE') ? '\\boxed{A}' : 'boxed{ B }');

async function scored(rows: unknown[]): Promise<ModeScore> {
  const result = await scoreModeFile(await writeRows(rows), { resamples: 200, seed: 7 });
  assert.ok(result, 'expected a mode file');
  return result.score;
}

/** A figure's value, overall and in every domain, as printed. */
function printed(score: ModeScore, name: 'fooling_rate' | 'win_rate' | 'position_consistency' | 'judge_noise'): string[] {
  return [formatFixed(score.overall[name]!.value), ...score.domains.map((d) => formatFixed(d.figures[name]!.value))];
}

describe('turing: judges of known bias', () => {
  test('a judge that always spots the real observation: fooling rate exactly 0, fully consistent', async () => {
    const s = await scored(runTuring(spotsReal));
    assert.equal(s.mode, 'turing');
    assert.deepStrictEqual(printed(s, 'fooling_rate'), ['0.00', '0.00', '0.00']);
    assert.deepStrictEqual(printed(s, 'position_consistency'), ['100.00', '100.00', '100.00']);
    assert.deepStrictEqual(s.overall.fooling_rate!.interval, { lo: 0, hi: 0 });
    assert.deepStrictEqual([s.rows, s.counted], [24, 24]);
    assert.deepStrictEqual(
      s.domains.map((d) => [d.domain, d.rows, d.counted]),
      [
        ['terminal', 12, 12],
        ['web', 12, 12],
      ],
    );
  });

  test('a judge always fooled: 100', async () => {
    const s = await scored(runTuring(alwaysFooled));
    assert.deepStrictEqual(printed(s, 'fooling_rate'), ['100.00', '100.00', '100.00']);
    assert.deepStrictEqual(printed(s, 'position_consistency'), ['100.00', '100.00', '100.00']);
  });

  test('a judge always answering A: exactly 50, position consistency 0', async () => {
    const s = await scored(runTuring(alwaysA));
    assert.deepStrictEqual(printed(s, 'fooling_rate'), ['50.00', '50.00', '50.00']);
    const exact = s.overall.fooling_rate!.value;
    assert.ok(exact instanceof Ratio && exact.compare(Ratio.of(50)) === 0, 'exactly 50, not a rounded double');
    assert.deepStrictEqual(printed(s, 'position_consistency'), ['0.00', '0.00', '0.00']);
    assert.deepStrictEqual(s.overall.fooling_rate!.interval, { lo: 50, hi: 50 });
  });

  test('a row with an unanswered order stays out of both figures, so the position preference still cancels', async () => {
    let calls = 0;
    const flaky: Judge = (m) => (++calls === 3 ? 'no idea' : alwaysA(m));
    const rows = runTuring(flaky);
    assert.equal(rows.filter((r) => r.failed === 1).length, 1);
    const s = await scored(rows);
    assert.equal(s.counted, 23);
    assert.deepStrictEqual(printed(s, 'fooling_rate'), ['50.00', '50.00', '50.00']);
  });

  test('a judge with a mixed record: the figures recomputed by hand', async () => {
    // Spots the real one in terminal; in web it is fooled when the real one is at A and right when at B.
    const mixed: Judge = (m) =>
      m[1]!.content.includes('REAL web') && !sectionOf(m, 'Response A').startsWith('SIM') ? '\\boxed{B}' : spotsReal(m);
    const s = await scored(runTuring(mixed));
    const [terminal, web] = s.domains;
    assert.equal(formatFixed(terminal!.figures.fooling_rate!.value), '0.00');
    // In web every row: order 1 (real at A) answered B = fooled; order 2 (real at B) answered B = right.
    assert.equal(formatFixed(web!.figures.fooling_rate!.value), '50.00');
    assert.equal(formatFixed(web!.figures.position_consistency!.value), '0.00');
    assert.equal(formatFixed(s.overall.fooling_rate!.value), '25.00');
    assert.equal(formatFixed(s.overall.position_consistency!.value), '50.00');
    const iv = s.overall.fooling_rate!.interval!;
    assert.ok(iv.lo <= 25 && 25 <= iv.hi, `interval ${JSON.stringify(iv)} holds the estimate`);
  });
});

describe('pairwise: judges of known bias', () => {
  test('always the candidate: win rate 100', async () => {
    const s = await scored(runPairwise(prefersCandidate));
    assert.equal(s.mode, 'pairwise');
    assert.deepStrictEqual(printed(s, 'win_rate'), ['100.00', '100.00', '100.00']);
    assert.deepStrictEqual(printed(s, 'position_consistency'), ['100.00', '100.00', '100.00']);
  });

  test('always the reference: 0', async () => {
    const s = await scored(runPairwise(prefersReference));
    assert.deepStrictEqual(printed(s, 'win_rate'), ['0.00', '0.00', '0.00']);
  });

  test('always A: 50, position consistency 0', async () => {
    const s = await scored(runPairwise(alwaysA));
    assert.deepStrictEqual(printed(s, 'win_rate'), ['50.00', '50.00', '50.00']);
    assert.deepStrictEqual(printed(s, 'position_consistency'), ['0.00', '0.00', '0.00']);
  });

  test('split rows count half', async () => {
    // Candidate preferred in both orders on turn 1, split on turn 2, reference on turn 3: (1 + 0.5 + 0) / 3.
    const byTurn: Judge = (m) => {
      const turn = Number(/action (\d)/.exec(m[1]!.content)![1]);
      if (turn === 1) return prefersCandidate(m);
      if (turn === 2) return alwaysA(m);
      return prefersReference(m);
    };
    const s = await scored(runPairwise(byTurn));
    assert.equal(formatFixed(s.overall.win_rate!.value), '50.00');
    assert.equal(formatFixed(s.overall.position_consistency!.value, 4), '66.6667');
  });
});

function repeat(total: number, failed: 0 | 1 = 0): JudgeRepeat {
  return { format: total, factuality: total, consistency: total, realism: total, quality: total, total_score: failed ? 0 : total, failed };
}

describe('judge noise from --repeat', () => {
  test('the mean of the rows sample SDs, times 25; rows with fewer than two valid repeats stay out', async () => {
    const rows = [
      { task: 'web', id: 1, turn_idx: 1, judge_repeats: [repeat(3), repeat(4), repeat(5)] }, // sd 1 -> 25
      { task: 'web', id: 1, turn_idx: 2, judge_repeats: [repeat(2), repeat(2), repeat(2)] }, // 0
      { task: 'web', id: 2, turn_idx: 1, judge_repeats: [repeat(4), repeat(0, 1), repeat(0, 1)] }, // one valid: out
      { task: 'os', id: 9, turn_idx: 1, judge_repeats: [repeat(1), repeat(3), repeat(0, 1)] }, // sd sqrt(2) -> 35.36
    ].map((r) => ({ ...r, ...combineRepeats(r.judge_repeats) }));
    const s = await scored(rows);
    assert.equal(s.mode, 'repeat');
    const web = s.domains.find((d) => d.domain === 'web')!;
    const os = s.domains.find((d) => d.domain === 'os')!;
    assert.deepStrictEqual([web.rows, web.counted, os.rows, os.counted], [3, 2, 1, 1]);
    assert.equal(web.figures.judge_noise!.value, 12.5);
    assert.ok(Math.abs((os.figures.judge_noise!.value as number) - 25 * Math.SQRT2) < 1e-12);
    // Overall: the mean of the domains.
    assert.ok(Math.abs((s.overall.judge_noise!.value as number) - (12.5 + 25 * Math.SQRT2) / 2) < 1e-12);
    // Recomputable from the stored repeats alone, domain by domain.
    const again = (domain: string) => {
      const sds = rows
        .filter((r) => r.task === domain)
        .map((r) => r.judge_repeats.filter((j) => j.failed === 0).map((j) => j.total_score))
        .filter((t) => t.length >= 2)
        .map((t) => 25 * sampleSd(t));
      return sds.reduce((a, b) => a + b, 0) / sds.length;
    };
    for (const d of [web, os]) assert.ok(Math.abs(again(d.domain) - (d.figures.judge_noise!.value as number)) < 1e-12);
  });

  test('sampleSd divides by K - 1', () => {
    assert.equal(sampleSd([1, 3]), Math.SQRT2);
    assert.equal(sampleSd([2, 4, 4, 4, 5, 5, 7, 9]), Math.sqrt(32 / 7));
  });
});

describe('readModeFile', () => {
  test('a rubric file is reported as such without being read to the end', async () => {
    const file = await writeRows([{ task: 'web', id: 1, turn_idx: 1, total_score: 4, failed: 0 }, 'not even an object']);
    assert.deepStrictEqual(await readModeFile(file), { path: file, mode: 'rubric', warnings: [] });
    assert.equal(await scoreModeFile(file), undefined);
  });

  test('rows of another mode in the same file are refused, naming the line', async () => {
    const [a] = runTuring(alwaysA);
    const [b] = runPairwise(alwaysA);
    const file = await writeRows([a, b]);
    await assert.rejects(readModeFile(file), isFault('judge-modes-mixed', { file, line: 2, fileMode: 'turing', rowMode: 'pairwise' }));
    const rubricRow = await writeRows([a, { task: 'web', id: 1, turn_idx: 1, total_score: 4, failed: 0 }]);
    await assert.rejects(readModeFile(rubricRow), isFault('judge-modes-mixed', { line: 2, fileMode: 'turing', rowMode: 'rubric' }));
  });

  test('a stored field that contradicts the others names file, line and field', async () => {
    const rows = runTuring(alwaysA);
    rows[1]!.turing.orders[0].picked_real = !rows[1]!.turing.orders[0].picked_real;
    const file = await writeRows(rows);
    await assert.rejects(readModeFile(file), isFault('judged-field-invalid', { file, line: 2, field: 'turing.orders.0.picked_real' }));
  });

  test("a row's failed that contradicts its mode object's is refused at its line and field", async () => {
    const turing = runTuring(alwaysA);
    turing[1]!.failed = 1;
    const t = await writeRows(turing);
    await assert.rejects(readModeFile(t), isFault('choice-failed-mismatch', { file: t, line: 2, mode: 'turing', expected: 0 }));
    const pairwise = runPairwise(alwaysA);
    pairwise[2]!.failed = 1;
    const p = await writeRows(pairwise);
    await assert.rejects(readModeFile(p), isFault('choice-failed-mismatch', { file: p, line: 3, mode: 'pairwise', expected: 0 }));
  });

  test('a cut last line is skipped with a warning; ids keep trajectories apart', async () => {
    const rows = runTuring(alwaysA);
    const file = await writeRows(rows, '\n{"task": "web", "turing": {');
    const read = await readModeFile(file);
    assert.equal(read.mode, 'turing');
    assert.equal(read.mode === 'turing' && read.records.length, rows.length);
    assert.deepEqual(read.warnings, [{ kind: 'judged-line-cut', file, line: 25 }]);
    if (read.mode === 'turing') assert.deepStrictEqual([...new Set(read.records.map((r) => r.cluster))].length, 8);
  });

  test('a line the byte scan cannot read goes through JSON.parse with the same result', async () => {
    const rows = runTuring(spotsReal).slice(0, 2);
    // An escaped key defeats the scan; JSON.parse reads it as "task".
    const text = JSON.stringify(rows[0]).replace('"task"', '"t\\u0061sk"');
    const dir = await mkdtemp(join(tmpdir(), 'awb-modes-score-'));
    temps.push(dir);
    const file = join(dir, 'judged.jsonl');
    await writeFile(file, `${text}\n${JSON.stringify(rows[1])}\n`);
    const read = await readModeFile(file);
    assert.ok(read.mode === 'turing');
    assert.deepStrictEqual(
      read.records.map((r) => [r.domain, r.cluster, r.turn, r.hits]),
      [
        ['terminal', 'terminal:1', 1, [false, false]],
        ['terminal', 'terminal:1', 2, [false, false]],
      ],
    );
  });
});

describe("a panel's choice rows (judge --judge-model a,b,c)", () => {
  const panelRow = (row: ReturnType<typeof dataset>[number], fooling: number | null, failed: 0 | 1 = fooling === null ? 1 : 0) => ({
    ...row,
    turing: { fooling, position_consistency: fooling === null ? null : 1, failed },
    failed,
  });

  test("score reads the panel's figure of each row; rows without one stay out; means such as 1/3 are kept as doubles", async () => {
    const rows = dataset().map((row, i) => panelRow(row, i === 0 ? null : i % 2 ? 1 / 3 : 1));
    const scored = (await scoreModeFile(await writeRows(rows)))!.score;
    assert.equal(scored.counted, rows.length - 1);
    // terminal: 6 rows of 1/3 and 5 of 1 (its first has none); web: 6 of each.
    const [terminal, web] = scored.domains.map((d) => d.figures.fooling_rate!.value as number);
    assert.ok(Math.abs(terminal! - (100 * (6 / 3 + 5)) / 11) < 1e-9, String(terminal));
    assert.ok(Math.abs(web! - (100 * (6 / 3 + 6)) / 12) < 1e-9, String(web));
    // Sums of integers stay exact.
    assert.ok(scored.overall.position_consistency!.value instanceof Ratio);
    assert.equal(formatFixed(scored.overall.position_consistency!.value), '100.00');
  });

  test('a figure out of 0..1, or failed that contradicts it, is refused at its line and field', async () => {
    const rows = dataset().slice(0, 3);
    const over = await writeRows([panelRow(rows[0]!, 0.5), panelRow(rows[1]!, 1.5)]);
    await assert.rejects(readModeFile(over), isFault('judged-field-invalid', { file: over, line: 2, field: 'turing.fooling' }));
    const contradicts = await writeRows([panelRow(rows[0]!, 0.5, 1)]);
    await assert.rejects(readModeFile(contradicts), isFault('judged-field-invalid', { line: 1, field: 'turing.failed' }));
  });
});

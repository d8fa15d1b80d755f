import type { z } from 'zod';
import { domainOfTask } from '../domains.js';
import { estimatePromptTokens } from '../endpoints/index.js';
import type { BadRow, LinePlan } from '../rows/index.js';
import { emptyTally } from './accounting.js';
import { plannedRows, RowsSeen } from './plan.js';
import type { DatasetRow } from '../schemas/index.js';
import type { Stage } from './stage.js';
import { scanOutput } from './writer.js';
import { requestBound, tokensCost, type Prices } from './cost-cap.js';

/** Where a dry run's expected completion tokens come from. */
export type ExpectedFrom =
  /** The mean completion tokens per row of the rows the output already holds, by domain. */
  | 'observed'
  /** The stage's typical reply per row (infer: the ground truth observation), counted with the tokenizer. */
  | 'typical';

/** What a run would send: requests, estimated prompt tokens, and the completion budget (each request's token cap). */
export interface DryRunCount {
  /** Rows the output already holds a result of, that a run would not send again (not counted below). */
  alreadyDone: number;
  rows: number;
  requests: number;
  promptTokens: number;
  completionBudget: number;
  /** The completion tokens the run is likely to use (each row's capped at its budget); none when nothing tells. */
  /** `rows`: the output's rows the figure comes from (0 when typical). */
  expected?: { completionTokens: number; from: ExpectedFrom; rows: number };
  /** Rows that failed their checks, or repeat a row above them: a real run stops or skips there (--on-bad-row). */
  badRows: number;
  /** The first of them in the files, where a run with `--on-bad-row stop` stops. */
  firstBad?: BadRow;
  /**
   * With --max-cost: how many rows, from the first, the cap covers with every request at the most it can cost (as the
   * run admits them), and at the expected cost (when a figure tells it); counted from nothing spent.
   */
  cap?: { usd: number; atBound: number; atExpected?: number };
  /** A free-running run's (--horizon): the steps a row sends one after another at most, the rounds of a --batch run. */
  rounds?: number;
}

/** --max-cost for a dry run: the cap, the prices and each request's completion token limit. */
export interface DryRunCap {
  usd: number;
  prices: Prices;
  maxTokens: number;
}

/** Mean completion tokens per row, by domain and over all ('*'), of the output's rows that report usage; `rows`: how many. */
async function observedPerRow<S extends z.ZodType<DatasetRow>>(
  stage: Stage<S>,
  output: string,
): Promise<{ perRow: Map<string, number>; rows: number }> {
  const sums = new Map<string, { tokens: number; rows: number }>();
  const add = (key: string, tokens: number) => {
    const s = sums.get(key) ?? { tokens: 0, rows: 0 };
    sums.set(key, { tokens: s.tokens + tokens, rows: s.rows + 1 });
  };
  await scanOutput(output, {
    schema: stage.schema,
    keep: () => true,
    onKept: (row) => {
      const t = emptyTally();
      stage.tally(row, t);
      // A row without usage (a failed request, a server that reports none) says nothing of reply lengths.
      if (t.completionTokens <= 0) return;
      add(domainOfTask(String(row.task)), t.completionTokens);
      add('*', t.completionTokens);
    },
  });
  return { perRow: new Map([...sums].map(([k, s]) => [k, s.tokens / s.rows])), rows: sums.get('*')?.rows ?? 0 };
}

/**
 * A run without the run: reads every planned row as runStage reads it and
 * builds the requests the stage sends first for it (both orders of a choice
 * mode, each of --repeat's K), counting instead of sending. It writes
 * nothing; a row at a time is in memory. With `output`, the rows it already
 * holds give the expected completion tokens (their mean per row, by domain);
 * without such rows, the stage's typical reply does.
 */
export async function dryRun<S extends z.ZodType<DatasetRow>>(
  stage: Stage<S>,
  plan: LinePlan,
  onBad: (bad: BadRow) => void = () => undefined,
  output?: string,
  cap?: DryRunCap,
  /** The rows the output holds that a run would keep (keptRows): left out of the count. */
  kept: ReadonlySet<string> = new Set(),
): Promise<DryRunCount> {
  const count: DryRunCount = { alreadyDone: 0, rows: 0, requests: 0, promptTokens: 0, completionBudget: 0, badRows: 0 };
  const { perRow: observed, rows: observedRows } =
    output === undefined ? { perRow: new Map<string, number>(), rows: 0 } : await observedPerRow(stage, output);
  const from: ExpectedFrom | undefined = observedRows ? 'observed' : stage.typicalReply ? 'typical' : undefined;
  let expected = 0;
  // The rows the cap covers: a prefix, as the run stops at the first request it refuses.
  const covered = { bound: 0, atBound: 0, expected: 0, atExpected: 0 };
  const bad = (b: BadRow) => {
    count.badRows++;
    count.firstBad ??= b;
    onBad(b);
  };
  // The run refuses a row it has already read (same key) just as it refuses a malformed one.
  const seen = new RowsSeen();
  for await (const { read, file, lineNo } of plannedRows(plan, stage.schema)) {
    if (!read.ok) {
      bad(read.bad);
      continue;
    }
    const repeat = seen.repeat(read.key, file, lineNo);
    if (repeat) {
      bad(repeat);
      continue;
    }
    if (kept.has(read.key)) {
      count.alreadyDone++;
      continue;
    }
    count.rows++;
    if (stage.rounds) count.rounds = Math.max(count.rounds ?? 0, stage.rounds.steps(read.row));
    let budget = 0;
    let promptTokens = 0;
    let rowBound = 0;
    const requests = await stage.requests(read.row, read.key);
    for (const request of requests) {
      count.requests++;
      const tokens = await estimatePromptTokens(request.messages);
      promptTokens += tokens;
      const limit = request.max_completion_tokens ?? request.max_tokens;
      budget += typeof limit === 'number' ? limit : 0;
      if (cap) rowBound += requestBound(Buffer.byteLength(JSON.stringify(request)), cap.maxTokens, cap.prices);
    }
    count.promptTokens += promptTokens;
    count.completionBudget += budget;
    // A row written without asking (no request) expects nothing.
    let rowExpected: number | undefined = from === undefined ? undefined : 0;
    if (from !== undefined && requests.length) {
      // The reply as a message: its tokens and the few that frame it (a reply's end, like a message's).
      const guess =
        from === 'observed'
          ? (observed.get(domainOfTask(read.row.task)) ?? observed.get('*')!)
          : requests.length * (await estimatePromptTokens([{ content: stage.typicalReply!(read.row) }]));
      rowExpected = budget > 0 ? Math.min(guess, budget) : guess;
      expected += rowExpected;
    }
    if (cap && covered.atBound === count.rows - 1 && covered.bound + rowBound <= cap.usd) {
      covered.bound += rowBound;
      covered.atBound++;
    }
    const rowCost = rowExpected === undefined || !cap ? undefined : tokensCost(promptTokens, rowExpected, cap.prices);
    if (cap && rowCost !== undefined && covered.atExpected === count.rows - 1 && covered.expected + rowCost <= cap.usd) {
      covered.expected += rowCost;
      covered.atExpected++;
    }
  }
  if (from !== undefined) count.expected = { completionTokens: Math.round(expected), from, rows: observedRows };
  if (cap) count.cap = { usd: cap.usd, atBound: covered.atBound, ...(from !== undefined && { atExpected: covered.atExpected }) };
  return count;
}

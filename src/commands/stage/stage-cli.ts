import { terminal } from '../shared/terminal.js';
import { noticed } from '../words/index.js';
import { editedDataNote } from '../words/data/provenance.js';
import type { StageNotice } from '../../core/stage/index.js';
import { displayKey } from '../../core/rows/index.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';
import { printWarnings } from '../shared/notes.js';
import type { StageViewOptions } from './stage-options.js';
import { DRY_RUN_LINES, STAGE_LINES } from '../words/stage/lines.js';

/* What infer and judge are told while they run (notices, the dry run's count, how a run ended): which lines, when, in which colour; their words are in words/stage/lines.ts. */

type Notice<T extends StageNotice['type']> = Extract<StageNotice, { type: T }>;

const SHOWN = 5;

/** A notice before the run (the data fetched, endpoints set aside, unfinished predictions, unpaired rows) as lines on stderr. */
export function printNotice(
  e: Notice<'fetching' | 'data-edited' | 'set-aside' | 'upstream-unfinished' | 'unpaired' | 'would-skip' | 'cost-cap'>,
  o: StageViewOptions,
): void {
  const t = terminal();
  switch (e.type) {
    case 'fetching':
      if (o.progress) t.stderr.write(`${STAGE_LINES.fetching(e.repo, e.revision, e.hub)}\n`);
      return;
    case 'data-edited': {
      const fix = `${thisInvocation()} download ${e.dir === undefined ? `--revision ${e.commit}` : `--dir ${shellWord(e.dir)}`}`;
      t.stderr.write(`${editedDataNote(e.files, e, fix)}\n`);
      return;
    }
    case 'set-aside':
      return printWarnings(e.warnings.map(noticed));
    case 'upstream-unfinished':
      t.stderr.write(`${t.errColor.yellow(STAGE_LINES.upstreamUnfinished(e.predictions, e.unwritten, e.total))}\n`);
      return;
    case 'unpaired': {
      const examples = e.keys.slice(0, SHOWN).map(displayKey);
      t.stderr.write(`${STAGE_LINES.unpaired(e, e.keys.length, examples, e.keys.length > SHOWN)}\n`);
      return;
    }
    case 'would-skip':
      t.stderr.write(`${STAGE_LINES.wouldSkip(e.stage, e.bad.message)}\n`);
      return;
    case 'cost-cap':
      t.stderr.write(t.errColor.yellow(`${STAGE_LINES.costCapReached(e.stage, e.spending)}\n`));
  }
}

/** The run's end lines: batches' requests asked online (--batch), streams whose usage never came (--stream), per-endpoint counts. */
export function printEndLines(e: Notice<'finished'>): void {
  const warnings = [
    ...(e.notInBatch > 0 ? [{ kind: 'asked-online', count: e.notInBatch } as const] : []),
    ...(e.usageLost > 0 ? [{ kind: 'usage-lost', count: e.usageLost } as const] : []),
    ...e.notices,
  ].map(noticed);
  printWarnings(warnings);
  const endpoints = e.result.manifest.endpoints;
  if (!endpoints || Object.keys(endpoints).length < 2) return;
  for (const [url, s] of Object.entries(endpoints)) terminal().stderr.write(`${STAGE_LINES.endpointCounts(url, s.requests, s.failures)}\n`);
}

/** With --stream: the median and 90th percentile of the time to first token and of the decode speed. */
export function printTimings(timings: Notice<'finished'>['timings']): void {
  const { ttft: t, decode: d } = timings ?? {};
  if (t) terminal().stderr.write(`${STAGE_LINES.timeToFirstToken(t)}\n`);
  if (d) terminal().stderr.write(`${STAGE_LINES.decodeSpeed(d)}\n`);
}

/** After a run: judge's rows with no prediction to judge, and the next command once every row has its result. */
export function printAfter(e: Notice<'unpredicted' | 'next-step'>): void {
  const t = terminal();
  if (e.type === 'unpredicted') t.stderr.write(`${STAGE_LINES.unpredicted(e.rows, e.predictions, thisInvocation())}\n`);
  else if (e.stage === 'infer') t.stderr.write(`${STAGE_LINES.judgeIt(thisInvocation(), shellWord(e.output))}\n`);
  else t.stderr.write(`${STAGE_LINES.scoreIt(thisInvocation(), shellWord(e.output))}\n`);
}

/**
 * --dry-run: the count on stderr, or as JSON on stdout (`jsonText`: render/written's, loaded by the
 * display only for a JSON dry run), with the cost at --price-input and --price-output.
 */
export function printDryRun(e: Notice<'dry-run'>, o: StageViewOptions, jsonText?: (doc: unknown) => string): void {
  const { count, stage, output, teacherForced: base } = e;
  const times = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : undefined);
  const multiple = base && { requests: times(count.requests, base.requests), promptTokens: times(count.promptTokens, base.promptTokens) };
  const promptCost = o.priceInput === undefined ? undefined : (count.promptTokens * o.priceInput) / 1e6;
  const outputCost = o.priceOutput === undefined ? undefined : (count.completionBudget * o.priceOutput) / 1e6;
  const cost = promptCost === undefined && outputCost === undefined ? undefined : (promptCost ?? 0) + (outputCost ?? 0);
  const expected = count.expected;
  const expectedOutputCost = o.priceOutput === undefined || !expected ? undefined : (expected.completionTokens * o.priceOutput) / 1e6;
  const expectedCost = cost === undefined || !expected ? undefined : (promptCost ?? 0) + (expectedOutputCost ?? 0);
  const usd = (n: number) => Math.round(n * 100) / 100;
  if (o.format === 'json') {
    const doc = {
      stage,
      already_done: count.alreadyDone,
      rows: count.rows,
      requests: count.requests,
      prompt_tokens: count.promptTokens,
      completion_budget_tokens: count.completionBudget,
      ...(expected ? { expected_completion_tokens: expected.completionTokens, expected_from: expected.from } : {}),
      bad_rows: count.badRows,
      ...(count.rounds !== undefined && { batch_rounds: count.rounds }),
      ...(base && {
        teacher_forced: { requests: base.requests, prompt_tokens: base.promptTokens },
        multiple_of_teacher_forced: { requests: multiple!.requests ?? null, prompt_tokens: multiple!.promptTokens ?? null },
      }),
      // Not rounded to cents, as score's costs: a small run's prompts would read as free.
      ...(cost !== undefined ? { cost_usd: cost } : {}),
      ...(promptCost !== undefined ? { prompt_cost_usd: promptCost } : {}),
      ...(outputCost !== undefined ? { completion_budget_cost_usd: outputCost } : {}),
      ...(expectedCost !== undefined ? { expected_cost_usd: expectedCost } : {}),
      ...(count.cap
        ? {
            max_cost_usd: count.cap.usd,
            max_cost_rows_at_most_cost: count.cap.atBound,
            ...(count.cap.atExpected !== undefined ? { max_cost_rows_at_expected_cost: count.cap.atExpected } : {}),
          }
        : {}),
    };
    terminal().stdout.write(jsonText!(doc));
    return;
  }
  if (count.alreadyDone && !count.rows && !count.badRows) {
    terminal().stderr.write(`${DRY_RUN_LINES.allDone(stage, output, count.alreadyDone)}\n`);
    return;
  }
  const lines = [
    DRY_RUN_LINES.requests(stage, count.requests, count.rows, count.alreadyDone, output),
    DRY_RUN_LINES.promptTokens(count.promptTokens),
    DRY_RUN_LINES.completionBudget(count.completionBudget),
  ];
  if (base) lines.push(DRY_RUN_LINES.teacherForced(base, multiple!));
  if (count.rounds !== undefined) lines.push(DRY_RUN_LINES.rounds(count.rounds));
  if (expected) {
    const observed = expected.from === 'observed' ? { rows: expected.rows, output } : undefined;
    lines.push(DRY_RUN_LINES.expectedTokens(expected.completionTokens, observed));
  }
  if (count.badRows) lines.push(DRY_RUN_LINES.badRows(count.badRows, o.onBadRow));
  if (cost !== undefined) {
    lines.push(DRY_RUN_LINES.cost(usd(cost), usd(promptCost ?? 0), usd(outputCost ?? 0)));
    if (expectedCost !== undefined)
      lines.push(DRY_RUN_LINES.costExpected(usd(expectedCost), usd(promptCost ?? 0), usd(expectedOutputCost ?? 0)));
  }
  if (count.cap) lines.push(DRY_RUN_LINES.maxCostCovers(count.cap.usd, count.cap.atBound, count.rows, count.cap.atExpected));
  terminal().stderr.write(`${lines.join('\n')}\n`);
}

/**
 * With --batch: a line on stderr whenever a batch's status or counts change, and a warning when a
 * batch ended (expired, cancelled at the endpoint) with requests it never ran: those go online, at the full price.
 */
export function batchLines(): (e: Notice<'batch'>) => void {
  const term = terminal();
  const last = new Map<string | undefined, string>();
  return ({ stage, who, status: s }) => {
    const line = STAGE_LINES.batch(stage, who, s);
    if (line !== last.get(who)) term.stderr.write(`${line}\n`);
    last.set(who, line);
    const unrun = s.total - s.completed - s.failed;
    if ((s.status === 'expired' || s.status === 'cancelled') && unrun > 0)
      term.stderr.write(term.errColor.yellow(`${STAGE_LINES.batchUnrun(s.id, s.status, unrun, s.total)}\n`));
  };
}

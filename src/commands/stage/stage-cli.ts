import { terminal } from '../shared/terminal.js';
import { noticed } from '../words/index.js';
import { editedDataNote } from '../words/data/provenance.js';
import type { StageNotice } from '../../core/stage/index.js';
import { displayKey } from '../../core/rows/index.js';
import { visible } from '../../core/shown.js';
import { shellWord, thisInvocation } from '../shared/invocation.js';
import { printWarnings } from '../shared/notes.js';
import type { StageViewOptions } from './stage-options.js';

/* The words of what infer and judge are told while they run: notices, the dry run's count, and how a run ended. */

type Notice<T extends StageNotice['type']> = Extract<StageNotice, { type: T }>;

const HUB_NAME = { huggingface: 'the Hugging Face Hub', modelscope: 'ModelScope' } as const;
const SHOWN = 5;

/** A notice before the run (the data fetched, endpoints set aside, unfinished predictions, unpaired rows) as lines on stderr. */
export function printNotice(
  e: Notice<'fetching' | 'data-edited' | 'set-aside' | 'upstream-unfinished' | 'unpaired' | 'would-skip' | 'cost-cap'>,
  o: StageViewOptions,
): void {
  const t = terminal();
  switch (e.type) {
    case 'fetching':
      if (o.progress)
        t.stderr.write(`infer: no --data given: fetching ${e.repo}@${e.revision} from ${HUB_NAME[e.hub]} (cached after the first time)\n`);
      return;
    case 'data-edited': {
      const fix = `${thisInvocation()} download ${e.dir === undefined ? `--revision ${e.commit}` : `--dir ${shellWord(e.dir)}`}`;
      t.stderr.write(`${editedDataNote(e.files, e, fix)}\n`);
      return;
    }
    case 'set-aside':
      return printWarnings(e.warnings.map(noticed));
    case 'upstream-unfinished':
      t.stderr.write(
        `${t.errColor.yellow(`warning: ${visible(e.predictions)} is unfinished (${e.unwritten} of its ${e.total} rows are not in it yet): this run judges only the rows it holds; finish the infer run, then run this command again`)}\n`,
      );
      return;
    case 'unpaired': {
      const what =
        e.side === 'candidate'
          ? `in ${e.predictions} but not in the reference: written as "No reference row", not sent`
          : `in the reference ${e.reference} only: left out`;
      const examples = visible(e.keys.slice(0, SHOWN).map(displayKey).join('; '));
      t.stderr.write(`judge: ${e.keys.length} row(s) ${what} (${examples}${e.keys.length > SHOWN ? '; …' : ''})\n`);
      return;
    }
    case 'would-skip':
      t.stderr.write(`${e.stage}: would skip bad row: ${visible(e.bad.message)}\n`);
      return;
    case 'cost-cap': {
      const s = e.spending;
      t.stderr.write(
        t.errColor.yellow(
          `${e.stage}: --max-cost $${s.cap.toFixed(2)} reached ($${s.spent.toFixed(2)} spent, at most $${s.inFlight.toFixed(2)} more in flight): no more requests; the ones in flight finish and are saved\n`,
        ),
      );
    }
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
  for (const [url, s] of Object.entries(endpoints))
    terminal().stderr.write(`endpoint ${visible(url)}: ${s.requests} requests, ${s.failures} failed\n`);
}

/** With --stream: the median and 90th percentile of the time to first token and of the decode speed. */
export function printTimings(timings: Notice<'finished'>['timings']): void {
  const { ttft: t, decode: d } = timings ?? {};
  if (t) terminal().stderr.write(`time to first token: median ${t.median} ms, p90 ${t.p90} ms (${t.rows} rows)\n`);
  if (d) terminal().stderr.write(`decode speed: median ${d.median} tokens/s, p90 ${d.p90} tokens/s (${d.rows} rows)\n`);
}

/** After a run: judge's rows with no prediction to judge, and the next command once every row has its result. */
export function printAfter(e: Notice<'unpredicted' | 'next-step'>): void {
  const t = terminal();
  if (e.type === 'unpredicted') {
    t.stderr.write(
      `judge: ${e.rows} rows have no prediction because their inference failed: run \`${thisInvocation()} infer\` again on ${visible(e.predictions)} first, then this command\n`,
    );
  } else if (e.stage === 'infer') {
    t.stderr.write(
      `judge it with: ${thisInvocation()} judge --predictions ${shellWord(e.output)} --judge-base-url URL --judge-model MODEL\n`,
    );
  } else {
    t.stderr.write(`score it with: ${thisInvocation()} score ${shellWord(e.output)}\n`);
  }
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
  const n = (x: number) => x.toLocaleString('en-US');
  if (count.alreadyDone && !count.rows && !count.badRows) {
    terminal().stderr.write(
      `${stage} dry run: ${visible(output)} already holds a result of all ${n(count.alreadyDone)} rows: a run would send nothing\n`,
    );
    return;
  }
  const lines = [
    `${stage} dry run: ${n(count.requests)} requests for ${n(count.rows)} rows (nothing sent, nothing written)${count.alreadyDone ? `; the ${n(count.alreadyDone)} rows ${visible(output)} already holds a result of are not sent again` : ''}`,
    `prompt tokens (estimate, o200k): ${n(count.promptTokens)}`,
    `completion budget (max tokens x requests): ${n(count.completionBudget)}`,
  ];
  if (base) {
    lines.push(
      `the teacher-forced run of these rows: ${n(base.requests)} requests, ${n(base.promptTokens)} prompt tokens; this run: ${multiple!.requests ?? 'n/a'} x its requests, ${multiple!.promptTokens ?? 'n/a'} x its prompt tokens (a prefix cache serves most of each step's prompt from the step before)`,
    );
  }
  if (count.rounds !== undefined) {
    lines.push(
      `with --batch: ${n(count.rounds)} ${count.rounds === 1 ? 'round' : 'rounds'} of batches, one after another (round k asks the k-th step of every row; each round within the Batch API's completion window)`,
    );
  }
  if (expected) {
    const from =
      expected.from === 'observed'
        ? `the mean per row of the ${n(expected.rows)} rows already in ${visible(output)}, by domain`
        : "each row's ground truth, o200k; a reasoning model adds its thinking";
    lines.push(`completion tokens expected: ${n(expected.completionTokens)} (${from})`);
  }
  if (count.badRows)
    lines.push(
      `${count.badRows === 1 ? '1 row fails its checks' : `${count.badRows} rows fail their checks`} (--on-bad-row ${o.onBadRow}: the run ${o.onBadRow === 'stop' ? 'stops at the first' : `skips ${count.badRows === 1 ? 'it' : 'them'}`})`,
    );
  if (cost !== undefined) {
    lines.push(
      `cost: $${usd(cost).toFixed(2)} at most (prompt $${usd(promptCost ?? 0).toFixed(2)}, completion budget $${usd(outputCost ?? 0).toFixed(2)})`,
    );
    if (expectedCost !== undefined)
      lines.push(
        `cost expected: $${usd(expectedCost).toFixed(2)} (prompt $${usd(promptCost ?? 0).toFixed(2)}, completion $${usd(expectedOutputCost ?? 0).toFixed(2)})`,
      );
  }
  if (count.cap) {
    const c = count.cap;
    const expectedRows = c.atExpected === undefined ? '' : `; about ${n(c.atExpected)} at the expected cost`;
    lines.push(
      `--max-cost $${c.usd.toFixed(2)} covers ${n(c.atBound)} of the ${n(count.rows)} rows with every request at the most it can cost (its prompt a token per byte, its completion --max-tokens), as the run admits them${expectedRows}`,
    );
  }
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
    const line = `${who === undefined ? stage : `${stage} ${who}`}: ${s.round === undefined ? '' : `round ${s.round}, `}batch ${s.batch}/${s.of} ${visible(s.id)}: ${visible(s.status)}, ${s.completed}/${s.total} done${s.failed ? `, ${s.failed} failed` : ''}`;
    if (line !== last.get(who)) term.stderr.write(`${line}\n`);
    last.set(who, line);
    const unrun = s.total - s.completed - s.failed;
    if ((s.status === 'expired' || s.status === 'cancelled') && unrun > 0)
      term.stderr.write(
        term.errColor.yellow(
          `warning: batch ${visible(s.id)} ${s.status} with ${unrun} of its ${s.total} requests not run: they are asked online, at the online price\n`,
        ),
      );
  };
}

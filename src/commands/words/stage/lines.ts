import type { BatchStatus } from '../../../core/endpoints/index.js';
import { visible } from '../../../core/shown.js';

/*
 * What infer and judge are told while they run, besides faults, notices and their own run's words (run.ts): the data
 * fetched, unfinished predictions, unpaired rows, the cost cap, the end lines, the next command, the dry run's count
 * and the batches' lines. Built here; stage-cli.ts decides when, and in which colour.
 */

const HUB_NAME = { huggingface: 'the Hugging Face Hub', modelscope: 'ModelScope' } as const;
/** Numbers with thousands separators: `12,345`. */
const n = (x: number) => x.toLocaleString('en-US');
const usd = (x: number) => `$${x.toFixed(2)}`;

export const STAGE_LINES = {
  /** OPENAI_API_KEY kept from a world model `host` that is not OpenAI's (`openai`); `option` names a key for it. */
  keyKept: (command: string, host: string, openai: string, option: string) =>
    `${command}: OPENAI_API_KEY is not sent to ${visible(host)} (not ${openai}); to send a key to that host, pass ${option} KEY or set AWB_MODEL_API_KEY`,
  fetching: (repo: string, revision: string, hub: keyof typeof HUB_NAME) =>
    `infer: no --data given: fetching ${repo}@${revision} from ${HUB_NAME[hub]} (cached after the first time)`,
  upstreamUnfinished: (predictions: string, unwritten: number, total: number) =>
    `warning: ${visible(predictions)} is unfinished (${unwritten} of its ${total} rows are not in it yet): this run judges only the rows it holds; finish the infer run, then run this command again`,
  /** Rows of one side of --mode pairwise only; `examples`: some of their keys, `more`: whether there are others. */
  unpaired: (
    e: { side: 'candidate'; predictions: string } | { side: 'reference'; reference: string },
    rows: number,
    examples: readonly string[],
    more: boolean,
  ) => {
    const what =
      e.side === 'candidate'
        ? `in ${e.predictions} but not in the reference: written as "No reference row", not sent`
        : `in the reference ${e.reference} only: left out`;
    return `judge: ${rows} row(s) ${what} (${visible(examples.join('; '))}${more ? '; …' : ''})`;
  },
  wouldSkip: (stage: string, problem: string) => `${stage}: would skip bad row: ${visible(problem)}`,
  costCapReached: (stage: string, s: { cap: number; spent: number; inFlight: number }) =>
    `${stage}: --max-cost ${usd(s.cap)} reached (${usd(s.spent)} spent, at most ${usd(s.inFlight)} more in flight): no more requests; the ones in flight finish and are saved`,
  endpointCounts: (url: string, requests: number, failures: number) => `endpoint ${visible(url)}: ${requests} requests, ${failures} failed`,
  timeToFirstToken: (t: { median: number; p90: number; rows: number }) =>
    `time to first token: median ${t.median} ms, p90 ${t.p90} ms (${t.rows} rows)`,
  decodeSpeed: (d: { median: number; p90: number; rows: number }) =>
    `decode speed: median ${d.median} tokens/s, p90 ${d.p90} tokens/s (${d.rows} rows)`,
  unpredicted: (rows: number, predictions: string, awb: string) =>
    `judge: ${rows} rows have no prediction because their inference failed: run \`${awb} infer\` again on ${visible(predictions)} first, then this command`,
  /** `predictions`: the output, already a shell word. */
  judgeIt: (awb: string, predictions: string) =>
    `judge it with: ${awb} judge --predictions ${predictions} --judge-base-url URL --judge-model MODEL`,
  scoreIt: (awb: string, judged: string) => `score it with: ${awb} score ${judged}`,
  /** A batch's state (`round`: infer --horizon's rounds of batches); `who`: the panel member whose batch it is. */
  batch: (stage: string, who: string | undefined, s: BatchStatus) =>
    `${who === undefined ? stage : `${stage} ${who}`}: ${s.round === undefined ? '' : `round ${s.round}, `}batch ${s.batch}/${s.of} ${visible(s.id)}: ${visible(s.status)}, ${s.completed}/${s.total} done${s.failed ? `, ${s.failed} failed` : ''}`,
  batchUnrun: (id: string, status: string, unrun: number, total: number) =>
    `warning: batch ${visible(id)} ${status} with ${unrun} of its ${total} requests not run: they are asked online, at the online price`,
} as const;

/** --dry-run's count, a line each. */
export const DRY_RUN_LINES = {
  allDone: (stage: string, output: string, done: number) =>
    `${stage} dry run: ${visible(output)} already holds a result of all ${n(done)} rows: a run would send nothing`,
  requests: (stage: string, requests: number, rows: number, done: number, output: string) =>
    `${stage} dry run: ${n(requests)} requests for ${n(rows)} rows (nothing sent, nothing written)${done ? `; the ${n(done)} rows ${visible(output)} already holds a result of are not sent again` : ''}`,
  /** With --batch --horizon: the rounds of batches the run takes. */
  rounds: (rounds: number) =>
    `with --batch: ${n(rounds)} ${rounds === 1 ? 'round' : 'rounds'} of batches, one after another (round k asks the k-th step of every row; each round within the Batch API's completion window)`,
  promptTokens: (tokens: number) => `prompt tokens (estimate, o200k): ${n(tokens)}`,
  completionBudget: (tokens: number) => `completion budget (max tokens x requests): ${n(tokens)}`,
  /** `multiple`: this run's requests and prompt tokens over the teacher-forced run's (undefined: that run has none). */
  teacherForced: (base: { requests: number; promptTokens: number }, multiple: { requests?: number; promptTokens?: number }) =>
    `the teacher-forced run of these rows: ${n(base.requests)} requests, ${n(base.promptTokens)} prompt tokens; this run: ${multiple.requests ?? 'n/a'} x its requests, ${multiple.promptTokens ?? 'n/a'} x its prompt tokens (a prefix cache serves most of each step's prompt from the step before)`,
  /** `observed`: the rows already in the output, whose mean per row the estimate takes; undefined: the ground truth's length. */
  expectedTokens: (tokens: number, observed: { rows: number; output: string } | undefined) => {
    const from = observed
      ? `the mean per row of the ${n(observed.rows)} rows already in ${visible(observed.output)}, by domain`
      : "each row's ground truth, o200k; a reasoning model adds its thinking";
    return `completion tokens expected: ${n(tokens)} (${from})`;
  },
  badRows: (rows: number, onBadRow: string) =>
    `${rows === 1 ? '1 row fails its checks' : `${rows} rows fail their checks`} (--on-bad-row ${onBadRow}: the run ${onBadRow === 'stop' ? 'stops at the first' : `skips ${rows === 1 ? 'it' : 'them'}`})`,
  /** Costs in USD, each rounded to the cent. */
  cost: (cost: number, prompt: number, completion: number) =>
    `cost: ${usd(cost)} at most (prompt ${usd(prompt)}, completion budget ${usd(completion)})`,
  costExpected: (cost: number, prompt: number, completion: number) =>
    `cost expected: ${usd(cost)} (prompt ${usd(prompt)}, completion ${usd(completion)})`,
  maxCostCovers: (cap: number, atBound: number, rows: number, atExpected: number | undefined) =>
    `--max-cost ${usd(cap)} covers ${n(atBound)} of the ${n(rows)} rows with every request at the most it can cost (its prompt a token per byte, its completion --max-tokens), as the run admits them${atExpected === undefined ? '' : `; about ${n(atExpected)} at the expected cost`}`,
} as const;

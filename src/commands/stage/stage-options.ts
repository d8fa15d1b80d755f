import { HUB_SOURCES } from '../../core/hubs.js';
import { UserError } from '../../core/errors.js';
import type { Horizon } from '../../core/schemas/index.js';
import {
  DOMAINS_OPTION,
  choiceOption,
  intIn,
  intOption,
  jsonObjectOption,
  labelOption,
  numberIn,
  numberOption,
  secondsIn,
  shardOption,
  urlOption,
} from '../shared/options.js';
import { text, toggle, type OptionTable, type Parsed } from '../shared/option-table.js';
import { memberPair, panelMembersOption } from './panel-options.js';
import { OPTION_WORDS } from '../words/usage.js';
import { EXIT } from '../words/words.js';

/* The options of infer, judge and models, each with its parser (see option-table.ts). */

/** Base URLs; credentials before the host are refused, pointing at the stage's key option. */
const urls = (keyOption: string) => (v: string[] | undefined, name: string) => (v ?? []).map((u) => urlOption(name, u, keyOption));
const required = (v: string | undefined) => v!;

const shard = {
  flags: '--shard <k/n>',
  help: 'take only shard K of N (1-based); auto: the shard the engine running awb names in its environment (Kubernetes Indexed Job, GitLab, CircleCI, Buildkite, AWS Batch, Semaphore, or AWB_SHARD_INDEX/AWB_SHARD_COUNT from a GitHub Actions matrix; docs/scale-out.md)',
  parse: (v: string | undefined) => shardOption(v),
};
const shardCount = {
  flags: '--shard-count <n>',
  help: "with --shard auto: the number of shards, for an engine that does not say it (Kubernetes: the Job's completions; else $AWB_SHARD_COUNT)",
  parse: (v: string | undefined, n: string) => intOption(n, v, 1),
};
const concurrency = {
  flags: '-c, --concurrency <n>',
  help: 'requests in flight',
  default: '16',
  parse: intIn(1, 4096),
};
const temperature = { flags: '--temperature <t>', default: '0.6', parse: (v: string, n: string) => numberOption(n, v, 0, 2) };
const seed = {
  flags: '--seed <n>',
  parse: (v: string | undefined, n: string) => intOption(n, v, 0, Number.MAX_SAFE_INTEGER),
};
const maxTokens = { flags: '--max-tokens <n>', default: '32768', parse: (v: string, n: string) => intOption(n, v, 1) };
/** Request fields awb sets itself: given in --extra-body they were dropped, or (stream) made every reply unreadable. */
const OWN_FIELDS = ['model', 'messages', 'stream', 'stream_options'] as const;
const extraBody = {
  flags: '--extra-body <json>',
  help: 'JSON object merged into each request body',
  parse: (v: string | undefined, n: string) => {
    const body = jsonObjectOption(n, v);
    // `stream_options: null` is no setting of its own: it leaves out the stream_options --stream sends (pool.ts).
    const own = Object.keys(body ?? {}).find(
      (k): k is (typeof OWN_FIELDS)[number] => OWN_FIELDS.some((f) => f === k) && !(k === 'stream_options' && body![k] === null),
    );
    if (own) throw new UserError(OPTION_WORDS.ownField(n, own));
    return body;
  },
};

/** What infer and judge share: requests, failures, interrupts and resuming. */
const RUN_OPTIONS = {
  timeout: {
    flags: '--timeout <s>',
    help: 'per-request timeout in seconds (long generations need long timeouts)',
    default: '1800',
    parse: secondsIn(1, 86_400),
  },
  maxRetries: {
    flags: '--max-retries <n>',
    help: 'retries per request for 429, 5xx, resets, timeouts and malformed replies, with backoff (at most N + 1 attempts)',
    default: '6',
    parse: intIn(0, 100),
  },
  maxInflightMb: {
    flags: '--max-inflight-mb <n>',
    help: 'the rows sent or ready to send hold at most N MB of input between them (a larger row goes alone): bounds memory with multi-MB rows; 0: no limit',
    default: '32',
    parse: numberIn(0, 1e6),
  },
  onBadRow: {
    flags: '--on-bad-row <mode>',
    help: 'a malformed input row: "stop" the run there (rows before it are kept), or "skip" it and report it',
    default: 'stop',
    parse: (v: string, n: string) => choiceOption(n, v, ['stop', 'skip'] as const),
  },
  grace: {
    flags: '--grace <s>',
    help: 'on Ctrl-C/SIGTERM, or an error that stops the run (a rejected key, no quota), seconds to let in-flight requests finish',
    default: '60',
    parse: numberIn(0, 86_400),
  },
  maxReplyMb: {
    flags: '--max-reply-mb <n>',
    help: 'a reply larger than this many MB is a failed attempt (a long generation is well under 1 MB)',
    default: '16',
    parse: numberIn(0.001, 4096),
  },
  stream: toggle(
    '--stream',
    'stream replies (server-sent events): bytes keep flowing through proxies that cut silent connections, and rows record the time to the first token and the decode speed (ttft_ms and decode_tokens_per_s; judge_ttft_ms and judge_decode_tokens_per_s from the judge); results are the same',
  ),
  streamIdle: {
    flags: '--stream-idle <s>',
    help: 'with --stream, a reply that has begun (its headers came) and then sends nothing for this many seconds is a failed attempt, retried like a timeout; before its headers, --timeout applies',
    default: '60',
    parse: secondsIn(0.1, 86_400),
  },
  batch: toggle(
    '--batch',
    'send the requests through the Batch API (OpenAI, LiteLLM proxy; not vllm serve): half the price, results within 24 h; a killed run given the same command goes back to the same batches',
  ),
  batchPoll: {
    flags: '--batch-poll <s>',
    help: "with --batch, seconds between checks of the batches' status",
    default: '30',
    parse: secondsIn(0.01, 3600),
  },
  batchMaxLines: {
    flags: '--batch-max-lines <n>',
    help: 'with --batch, requests per batch file at most (OpenAI: 50000); more make several batches',
    default: '50000',
    parse: intIn(1, 50_000),
  },
  batchMaxMb: {
    flags: '--batch-max-mb <n>',
    help: 'with --batch, size of a batch file at most, in MB (OpenAI: 200)',
    default: '200',
    parse: numberIn(0.001, 200),
  },
  summary: {
    flags: '--summary <file>',
    help: "also append the run's summary as markdown here, under its own heading (e.g. $GITHUB_STEP_SUMMARY)",
    parse: text,
  },
  dryRun: toggle(
    '--dry-run',
    'read every row and send nothing, write nothing: print the requests, an estimate of their prompt tokens (OpenAI o200k tokenizer on the exact messages, long texts sampled, plus 4 tokens per message; other tokenizers differ by a few per cent) and the completion budget (--max-tokens per request)',
  ),
  priceInput: {
    flags: '--price-input <usd>',
    help: 'with --dry-run or --max-cost: price per million prompt tokens',
    parse: (v: string | undefined, n: string) => numberOption(n, v, 0, 1e6),
  },
  priceOutput: {
    flags: '--price-output <usd>',
    help: "with --dry-run or --max-cost: price per million completion tokens (a dry run's cost counts the whole budget: an upper bound)",
    parse: (v: string | undefined, n: string) => numberOption(n, v, 0, 1e6),
  },
  maxCost: {
    flags: '--max-cost <usd>',
    help: `stop sending before the output's requests could cost more than this, at --price-input and --price-output: the requests in flight finish and are saved, the run exits ${EXIT.costCap}, and the same command with a higher cap goes on (docs/running.md#a-spending-cap)`,
    parse: (v: string | undefined, n: string) => numberOption(n, v, 0, 1e9),
  },
  format: {
    flags: '--format <fmt>',
    help: 'with --dry-run: "text", or "json" (one document on stdout)',
    default: 'text',
    parse: (v: string, n: string) => choiceOption(n, v, ['text', 'json'] as const),
  },
  retryFailed: toggle('--retry-failed', 'also ask again rows whose final result was a failure (empty generation, unparseable judge reply)'),
  label: {
    flags: '--label <name>',
    help: "the run's name: recorded in the manifest, shown by score, compare and report, and names the default output",
    parse: (v: string | undefined, n: string) => labelOption(n, v),
  },
  force: toggle('--force', 'resume even if the settings differ from the ones the output was made with'),
  pace: toggle(
    '--no-pace',
    "don't pace requests to the rate limits an endpoint states (x-ratelimit-* headers, 429s): send at -c regardless",
  ),
  preflight: toggle('--no-preflight', 'skip the check that the endpoint answers and serves the model'),
  promptCacheKey: toggle(
    '--prompt-cache-key',
    "send OpenAI's prompt_cache_key (one per trajectory) so a trajectory's turns reach the machine caching their prefix; only OpenAI's API understands it, other servers may reject the field",
  ),
  progress: toggle('--no-progress', 'no progress bar or progress lines'),
} satisfies OptionTable;

export const INFER_OPTIONS = {
  modelBaseUrl: {
    flags: '--model-base-url <url>',
    help: 'OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (repeat for several replicas)',
    repeat: true,
    required: true,
    parse: urls('model-api-key'),
  },
  // A name goes into printed commands (--retry-failed, resume) and folder names: one printable line, as --label.
  modelName: {
    flags: '--model-name <name>',
    help: 'model name as the endpoint knows it',
    required: true,
    parse: (v: string | undefined, n: string) => labelOption(n, v)!,
  },
  modelApiKey: {
    flags: '--model-api-key <key>',
    help: 'API key (default: $AWB_MODEL_API_KEY; $OPENAI_API_KEY only for https://api.openai.com; else "EMPTY")',
    parse: text,
  },
  data: {
    flags: '--data <dir>',
    help: 'local copy of the dataset in the official layout ({domain}_test.jsonl); default: download it',
    parse: text,
  },
  source: {
    flags: '--source <hub>',
    help: 'where to download the dataset from without --data: huggingface or modelscope',
    default: 'huggingface',
    parse: (v: string, n: string) => choiceOption(n, v, HUB_SOURCES),
  },
  revision: {
    flags: '--revision <rev>',
    help: 'dataset revision when downloading (default: main on Hugging Face, master on ModelScope)',
    parse: text,
  },
  output: {
    flags: '-o, --output <file>',
    help: 'predictions file (default: results/<label or model>/predictions.jsonl, a folder per run; predictions-shard-K-of-N.jsonl with --shard)',
    parse: text,
  },
  domains: DOMAINS_OPTION,
  limit: {
    flags: '--limit <n>',
    help: 'at most N rows per domain (quick checks)',
    parse: (v: string | undefined, n: string) => intOption(n, v, 1),
  },
  shard: { ...shard, help: `${shard.help.replace(' (1-based)', ' (1-based), a deterministic split balanced by size')}` },
  shardCount,
  concurrency,
  temperature: { ...temperature, help: "sampling temperature (the default is the official script's)" },
  seed: {
    ...seed,
    help: "sampling seed sent as each request's `seed`: a server that honours it (vLLM; llama.cpp; OpenAI at its best effort) samples the same generations again (default: none sent)",
  },
  topP: {
    flags: '--top-p <p>',
    help: 'nucleus sampling (default: server default)',
    parse: (v: string | undefined, n: string) => numberOption(n, v, 0, 1),
  },
  maxTokens: { ...maxTokens, help: "generation limit in tokens (the default is the official script's)" },
  extraBody: {
    ...extraBody,
    help: 'JSON object merged into each request body, e.g. \'{"chat_template_kwargs":{"enable_thinking":true}}\'',
  },
  horizon: {
    flags: '--horizon <h>',
    help: 'free-running (docs/drift.md): the last H earlier observations of each row are the model\'s own, generated turn by turn from the real actions (up to H+1 requests a row, one after another); "all": every earlier turn, one rollout per trajectory; 0: teacher-forced',
    default: '0',
    // 0 is the teacher-forced run: no horizon at all, so its requests, rows and manifest are the plain run's.
    parse: (v: string, n: string): Horizon | undefined =>
      v.trim().toLowerCase() === 'all' ? 'all' : intOption(n, v, 0, 100_000) || undefined,
  },
  history: {
    flags: '--no-history',
    help: 'send only the system prompt and the current action (the protocol before the official history fix)',
    parse: (v: boolean | undefined) => (v === false ? ('none' as const) : ('full' as const)),
  },
  ...RUN_OPTIONS,
} satisfies OptionTable;

export const JUDGE_OPTIONS = {
  predictions: {
    flags: '--predictions <file>',
    help: 'predictions JSONL from `awb infer` (results/<label or model>/predictions.jsonl) or the official script',
    required: true,
    parse: required,
  },
  judgeBaseUrl: {
    flags: '--judge-base-url <url>',
    help: "OpenAI-compatible base URL of the judge (repeat for several replicas of it; a panel's members all use these unless --member-base-url names their own)",
    repeat: true,
    parse: urls('judge-api-key'),
  },
  judgeModel: {
    flags: '--judge-model <name>',
    help: 'judge model (published numbers: gpt-5.2-2025-12-11); several, comma-separated (a,b,c), make a panel that judges every row with each (docs/judge-panels.md)',
    required: true,
    parse: (v: string | undefined, n: string) => panelMembersOption(n, labelOption(n, v)!),
  },
  judgeApiKey: {
    flags: '--judge-api-key <key>',
    help: 'API key (default: $AWB_JUDGE_API_KEY, else $OPENAI_API_KEY, else "EMPTY")',
    parse: text,
  },
  memberBaseUrl: {
    flags: '--member-base-url <name=url>',
    help: "a panel: the base URL of member NAME (one of --judge-model's), in place of --judge-base-url; repeat, also for several replicas of one member",
    repeat: true,
    parse: (v: string[] | undefined, n: string) =>
      (v ?? []).map((p) => {
        const pair = memberPair(n, p);
        return { ...pair, value: urlOption(n, pair.value, 'member-api-key') };
      }),
  },
  memberApiKey: {
    flags: '--member-api-key <name=key>',
    help: "a panel: the API key of member NAME, in place of --judge-api-key's (repeat for each member)",
    repeat: true,
    parse: (v: string[] | undefined, n: string) => (v ?? []).map((p) => memberPair(n, p)),
  },
  panel: {
    flags: '--panel <rule>',
    help: "a panel: how the members' grades of a dimension (or, in a choice mode, their rates of a row) combine, mean or median (default: mean)",
    parse: (v: string | undefined, n: string) => (v === undefined ? undefined : choiceOption(n, v, ['mean', 'median'] as const)),
  },
  rubrics: {
    flags: '--rubrics <dir>',
    help: 'rubric folder: {domain}.md, or the official {domain}/judge_system_prompt.txt layout (default: bundled)',
    parse: text,
  },
  output: {
    flags: '-o, --output <file>',
    help: 'judged file (default: judged.jsonl beside the predictions; judged-<label>.jsonl with --label; -shard-K-of-N added for a shard)',
    parse: text,
  },
  mode: {
    flags: '--mode <mode>',
    help: 'rubric (1-5 grades), turing (real or predicted?) or pairwise (closer of two predictions, with --reference)',
    default: 'rubric',
    parse: (v: string, n: string) => choiceOption(n, v, ['rubric', 'turing', 'pairwise'] as const),
  },
  reference: {
    flags: '--reference <file>',
    help: 'pairwise: the predictions to compare against (rows paired by row key)',
    parse: text,
  },
  repeat: {
    flags: '--repeat <k>',
    help: "rubric: judge each row K times, kept in judge_repeats; the row's grades are their mean",
    parse: (v: string | undefined, n: string) => intOption(n, v, 1, 100),
  },
  domains: { ...DOMAINS_OPTION, help: 'comma-separated domains (default: all in the predictions)' },
  shard,
  shardCount,
  concurrency,
  temperature: { ...temperature, help: "judge temperature (the default is the official script's)" },
  seed: {
    ...seed,
    help: "the judge's sampling seed, sent as each request's `seed`: a judge that honours it repeats its judgements, and answers a re-ask (--parse-attempts) alike (default: none sent)",
  },
  maxTokens: { ...maxTokens, help: "judge generation limit in tokens (the default is the official script's)" },
  extraBody,
  parseAttempts: {
    flags: '--parse-attempts <n>',
    help: 'ask the judge again when its reply cannot be parsed, up to N times in all (official: 3)',
    default: '3',
    parse: intIn(1, 20),
  },
  ...RUN_OPTIONS,
} satisfies OptionTable;

/** What the display of infer and judge reads of their options: how much it shows, and the dry run's count. */
export type StageViewOptions = Pick<
  Parsed<typeof RUN_OPTIONS>,
  'progress' | 'dryRun' | 'format' | 'priceInput' | 'priceOutput' | 'onBadRow'
>;

/** `awb models`: the endpoint, its key and timeout, with the same URL and secret handling as infer and judge. */
export const MODELS_OPTIONS = {
  baseUrl: {
    flags: '--base-url <url>',
    help: 'OpenAI-compatible base URL, e.g. http://localhost:8000/v1',
    required: true,
    parse: (v: string | undefined, name: string) => urlOption(name, v!, 'api-key'),
  },
  apiKey: {
    flags: '--api-key <key>',
    help: 'API key (default: $AWB_MODEL_API_KEY; $OPENAI_API_KEY only for https://api.openai.com; else "EMPTY")',
    parse: text,
  },
  timeout: { ...RUN_OPTIONS.timeout, help: 'seconds to wait for the answer', default: '30' },
} satisfies OptionTable;

import { stringify } from 'yaml';
import { DATASET_REPO, DOMAINS, domainLabel } from '../domains.js';
import { formatFixed, type PublishedGap, type RunReport } from '../score/index.js';

/*
 * The Hugging Face Hub's Eval Results files: a model repo's `.eval_results/<benchmark>.yaml` (a list of entries, one per
 * reported figure) and the benchmark dataset's `eval.yaml` (its tasks). Plain data, written as YAML by a library so any
 * text (a judge's name, a note) is quoted as YAML needs.
 */

/** Where the model repo keeps this benchmark's results. */
export const EVAL_RESULTS_FILE = '.eval_results/agentworldbench.yaml';
/** What registers the dataset as a benchmark, at its root. */
export const BENCHMARK_FILE = 'eval.yaml';
/** The task id of the leaderboard's Overall (the macro mean of the domains). */
const OVERALL_TASK = 'overall';
const FRAMEWORK = 'agentworldbench';

export interface EvalResultEntry {
  dataset: { id: string; task_id: string; revision?: string };
  /** 0–100, two decimals as the official script prints them. */
  value: number;
  /** ISO-8601 day the run finished. */
  date?: string;
  /** Where the judged rows behind the figure are. */
  source?: { url: string; name: string };
  notes: string;
  evaluation_framework: string;
}

export interface ResultsOptions {
  /** When the judged run finished (its manifest's finished_at or updated_at). */
  finishedAt?: string;
  source?: { url: string; name: string };
  /** awb's version, named in the notes. */
  version: string;
  /** A gap as the notes say it (src/commands/words/). */
  gapText: (gap: PublishedGap) => string;
}

/**
 * Why the run would not be ranked by `score --with-published` (empty: it would): other judge, sampling, rubrics,
 * history protocol, partial or unknown data, mixed settings; and a run its manifest calls unfinished.
 */
export function rankGaps(run: RunReport): PublishedGap[] {
  const unfinished: PublishedGap[] = run.provenance.complete === false ? [{ kind: 'unfinished' }] : [];
  return [...run.publishedGaps, ...unfinished];
}

/** The setup a figure was made under, as the notes of every entry say it. */
function setupNotes(run: RunReport, version: string): string[] {
  const p = run.provenance;
  const sampling = [
    p.judgeTemperature !== undefined ? `temperature ${p.judgeTemperature}` : undefined,
    p.judgeMaxTokens !== undefined ? `max tokens ${p.judgeMaxTokens}` : undefined,
  ].filter(Boolean);
  const rubrics =
    p.rubricsLayout === 'official'
      ? 'official rubrics'
      : p.rubricsSource === 'bundled'
        ? "awb's bundled rubrics (not the official text)"
        : p.rubricsSource === undefined
          ? 'rubrics unknown'
          : 'own rubrics';
  const freeRunning = p.horizon !== undefined && p.horizon !== '0';
  const own =
    p.horizon === 'all' ? "every earlier observation the model's own" : `the last ${p.horizon} earlier observations the model's own`;
  const history =
    p.history === 'full' && freeRunning
      ? `history: full, free-running (infer --horizon ${p.horizon}: ${own})`
      : p.history === 'full'
        ? 'history: full, teacher-forced (horizon: one turn)'
        : p.history === 'none'
          ? 'history: none, current action only (horizon: one turn)'
          : `history: ${p.history ?? 'unknown'}`;
  return [`judge ${p.judge ?? 'unknown'}${sampling.length ? ` (${sampling.join(', ')})` : ''}`, rubrics, history, `awb ${version}`];
}

/** Overall (macro) and each domain with a score, as Eval Results entries; unranked runs' notes say why. */
export function evalResults(run: RunReport, opts: ResultsOptions): EvalResultEntry[] {
  const p = run.provenance;
  const gaps = rankGaps(run);
  const setup = setupNotes(run, opts.version);
  const why = gaps.length ? [`not comparable with the published leaderboard: ${gaps.map(opts.gapText).join('; ')}`] : [];
  const date = opts.finishedAt?.slice(0, 10);
  const entry = (taskId: string, value: string, rows: string): EvalResultEntry => ({
    dataset: { id: DATASET_REPO, task_id: taskId, ...(p.datasetCommit ? { revision: p.datasetCommit } : {}) },
    value: Number(value),
    ...(date && /^\d{4}-\d{2}-\d{2}$/.test(date) ? { date } : {}),
    ...(opts.source ? { source: opts.source } : {}),
    notes: [...setup, rows, ...why].join('; '),
    evaluation_framework: FRAMEWORK,
  });
  const scored = run.score.domains.filter((d) => d.score !== undefined);
  const macro = run.score.macro;
  return [
    ...(macro === undefined
      ? []
      : [
          entry(
            OVERALL_TASK,
            formatFixed(macro),
            `Overall: macro mean of ${run.score.macroDomains} domains; ${run.score.valid} of ${run.score.rows} rows valid`,
          ),
        ]),
    ...scored.map((d) => entry(d.domain, formatFixed(d.score), `${domainLabel(d.domain)}: ${d.valid} of ${d.rows} rows valid`)),
  ];
}

export const evalResultsYaml = (entries: readonly EvalResultEntry[]): string => stringify(entries, { lineWidth: 0 });

/** The benchmark's `eval.yaml`: Overall and a task per domain, each file a config of the test split. */
export function benchmarkEvalYaml(): string {
  return stringify(
    {
      name: 'AgentWorldBench',
      description:
        'Language world models predicting what the environment returns to an agent, in seven domains (MCP, Search, Terminal, SWE, Android, Web, OS); an LLM judge grades each prediction 1-5 on five rubric dimensions, reported on 0-100. Overall is the macro mean of the domains.',
      evaluation_framework: FRAMEWORK,
      tasks: [{ id: OVERALL_TASK, config: 'default', split: 'test' }, ...DOMAINS.map((d) => ({ id: d, config: d, split: 'test' }))],
    },
    { lineWidth: 0 },
  );
}

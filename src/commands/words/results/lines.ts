import { counted, visible } from '../../../core/shown.js';
import { PREFIX } from '../process.js';

/* What the result commands (compare, merge, report, rows, publish) say besides faults: each line's words, built here. */
export const RESULTS_WORDS = {
  gateOptionsAlone: '--allow-partial and --allow-incomparable only apply to the gate: add --fail-below DELTA',
  worstAndBest: '--worst and --best exclude each other: pick one',
  /** The last words of a command Ctrl-C stopped before it wrote `file`. */
  interrupted: (command: string, file: string) => `${command} interrupted; nothing was written to ${file}`,
  mergeUsage: (awb: string) => `merge: name the merged file with -o FILE, then the shard files (${awb} merge -o merged.jsonl shard1.jsonl ...)`,
  merged: (rows: number, shards: number, out: string) => `merge: wrote ${counted(rows, 'row')} from ${counted(shards, 'shard')} to ${visible(out)}`,
  mergeIncomplete: (missing: number, failed: number) =>
    `merge: ${counted(missing, 'row')} missing and ${failed} failed; the merged file is incomplete`,
  reportWritten: (file: string, rows: number, bytes: number, seconds: number, cut?: { texts: number; limit: number }) =>
    PREFIX.said(
      `wrote ${visible(file)} (${rows} rows, ${(bytes / 1e6).toFixed(1)} MB, ${seconds.toFixed(1)} s${cut ? `; ${cut.texts} texts cut at ${cut.limit} characters` : ''})`,
    ),
  noRowsMatch: PREFIX.said('no rows match'),
  notARow: (text: string) => `"${text}" names no row: a row is domain/id/turn_idx, as compare prints it (e.g. web/563640682553697/5)`,
  /** A row the merged file lacks (`key` as displayKey shows it), a line each. */
  mergeMissing: (key: string) => `missing: ${visible(key)}`,
  mergeFailed: (key: string) => `failed: ${visible(key)}`,
  /** A key the dataset holds twice (the android pair): each row it names, by its fingerprint. */
  keyNamesPair: (key: string, prints: readonly string[]) =>
    PREFIX.note(
      `${key} names ${prints.length} rows (the dataset holds this id and turn twice); one of them: ${prints.map((p) => `${key}#${p}`).join(', ')}`,
    ),
} as const;

/** What `awb publish` says on stderr, and the texts it leaves on the Hub (commit messages, the pull request). */
export const PUBLISH_LINES = {
  /** --allow-unranked: the gaps that publish anyway, as the entries' notes say them. */
  unranked: (gaps: readonly string[]) => `publish: not ranked with the published leaderboard, said in the notes: ${visible(gaps.join('; '))}`,
  uploading: (files: number, dataset: string, folder: string) => `publish: uploading ${files} files to the dataset ${dataset} (${folder}/)`,
  tracesCommit: (folder: string, version: string) => `Add ${folder}: AgentWorldBench judged rows (awb ${version})`,
  /** The name the entries give the traces (their `source`). */
  tracesName: 'AgentWorldBench judged rows',
  tracesAt: (url: string) => `publish: traces at ${url}`,
  figures: (figures: ReadonlyArray<{ task: string; value: number }>) =>
    `publish: ${figures.map((f) => `${f.task} ${f.value.toFixed(2)}`).join(', ')}`,
  wrote: (results: string, benchmark: string) => `publish: wrote ${results} (for the model repo) and ${benchmark} (for the benchmark dataset)`,
  pullRequestTitle: (folder: string) => `Add AgentWorldBench results (${folder})`,
  pullRequestOpened: (repo: string) => `publish: opened a pull request on ${repo}`,
  /** The pull request's text: what the figures are, how they were made, where the rows are. */
  pullRequest: (p: {
    label: string;
    version: string;
    figures: ReadonlyArray<{ task: string; value: number }>;
    setup: string;
    source?: string;
    gaps: readonly string[];
  }) =>
    [
      `AgentWorldBench results of ${visible(p.label)}, made with [agentworldbench](https://www.npmjs.com/package/agentworldbench) ${p.version}.`,
      '',
      '| task | score (0-100) |',
      '| --- | ---: |',
      ...p.figures.map((f) => `| ${f.task} | ${f.value.toFixed(2)} |`),
      '',
      `Setup: ${p.setup}`,
      ...(p.source ? ['', `Judged rows, scores and report: ${p.source}`] : []),
      ...(p.gaps.length ? ['', `Not comparable with the published leaderboard: ${p.gaps.join('; ')}.`] : []),
    ].join('\n'),
} as const;

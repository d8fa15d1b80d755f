import { openAsBlob } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DEFAULT_HUB_URL, checkedHubUrl } from '../../core/download/index.js';
import { fail, fileError } from '../../core/errors.js';
import { writeAtomically } from '../../core/files.js';
import { readManifest } from '../../core/output/index.js';
import {
  BENCHMARK_FILE,
  EVAL_RESULTS_FILE,
  benchmarkEvalYaml,
  evalResults,
  evalResultsYaml,
  openResultsPullRequest,
  rankGaps,
  uploadTraces,
  type EvalResultEntry,
  type HubWrite,
  type UploadedFile,
} from '../../core/publish/index.js';
import { collectWithPairs } from '../../core/report/index.js';

import { manifestPathFor } from '../../core/schemas/index.js';
import { judgeModeOf, scoreFiles, type ScoreRequest } from '../../core/score/index.js';
import { VERSION } from '../../version.js';
import { printWarnings } from '../shared/notes.js';
import type { Parsed } from '../shared/option-table.js';
import { pathSegment } from '../../core/stage/index.js';
import { terminal } from '../shared/terminal.js';
import { BOOTSTRAP_OPTIONS, type PUBLISH_OPTIONS } from './results-options.js';
import { NOTE_WORDS } from '../words/index.js';
import { PUBLISH_LINES } from '../words/results/lines.js';

export async function run(file: string, opts: Parsed<typeof PUBLISH_OPTIONS>): Promise<void> {
  const t = terminal();
  if (opts.out === undefined && opts.repo === undefined) throw fail({ kind: 'publish-nowhere' });
  // Checked before any reading: a missing token should not wait for a large file to be scored.
  const hub = opts.repo !== undefined || opts.traces !== undefined ? hubWrite(t.env) : undefined;
  const mode = await judgeModeOf(file);
  if (mode === 'turing' || mode === 'pairwise') throw fail({ kind: 'publish-not-rubric', file, mode });
  const request: ScoreRequest = {
    files: [file],
    failuresAsLowest: false,
    bootstrap: { resamples: Number(BOOTSTRAP_OPTIONS.bootstrap.default), seed: Number(BOOTSTRAP_OPTIONS.seed.default) },
    withPublished: true,
    prices: undefined,
    byTurn: false,
  };
  // With traces, the report page is made from the same pass that scores the run.
  const collected = opts.traces !== undefined ? (await collectWithPairs(request)) : undefined;
  const report = collected ? collected.collected.report! : await scoreFiles(request);
  printWarnings(collected ? collected.collected.warnings : report.warnings);
  const run = report.runs[0]!;
  if (run.score.macro === undefined) throw fail({ kind: 'publish-no-scores', file });
  const gaps = rankGaps(run);
  if (gaps.length && !opts.allowUnranked) throw fail({ kind: 'publish-unranked', file, gaps });
  if (gaps.length) t.stderr.write(`${PUBLISH_LINES.unranked(gaps.map(NOTE_WORDS.gap))}\n`);
  const manifest = await readManifest(file).catch(() => undefined);
  const folder = opts.name ?? pathSegment(run.provenance.label ?? run.provenance.model ?? 'run');

  let source: EvalResultEntry['source'];
  if (hub && opts.traces !== undefined) {
    const { renderReportHtml } = await import('../../render/html/report.js');
    const { renderScoreJson } = await import('../../render/json.js');
    const html = renderReportHtml({ ...collected!, generated: new Date(), words: NOTE_WORDS });
    const files = await traceFiles(file, folder, manifest?.dataset.source, renderScoreJson(report, NOTE_WORDS), html);
    t.stderr.write(`${PUBLISH_LINES.uploading(files.length, opts.traces, folder)}\n`);
    const done = await uploadTraces(hub, opts.traces, folder, files, PUBLISH_LINES.tracesCommit(folder, VERSION));
    source = { url: done.url, name: PUBLISH_LINES.tracesName };
    t.stderr.write(`${PUBLISH_LINES.tracesAt(done.url)}\n`);
  }
  const finishedAt = manifest?.finished_at ?? manifest?.updated_at;
  const entries = evalResults(run, { finishedAt, source, version: VERSION, gapText: NOTE_WORDS.gap });
  const yaml = evalResultsYaml(entries);
  const figures = entries.map((e) => ({ task: e.dataset.task_id, value: e.value }));
  t.stderr.write(`${PUBLISH_LINES.figures(figures)}\n`);

  if (opts.out !== undefined) {
    const results = join(opts.out, EVAL_RESULTS_FILE);
    const benchmark = join(opts.out, BENCHMARK_FILE);
    for (const [path, text] of [
      [results, yaml],
      [benchmark, benchmarkEvalYaml()],
    ] as const) {
      await mkdir(dirname(path), { recursive: true }).catch((err: unknown) => {
        throw fileError(dirname(path), err);
      });
      await writeAtomically(path, text).catch((err: unknown) => {
        throw fileError(path, err);
      });
    }
    t.stderr.write(`${PUBLISH_LINES.wrote(results, benchmark)}\n`);
  }
  if (hub && opts.repo !== undefined) {
    const url = await openResultsPullRequest(
      hub,
      opts.repo,
      [{ path: EVAL_RESULTS_FILE, content: new Blob([yaml]) }],
      PUBLISH_LINES.pullRequestTitle(folder),
      PUBLISH_LINES.pullRequest({
        label: run.label,
        version: VERSION,
        figures,
        setup: entries[0]?.notes ?? '',
        source: entries[0]?.source?.url,
        gaps: gaps.map(NOTE_WORDS.gap),
      }),
    );
    t.stderr.write(`${PUBLISH_LINES.pullRequestOpened(opts.repo)}\n`);
    t.stdout.write(`${url}\n`);
  }
}

/** The token from HF_TOKEN alone, and the Hub from HF_ENDPOINT. */
function hubWrite(env: Readonly<Record<string, string | undefined>>): HubWrite {
  const token = env.HF_TOKEN?.trim();
  if (!token) throw fail({ kind: 'publish-no-token' });
  if (!token.startsWith('hf_')) throw fail({ kind: 'publish-token-malformed' });
  const endpoint = env.HF_ENDPOINT?.trim();
  const hubUrl = checkedHubUrl(endpoint || DEFAULT_HUB_URL, endpoint ? 'HF_ENDPOINT' : 'option', 'HF_TOKEN');
  return { hubUrl, token };
}

/** The judged rows, their manifest and the predictions' (when beside them), the scores as JSON and the report page. */
async function traceFiles(file: string, folder: string, predictions: string | undefined, scores: string, html: string): Promise<UploadedFile[]> {
  const blob = async (path: string) =>
    openAsBlob(path).catch((err: unknown) => {
      throw fileError(path, err);
    });
  const files: UploadedFile[] = [
    { path: `${folder}/judged.jsonl`, content: await blob(file) },
    { path: `${folder}/judged.jsonl.manifest.json`, content: await blob(manifestPathFor(file)) },
    { path: `${folder}/scores.json`, content: new Blob([scores]) },
    { path: `${folder}/report.html`, content: new Blob([html]) },
  ];
  const upstream = predictions === undefined ? undefined : manifestPathFor(predictions);
  if (upstream !== undefined && (await access(upstream).then(() => true, () => false))) {
    files.push({ path: `${folder}/predictions.jsonl.manifest.json`, content: await blob(upstream) });
  }
  return files;
}

import { scoreInputs, type ScoreReport } from '../../core/score/index.js';
import type { ModeReport } from '../../render/modes.js';
import type { BootstrapSettings, Prices, ScoreRequest } from '../../core/score/index.js';
import { visibleLines } from '../../core/shown.js';
import { choiceOption, formatOption, intOption, numberOption } from '../shared/options.js';

/** The options score and report share (see withScoreOptions in cli.ts). */
export interface ScoreSettingsOpts {
  failuresAsLowest?: boolean;
  ci: boolean;
  bootstrap: string;
  seed: string;
  withPublished?: boolean;
  priceInput?: string;
  priceOutput?: string;
  priceModelInput?: string;
  priceModelOutput?: string;
  priceJudgeInput?: string;
  priceJudgeOutput?: string;
  priceCachedInput?: string;
  priceModelCachedInput?: string;
  priceJudgeCachedInput?: string;
}

export interface ScoreOpts extends ScoreSettingsOpts {
  format: string;
  by?: string;
}

export async function run(files: string[], opts: ScoreOpts): Promise<void> {
  const format = formatOption(opts.format, ['table', 'markdown', 'csv', 'json'] as const);
  if (opts.by !== undefined) choiceOption('by', opts.by, ['turn'] as const);
  const request = scoreRequest(files, opts, opts.by === 'turn');
  // Files of the judge modes get their own figures; rubric files and --repeat files (their grades are means) the leaderboard.
  const { report, figures: modes, warnings } = await scoreInputs(request);
  printWarnings(warnings);
  // CSV has no place for the notes the other formats carry ("not comparable", "incomplete"): they go to stderr, never lost.
  if (format === 'csv') for (const n of report?.notes ?? []) process.stderr.write(`awb: note: ${visibleLines(n)}\n`);
  process.stdout.write(await render(format, report, modes));
}

// Only the chosen renderer is loaded: every module kept alive while a large
// file streams through also raises the heap size V8 lets garbage reach.
async function render(
  format: 'table' | 'markdown' | 'csv' | 'json',
  report: ScoreReport | undefined,
  modes: ModeReport[],
): Promise<string> {
  const m = modes.length ? await import('../../render/modes.js') : undefined;
  switch (format) {
    case 'json':
      return (await import('../../render/json.js')).renderScoreJson(report, m?.modesJson(modes));
    case 'csv':
      return [report && (await import('../../render/csv.js')).renderScoreCsv(report), m?.modesCsv(modes)].filter(Boolean).join('\n');
    case 'markdown': {
      const { renderScoreMarkdown, renderView } = await import('../../render/markdown.js');
      return [report && renderScoreMarkdown(report), m && renderView(m.modesView(modes))].filter(Boolean).join('\n');
    }
    case 'table': {
      const [{ renderScoreTable, renderViewTable }, { terminalColorLevel }] = await Promise.all([
        import('../../render/table.js'),
        import('../../render/color.js'),
      ]);
      const level = terminalColorLevel();
      return [report && renderScoreTable(report, level), m && renderViewTable(m.modesView(modes), level)].filter(Boolean).join('\n');
    }
  }
}

/**
 * --price-input/--price-output price both stages; --price-model-* and
 * --price-judge-* price one stage each and win over them. Cached prompt
 * tokens cost the --price-*cached-input price when one is given (per stage
 * winning over both), else the input price. Unpriced: undefined.
 */
export function pricesOption(opts: ScoreSettingsOpts): Prices | undefined {
  const price = (name: string, value: string | undefined) => numberOption(name, value, 0, 1e6);
  const both = {
    input: price('price-input', opts.priceInput),
    output: price('price-output', opts.priceOutput),
    cachedInput: price('price-cached-input', opts.priceCachedInput),
  };
  const stage = (kind: 'model' | 'judge', input: string | undefined, output: string | undefined, cached: string | undefined) => ({
    input: price(`price-${kind}-input`, input) ?? both.input,
    output: price(`price-${kind}-output`, output) ?? both.output,
    cachedInput: price(`price-${kind}-cached-input`, cached) ?? both.cachedInput,
  });
  const infer = stage('model', opts.priceModelInput, opts.priceModelOutput, opts.priceModelCachedInput);
  const judge = stage('judge', opts.priceJudgeInput, opts.priceJudgeOutput, opts.priceJudgeCachedInput);
  if ([infer, judge].every((p) => Object.values(p).every((v) => v === undefined))) return undefined;
  const zero = (p: { input?: number; output?: number; cachedInput?: number }) => ({
    input: p.input ?? 0,
    output: p.output ?? 0,
    ...(p.cachedInput !== undefined ? { cachedInput: p.cachedInput } : {}),
  });
  return { infer: zero(infer), judge: zero(judge) };
}

/** What to score, from the shared options. */
export function scoreRequest(files: string[], opts: ScoreSettingsOpts, byTurn: boolean): ScoreRequest {
  return {
    files,
    failuresAsLowest: opts.failuresAsLowest === true,
    bootstrap: opts.ci === false ? undefined : bootstrapOptions(opts),
    withPublished: opts.withPublished === true,
    prices: pricesOption(opts),
    byTurn,
  };
}

/** --bootstrap and --seed, shared with compare. */
export function bootstrapOptions(opts: { bootstrap: string; seed: string }): BootstrapSettings {
  return {
    resamples: intOption('bootstrap', opts.bootstrap, 10, 1_000_000)!,
    seed: intOption('seed', opts.seed, 0, 2 ** 32 - 1)!,
  };
}

/** Warnings go to stderr so stdout stays parseable (json, csv). */
export function printWarnings(warnings: readonly string[]): void {
  for (const w of warnings) process.stderr.write(`awb: warning: ${visibleLines(w)}\n`);
}

import { scoreInputs, type ScoreReport } from '../../core/score/index.js';
import { scoreWithBias, type RunBias } from '../../core/bias/index.js';
import type { ModeReport } from '../../render/modes.js';
import type { ScoreRequest } from '../../core/score/index.js';
import { visible } from '../../core/shown.js';
import { printWarnings } from '../shared/notes.js';
import { NOTE_WORDS, noticed } from '../words/index.js';
import { PREFIX } from '../words/process.js';
import type { Parsed } from '../shared/option-table.js';
import { pricesOption, type ScoreSettings, type SCORE_OPTIONS } from './results-options.js';
import { terminal } from '../shared/terminal.js';

export async function run(files: string[], opts: Parsed<typeof SCORE_OPTIONS>): Promise<void> {
  const { format } = opts;
  const request = { ...scoreRequest(files, opts, opts.by === 'turn'), byJudge: opts.byJudge };
  // Files of the judge modes get their own figures; rubric files and --repeat files (their grades are means) the leaderboard.
  const { report, figures: modes, warnings, notices, bias } = opts.bias
    ? await scoreWithBias(request)
    : { ...(await scoreInputs(request)), bias: undefined };
  printWarnings([...warnings, ...notices]);
  // CSV has no place for the notes the other formats carry ("not comparable", "incomplete"): they go to stderr, never lost.
  if (format === 'csv') {
    const byJudge = report ? (await import('../../render/model.js')).byJudgeNotes(report, NOTE_WORDS.method) : [];
    for (const n of [...(report?.notes ?? []).map(noticed), ...byJudge]) terminal().stderr.write(`${PREFIX.note(visible(n))}\n`);
  }
  terminal().stdout.write(await render(format, report, modes, bias?.length ? bias : undefined));
}

// Only the chosen renderer is loaded: every module kept alive while a large
// file streams through also raises the heap size V8 lets garbage reach.
async function render(
  format: 'table' | 'markdown' | 'csv' | 'json',
  report: ScoreReport | undefined,
  modes: ModeReport[],
  bias: RunBias[] | undefined,
): Promise<string> {
  const m = modes.length ? await import('../../render/modes.js') : undefined;
  const b = bias && (await import('../../render/bias.js'));
  switch (format) {
    case 'json':
      return (await import('../../render/json.js')).renderScoreJson(report, NOTE_WORDS, m?.modesJson(modes), b?.biasJson(bias!));
    case 'csv':
      return [report && (await import('../../render/csv.js')).renderScoreCsv(report, NOTE_WORDS.standing), m?.modesCsv(modes), b?.biasCsv(bias!)]
        .filter(Boolean)
        .join('\n');
    case 'markdown': {
      const { renderScoreMarkdown, renderView } = await import('../../render/markdown.js');
      return [report && renderScoreMarkdown(report, NOTE_WORDS), m && renderView(m.modesView(modes, NOTE_WORDS)), b && renderView(b.biasView(bias!, NOTE_WORDS))]
        .filter(Boolean)
        .join('\n');
    }
    case 'table': {
      const { renderScoreTable, renderViewTable } = await import('../../render/table.js');
      const level = terminal().outLevel;
      const views = [m?.modesView(modes, NOTE_WORDS), b?.biasView(bias!, NOTE_WORDS)].flatMap((v) => (v ? [renderViewTable(v, level)] : []));
      return [report && renderScoreTable(report, NOTE_WORDS, level), ...views].filter(Boolean).join('\n');
    }
  }
}

/** What to score, from the shared options. */
export function scoreRequest(files: string[], opts: ScoreSettings, byTurn: boolean): ScoreRequest {
  return {
    files,
    failuresAsLowest: opts.failuresAsLowest,
    bootstrap: opts.ci ? { resamples: opts.bootstrap, seed: opts.seed } : undefined,
    withPublished: opts.withPublished,
    prices: pricesOption(opts),
    byTurn,
  };
}

/** Warnings go to stderr so stdout stays parseable (json, csv); one line each, so a label's newline cannot forge a log line. */

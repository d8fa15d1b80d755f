import { terminal } from '../shared/terminal.js';
import cliProgress from 'cli-progress';
import { DEFAULT_REVISION } from '../../core/dataset/index.js';
import type { DownloadProgress } from '../../core/download/index.js';
import { DATASET_REPO, domainLabel, PUBLISHED_ROW_COUNTS } from '../../core/domains.js';
import { countLines } from '../../core/rows/index.js';
import { visible } from '../../core/shown.js';
import type { Parsed } from '../shared/option-table.js';
import type { DOWNLOAD_OPTIONS } from './download-options.js';
import { downloadInterruptibly } from './data-source.js';
import { DOWNLOAD_LINES } from '../words/data/lines.js';
import { PREFIX } from '../words/process.js';

/** Without a terminal (CI logs, `2> file`), one line per file per this many ms is enough to show it is alive. */
const LINE_EVERY_MS = 10_000;

export async function run(opts: Parsed<typeof DOWNLOAD_OPTIONS>): Promise<void> {
  const { source, maxFileMb } = opts;
  const progress = terminal().stderr.isTTY ? barProgress() : lineProgress();
  let result;
  try {
    result = await downloadInterruptibly({
      source,
      repo: opts.repo,
      revision: opts.revision ?? DEFAULT_REVISION[source],
      dir: opts.dir,
      domains: opts.domains,
      onProgress: progress.update,
      timeoutSeconds: opts.timeout,
      maxFileBytes: maxFileMb === undefined ? undefined : maxFileMb * 1024 ** 2,
    });
  } finally {
    progress.stop();
  }
  if (result.offline) {
    terminal().stderr.write(`${DOWNLOAD_LINES.offline(result.offline)}\n`);
  }

  const rows = await Promise.all(result.files.map(async (f) => ({ ...f, rows: await countLines(f.path) })));
  const official = result.repo === DATASET_REPO;
  const out: string[] = [];
  const from = result.hub === 'modelscope' ? ' from ModelScope' : '';
  out.push(`${result.repo}${from} at ${result.revision} (commit ${visible(result.commit)})`);
  out.push(`folder: ${visible(result.dir)}`);
  const label = (domain: string) => visible(domainLabel(domain));
  const width = Math.max(6, ...rows.map((r) => label(r.domain).length));
  let differs = 0;
  for (const r of rows) {
    const published = (PUBLISHED_ROW_COUNTS as Record<string, number | undefined>)[r.domain];
    let note = '';
    if (official && published !== undefined && published !== r.rows) {
      differs++;
      note = terminal().outColor.yellow(`  published: ${published}`);
    }
    out.push(`  ${label(r.domain).padEnd(width)} ${String(r.rows).padStart(6)} rows ${formatBytes(r.bytes).padStart(9)}${note}`);
  }
  if (differs) {
    out.push(terminal().outColor.yellow(DOWNLOAD_LINES.differsFromPublished(differs)));
  }
  terminal().stdout.write(out.join('\n') + '\n');
}

interface Progress {
  update: (e: DownloadProgress) => void;
  stop: () => void;
}

function barProgress(): Progress {
  const multi = new cliProgress.MultiBar(
    {
      format: ' {file} [{bar}] {percentage}% {status}',
      barsize: 30,
      hideCursor: true,
      stream: terminal().stderr,
      autopadding: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgress.SingleBar>();
  return {
    update(e) {
      let bar = bars.get(e.file);
      const status = e.skipped ? `already here (${formatBytes(e.total)})` : `${formatBytes(e.bytes)}/${formatBytes(e.total)}`;
      const payload = { file: visible(e.file), status };
      if (!bar) {
        // A bar of zero total shows NaN%; an empty file is simply complete.
        bar = multi.create(Math.max(e.total, 1), e.total === 0 ? 1 : e.bytes, payload);
        bars.set(e.file, bar);
      }
      bar.update(e.done ? Math.max(e.total, 1) : e.bytes, payload);
      if (e.done) bar.stop();
    },
    stop() {
      multi.stop();
    },
  };
}

function lineProgress(): Progress {
  const last = new Map<string, number>();
  const t = terminal();
  const say = (line: string) => t.stderr.write(`${PREFIX.said(visible(line))}\n`);
  return {
    update(e) {
      if (e.skipped) return say(DOWNLOAD_LINES.alreadyHere(e.file, formatBytes(e.total)));
      if (e.done) return say(DOWNLOAD_LINES.fileDone(e.file, formatBytes(e.total)));
      const seen = last.get(e.file);
      const now = Date.now();
      if (seen === undefined) {
        last.set(e.file, now);
        return say(DOWNLOAD_LINES.downloading(e.file, formatBytes(e.total)));
      }
      if (now - seen >= LINE_EVERY_MS) {
        last.set(e.file, now);
        const pct = e.total ? Math.floor((e.bytes / e.total) * 100) : 100;
        say(DOWNLOAD_LINES.fileProgress(e.file, pct, formatBytes(e.bytes), formatBytes(e.total)));
      }
    },
    stop() {},
  };
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

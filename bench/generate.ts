/*
 * A full-size synthetic AgentWorldBench in the official layout, for the
 * benchmark. The real data cannot be fetched here, and its shape is what
 * matters for speed and memory: row counts per domain, ~400 MB in all,
 * trajectories whose later turns carry the whole history (so rows grow
 * turn by turn), a few rows of several MB, non-ASCII text and raw U+2028.
 *
 * Run alone: `node --import tsx bench/generate.ts [scale]`.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulberry32 } from '../src/core/score/bootstrap.js';

/** Bumped whenever the generated content changes, so a stale cache is rebuilt. */
const GENERATOR_VERSION = 4;
const SEED = 20260624;
const FULL_BYTES = 400e6;

export const BENCH_ROW_COUNTS = { mcp: 286, search: 458, terminal: 354, swe: 472, android: 200, web: 200, os: 200 } as const;
type Domain = keyof typeof BENCH_ROW_COUNTS;

type Style = 'json' | 'search' | 'terminal' | 'code' | 'xml' | 'html';

interface Profile {
  style: Style;
  systemChars: number;
  actionChars: number;
  /** Median observation size before the global calibration factor. */
  observationChars: number;
  minTurns: number;
  maxTurns: number;
}

const PROFILES: Record<Domain, Profile> = {
  mcp: { style: 'json', systemChars: 12_000, actionChars: 400, observationChars: 3_000, minTurns: 2, maxTurns: 8 },
  search: { style: 'search', systemChars: 3_000, actionChars: 150, observationChars: 8_000, minTurns: 3, maxTurns: 10 },
  terminal: { style: 'terminal', systemChars: 2_000, actionChars: 200, observationChars: 2_000, minTurns: 3, maxTurns: 12 },
  swe: { style: 'code', systemChars: 4_000, actionChars: 600, observationChars: 6_000, minTurns: 4, maxTurns: 12 },
  android: { style: 'xml', systemChars: 3_000, actionChars: 100, observationChars: 10_000, minTurns: 3, maxTurns: 10 },
  web: { style: 'html', systemChars: 3_000, actionChars: 120, observationChars: 25_000, minTurns: 3, maxTurns: 10 },
  os: { style: 'terminal', systemChars: 2_000, actionChars: 200, observationChars: 2_500, minTurns: 3, maxTurns: 10 },
};

/**
 * Trajectories with huge observations (a full page dump, a long build log):
 * their later rows are the 3-8 MB lines that stress line reading and memory.
 * Sizes are fixed, not calibrated, and kept at every scale.
 */
const GIANTS: { domain: Domain; observationChars: number; turns: number }[] = [
  { domain: 'swe', observationChars: 2_350_000, turns: 3 },
  { domain: 'web', observationChars: 1_700_000, turns: 2 },
  { domain: 'android', observationChars: 1_600_000, turns: 2 },
];

/** Per-observation cap for ordinary trajectories, so only the giants reach several MB. */
const MAX_OBSERVATION_CHARS = 300_000;

export interface DatasetInfo {
  version: number;
  scale: number;
  seed: number;
  dir: string;
  rows: number;
  bytes: number;
  largestRowBytes: number;
  rowsOver3MB: number;
  perDomain: Record<string, { rows: number; bytes: number }>;
}

class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  /** Log-normal around a median: real observation sizes have a long tail. */
  logNormal(median: number, sigma: number): number {
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return median * Math.exp(sigma * z);
  }
}

/** Pronounceable filler words; content does not matter, its byte mix does. */
function words(rng: Rng, n: number): string[] {
  const syl = [
    'ka',
    'lo',
    'mi',
    'ter',
    'an',
    'pro',
    'vel',
    'dis',
    'ex',
    'sto',
    'ri',
    'na',
    'qu',
    'op',
    'el',
    'tra',
    'con',
    'fig',
    'bu',
    'ser',
  ];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = '';
    for (let s = rng.int(1, 4); s > 0; s--) w += rng.pick(syl);
    out.push(w);
  }
  return out;
}

function cjk(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(0x4e00 + rng.int(0, 0x51a5));
  return s;
}

/** About `chars` characters of text in a domain's style, built once and sliced from. */
function buildCorpus(style: Style, rng: Rng, chars: number): string {
  const vocab = words(rng, 400);
  const sentence = (n: number) => Array.from({ length: n }, () => rng.pick(vocab)).join(' ');
  const parts: string[] = [];
  let len = 0;
  let id = 1;
  while (len < chars) {
    let p: string;
    switch (style) {
      case 'json':
        p = `{"type": "text", "id": ${id++}, "name": "${rng.pick(vocab)}", "value": "${sentence(rng.int(3, 12))}", "score": ${rng.float().toFixed(4)}, "tags": ["${rng.pick(vocab)}", "${rng.pick(vocab)}"]}\n`;
        break;
      case 'search':
        p = `[${id++}] ${sentence(rng.int(4, 10))} — https://www.${rng.pick(vocab)}.com/${rng.pick(vocab)}\n${rng.float() < 0.35 ? cjk(rng, rng.int(20, 80)) : sentence(rng.int(10, 30))}\n\n`;
        break;
      case 'terminal':
        p = `${rng.pick(['drwxr-xr-x', '-rw-r--r--', '-rwxr-xr-x'])} 1 root root ${rng.int(10, 99999)} Jun ${rng.int(1, 30)} 12:${rng.int(10, 59)} ${rng.pick(vocab)}.${rng.pick(['py', 'txt', 'log', 'c', 'json'])}\n${rng.float() < 0.2 ? `\t${sentence(rng.int(3, 9))}\n` : ''}`;
        break;
      case 'code':
        p = `${rng.int(1, 2000)}\t    def ${rng.pick(vocab)}_${rng.pick(vocab)}(self, ${rng.pick(vocab)}="${rng.pick(vocab)}"):\n${rng.int(1, 2000)}\t        return self.${rng.pick(vocab)}(${rng.pick(vocab)}) \\\n`;
        break;
      case 'xml':
        p = `<node index="${id++}" text="${rng.float() < 0.2 ? cjk(rng, rng.int(2, 8)) : rng.pick(vocab)}" resource-id="com.${rng.pick(vocab)}:id/${rng.pick(vocab)}" class="android.widget.${rng.pick(['TextView', 'Button', 'FrameLayout', 'ImageView'])}" bounds="[${rng.int(0, 1080)},${rng.int(0, 2400)}][${rng.int(0, 1080)},${rng.int(0, 2400)}]" clickable="${rng.float() < 0.5}"/>\n`;
        break;
      case 'html':
        // Pages carry raw U+2028 now and then, as the real data does.
        p = `<div id="${id++}" class="${rng.pick(vocab)}"><a href="/${rng.pick(vocab)}/${rng.pick(vocab)}">${sentence(rng.int(2, 8))}</a> <span>${sentence(rng.int(3, 15))}${rng.float() < 0.02 ? '\u2028' : ''}</span></div>\n`;
        break;
    }
    parts.push(p);
    len += p.length;
  }
  return parts.join('');
}

class TextSource {
  private readonly corpus: string;
  /** JSON-encoded bytes per source character, to predict file sizes before writing. */
  readonly bytesPerChar: number;
  constructor(style: Style, rng: Rng) {
    this.corpus = buildCorpus(style, rng, 256 * 1024);
    this.bytesPerChar = Buffer.byteLength(JSON.stringify(this.corpus)) / this.corpus.length;
  }
  text(rng: Rng, chars: number): string {
    const c = this.corpus;
    let off = rng.int(0, c.length - 1);
    const parts: string[] = [];
    let need = Math.max(1, Math.round(chars));
    while (need > 0) {
      const piece = c.slice(off, off + need);
      parts.push(piece);
      need -= piece.length;
      off = 0;
    }
    return parts.join('');
  }
}

interface TrajectoryPlan {
  turns: number;
  actions: number[];
  observations: number[];
  giant: boolean;
}

function planDomain(domain: Domain, rows: number, rng: Rng, giants: typeof GIANTS): TrajectoryPlan[] {
  const p = PROFILES[domain];
  const plans: TrajectoryPlan[] = [];
  let left = rows;
  for (const g of giants) {
    if (g.turns > left) continue;
    plans.push({
      turns: g.turns,
      actions: Array.from({ length: g.turns }, () => rng.logNormal(p.actionChars, 0.5)),
      observations: Array.from({ length: g.turns }, () => g.observationChars),
      giant: true,
    });
    left -= g.turns;
  }
  while (left > 0) {
    const turns = Math.min(left, rng.int(p.minTurns, p.maxTurns));
    plans.push({
      turns,
      actions: Array.from({ length: turns }, () => rng.logNormal(p.actionChars, 0.5)),
      observations: Array.from({ length: turns }, () => rng.logNormal(p.observationChars, 0.9)),
      giant: false,
    });
    left -= turns;
  }
  // Giants somewhere in the middle of the file, not first: the run is well under way when they come.
  const giantPlans = plans.filter((t) => t.giant);
  const rest = plans.filter((t) => !t.giant);
  rest.splice(Math.floor(rest.length / 2), 0, ...giantPlans);
  return rest;
}

/** Characters a trajectory puts into the file: row t holds turns 1..t, the current action again, and the system prompt. */
function trajectoryChars(t: TrajectoryPlan, systemChars: number, obsFactor: number): { fixed: number; scaled: number } {
  let fixed = 0;
  let scaled = 0;
  let histA = 0;
  let histO = 0;
  for (let i = 0; i < t.turns; i++) {
    histA += t.actions[i]!;
    const o = t.giant ? t.observations[i]! : Math.min(t.observations[i]! * obsFactor, MAX_OBSERVATION_CHARS);
    histO += o;
    fixed += systemChars + histA + t.actions[i]!;
    if (t.giant) fixed += histO;
    else scaled += histO;
  }
  return { fixed, scaled };
}

export function dataDirFor(root: string, scale: number): string {
  return scale === 1 ? join(root, 'data') : join(root, `data-scale-${scale}`);
}

/** The dataset for this scale, generated on first use and cached under `root`. */
export async function ensureDataset(root: string, scale: number, log: (s: string) => void = () => undefined): Promise<DatasetInfo> {
  const dir = dataDirFor(root, scale);
  const infoPath = join(dir, 'bench-data.json');
  try {
    const info = JSON.parse(await readFile(infoPath, 'utf8')) as DatasetInfo;
    if (info.version === GENERATOR_VERSION && info.scale === scale && info.seed === SEED) return { ...info, dir };
  } catch {
    // Not there or unreadable: generate.
  }
  log(`generating the synthetic dataset (scale ${scale}) in ${dir} ...`);
  const started = Date.now();
  const info = await generate(dir, scale);
  log(
    `  ${info.rows} rows, ${(info.bytes / 1e6).toFixed(0)} MB, largest row ${(info.largestRowBytes / 1e6).toFixed(1)} MB, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return info;
}

async function generate(dir: string, scale: number): Promise<DatasetInfo> {
  const rng = new Rng(SEED);
  const domains = Object.keys(BENCH_ROW_COUNTS) as Domain[];
  const sources = new Map<Style, TextSource>();
  for (const d of domains) {
    const style = PROFILES[d].style;
    if (!sources.has(style)) sources.set(style, new TextSource(style, rng));
  }
  const plans = new Map<Domain, TrajectoryPlan[]>();
  for (const d of domains) {
    const rows = Math.max(1, Math.round(BENCH_ROW_COUNTS[d] * scale));
    plans.set(
      d,
      planDomain(
        d,
        rows,
        rng,
        GIANTS.filter((g) => g.domain === d),
      ),
    );
  }

  // One factor on ordinary observation sizes brings the total to the target;
  // found by bisection because the per-observation cap makes it non-linear.
  // The giants are kept whole at every scale, so the target leaves them out:
  // a smaller run has fewer rows of the same sizes, not smaller rows.
  const rowBytes = (factor: number, giant: boolean) => {
    let bytes = 0;
    for (const d of domains) {
      const bpc = sources.get(PROFILES[d].style)!.bytesPerChar;
      for (const t of plans.get(d)!) {
        if (t.giant !== giant) continue;
        const c = trajectoryChars(t, PROFILES[d].systemChars, factor);
        bytes += (c.fixed + c.scaled) * bpc;
      }
    }
    return bytes;
  };
  const target = (FULL_BYTES - rowBytes(1, true)) * scale;
  const totalBytes = (factor: number) => rowBytes(factor, false);
  let lo = 0.01;
  let hi = 100;
  for (let i = 0; i < 60; i++) {
    const mid = Math.sqrt(lo * hi);
    if (totalBytes(mid) < target) lo = mid;
    else hi = mid;
  }
  const factor = lo;

  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const info: DatasetInfo = {
    version: GENERATOR_VERSION,
    scale,
    seed: SEED,
    dir,
    rows: 0,
    bytes: 0,
    largestRowBytes: 0,
    rowsOver3MB: 0,
    perDomain: {},
  };
  let nextId = 100_000;
  for (const d of domains) {
    const p = PROFILES[d];
    const src = sources.get(p.style)!;
    const system = JSON.stringify(`You simulate the ${d} environment for an AI agent. ${src.text(rng, p.systemChars)}`);
    const out = createWriteStream(join(tmp, `${d}_test.jsonl`), { highWaterMark: 1 << 20 });
    const stats = { rows: 0, bytes: 0 };
    const write = async (s: string) => {
      if (!out.write(s)) await once(out, 'drain');
    };
    for (const t of plans.get(d)!) {
      const id = nextId++;
      // Each turn is encoded once and reused by every later row of the trajectory.
      const actions: string[] = [];
      const observations: string[] = [];
      for (let i = 0; i < t.turns; i++) {
        const act = `### Turn ${i + 1}\n**Action:**\n\`\`\`\n${src.text(rng, t.actions[i]!)}\n\`\`\``;
        const obsChars = t.giant ? t.observations[i]! : Math.min(t.observations[i]! * factor, MAX_OBSERVATION_CHARS);
        actions.push(JSON.stringify(act));
        observations.push(JSON.stringify(src.text(rng, obsChars)));
      }
      for (let turn = 1; turn <= t.turns; turn++) {
        // Python's json.dumps spacing, as in the published files.
        const line =
          `{"task": "${d}", "id": ${id}, "prompt": [${actions.slice(0, turn).join(', ')}], "response": [${observations.slice(0, turn).join(', ')}], ` +
          `"current_prompt": ${actions[turn - 1]}, "system_str": ${system}, "turn_idx": ${turn}, "total_turns": ${t.turns}}\n`;
        const bytes = Buffer.byteLength(line);
        stats.rows++;
        stats.bytes += bytes;
        info.largestRowBytes = Math.max(info.largestRowBytes, bytes);
        if (bytes >= 3e6) info.rowsOver3MB++;
        await write(line);
      }
    }
    out.end();
    await once(out, 'finish');
    info.perDomain[d] = stats;
    info.rows += stats.rows;
    info.bytes += stats.bytes;
  }
  await writeFile(join(tmp, 'bench-data.json'), `${JSON.stringify(info, null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  return info;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const scale = Number(process.argv[2] ?? process.env.BENCH_SCALE ?? 1);
  const root = fileURLToPath(new URL('../.bench', import.meta.url));
  const info = await ensureDataset(root, scale, (s) => process.stderr.write(`${s}\n`));
  process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
}

/**
 * The same rows with each file's lines shuffled (seeded), so that a client
 * cannot lean on the generator's trajectory-and-turn order. Cached next to
 * the data set.
 */
export async function ensureShuffled(info: DatasetInfo, seed = 1, log: (s: string) => void = () => undefined): Promise<DatasetInfo> {
  const dir = `${info.dir}-shuffled-${seed}`;
  const infoPath = join(dir, 'bench-data.json');
  try {
    const old = JSON.parse(await readFile(infoPath, 'utf8')) as DatasetInfo;
    if (old.version === info.version && old.scale === info.scale && old.seed === info.seed) return { ...old, dir };
  } catch {
    // Not there or unreadable: make it.
  }
  log(`shuffling the rows of each file into ${dir} ...`);
  const tmp = `${dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  const next = mulberry32(seed);
  for (const d of Object.keys(info.perDomain)) {
    const name = `${d}_test.jsonl`;
    const buf = await readFile(join(info.dir, name));
    const lines: Buffer[] = [];
    for (let start = 0; start < buf.length;) {
      const end = buf.indexOf(10, start);
      const stop = end < 0 ? buf.length : end + 1;
      lines.push(buf.subarray(start, stop));
      start = stop;
    }
    for (let i = lines.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    }
    const out = createWriteStream(join(tmp, name), { highWaterMark: 1 << 20 });
    for (const l of lines) if (!out.write(l)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  }
  const shuffled = { ...info, dir };
  await writeFile(join(tmp, 'bench-data.json'), `${JSON.stringify(shuffled, null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
  return shuffled;
}

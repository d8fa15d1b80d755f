// The script of `awb report` pages. Plain browser JavaScript, inlined into the
// page and allowed by the page's Content-Security-Policy by its hash.
// Everything from the data reaches the screen through text nodes
// (textContent, createTextNode) and attributes set one by one: nothing is ever
// parsed as markup, so a prediction holding script tags or event handlers stays text.
'use strict';
(function () {
  performance.mark('awb-start');
  const DATA = JSON.parse(document.getElementById('awb-data').textContent);
  const SVG = 'http://www.w3.org/2000/svg';
  const PAGE = 50; // rows listed at once; "show more" adds as many again
  const COLORS = ['#3366cc', '#dc3912', '#ff9900', '#109618', '#990099', '#0099c6', '#dd4477', '#66aa00'];
  const domainLabel = Object.fromEntries(DATA.domains.map((d) => [d.id, d.label]));
  const labelOf = (d) => domainLabel[d] || d;
  // The page's words come with its data (awb's words/): `{name}` filled in from `vars`, a pair [one, many] picked by `vars.n`.
  const W = DATA.words;
  const say = (key, vars) => {
    const t = W[key];
    return (Array.isArray(t) ? t[vars.n === 1 ? 0 : 1] : t).replace(/\{(\w+)\}/g, (_, k) => String(vars[k]));
  };

  /** An element with attributes and children; strings become text nodes. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
    for (const c of children.flat()) if (c !== undefined && c !== null) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
    return node;
  }
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    for (const c of children.flat()) if (c !== undefined && c !== null) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
    return node;
  }

  const app = document.getElementById('app');

  // ---- header ----
  app.append(
    el(
      'header',
      {},
      el('h1', {}, W.title),
      el('p', { class: 'meta' }, say('made', { n: DATA.runs.length, tool: DATA.tool, generated: DATA.generated })),
      el(
        'ul',
        { class: 'files' },
        DATA.runs.map((r) => el('li', {}, el('b', {}, r.label), ' ', el('code', {}, r.file), r.mode === 'rubric' ? '' : ` (${r.mode})`)),
      ),
      el(
        'nav',
        {},
        el('a', { href: '#leaderboard' }, W.leaderboard),
        DATA.agreement ? el('a', { href: '#agreement' }, W.agreement) : null,
        DATA.modes ? el('a', { href: '#modes' }, W.modes) : null,
        DATA.drift ? el('a', { href: '#drift' }, W.drift) : null,
        DATA.charts.runs.length ? el('a', { href: '#charts' }, W.charts) : null,
        DATA.compare ? el('a', { href: '#compare' }, W.comparison) : null,
        el('a', { href: '#rows' }, W.rows),
      ),
    ),
  );

  /** The grids `awb score` prints, cell for cell; `attr` names each table by its index. */
  function drawGrids(section, grids, attr) {
    grids.forEach((grid, gi) => {
      const table = el('table', { class: 'grid', [attr]: gi });
      // Element Timing names the first grid's paint, for measuring when the figures are on screen.
      table.append(el('caption', { elementtiming: gi === 0 ? attr : undefined }, grid.title));
      table.append(
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            grid.columns.map((c) => el('th', { class: c.align }, c.title)),
          ),
        ),
      );
      const body = el('tbody');
      for (const row of grid.rows) {
        const tr = el('tr', { class: row.muted ? 'muted' : undefined });
        grid.columns.forEach((c, i) => {
          const cell = row.cells[i] || { text: '' };
          const td = el('td', { class: c.align, 'data-col': c.title });
          td.append(cell.best ? el('strong', { class: 'best' }, cell.text) : el('span', { class: 'v' }, cell.text));
          if (cell.extra) td.append(' ', el('span', { class: 'extra' }, cell.extra));
          if (cell.sub) td.append(el('span', { class: 'sub' }, cell.sub));
          tr.append(td);
        });
        body.append(tr);
      }
      table.append(body);
      section.append(el('div', { class: 'scroll' }, table));
    });
  }
  const notesList = (notes) =>
    el(
      'ul',
      { class: 'notes' },
      notes.map((n) => el('li', {}, n)),
    );

  // ---- leaderboard: the rubric files (and --repeat files, whose grades are means) ----
  const board = el('section', { id: 'leaderboard' }, el('h2', {}, W.leaderboard));
  for (const w of DATA.warnings) board.append(el('p', { class: 'warning' }, say('warning', { text: w })));
  if (DATA.view) {
    drawGrids(board, DATA.view.grids, 'data-grid');
    board.append(notesList(DATA.view.marksBest ? [...DATA.view.footnotes, W.best] : DATA.view.footnotes));
  } else board.append(el('p', { class: 'meta' }, W.noGraded));
  app.append(board);

  // ---- judge agreement: the members of each panel compared as `awb agreement` compares judges ----
  if (DATA.agreement) {
    const agreement = el('section', { id: 'agreement' }, el('h2', {}, W.agreement));
    for (const panel of DATA.agreement) {
      agreement.append(el('h3', {}, say('panel', { label: panel.label, judges: panel.judges.join(', ') })));
      drawGrids(agreement, panel.grids, 'data-agreement-grid');
      agreement.append(notesList(panel.footnotes));
    }
    app.append(agreement);
  }

  // ---- charts: hand-written SVG ----
  const charts = el('section', { id: 'charts' }, el('h2', {}, W.charts));
  app.append(charts);
  const C = DATA.charts;
  const multi = C.runs.length > 1;
  const domainsOf = () => DATA.domains.map((d) => d.id).filter((d) => C.runs.some((r) => r.domains.some((x) => x.domain === d)));
  const find = (run, d) => run.domains.find((x) => x.domain === d);

  function legend(items) {
    return el(
      'div',
      { class: 'legend' },
      items.map((it, i) => el('span', {}, el('i', { class: `sw c${i % COLORS.length}` }), it)),
    );
  }

  // Every chart: a 760 x 260 frame, a y axis from 0 to max with four grid steps, labels under the plot.
  const WIDTH = 760;
  const H = 260;
  const LEFT = 44;
  const TOP = 12;
  const BOTTOM = 40;
  const PLOT_H = H - TOP - BOTTOM;

  function frame(title, max) {
    const y = (v) => TOP + PLOT_H - (Math.max(0, Math.min(max, v)) / max) * PLOT_H;
    const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${H}`, class: 'chart', role: 'img', 'aria-label': title });
    for (let t = 0; t <= 4; t++) {
      const v = (max * t) / 4;
      root.append(svg('line', { x1: LEFT, x2: WIDTH - 10, y1: y(v), y2: y(v), class: 'gridline' }));
      root.append(svg('text', { x: LEFT - 6, y: y(v) + 4, class: 'axis', 'text-anchor': 'end' }, String(Math.round(v))));
    }
    const xLabel = (x, text) => root.append(svg('text', { x, y: H - BOTTOM + 16, class: 'axis', 'text-anchor': 'middle' }, text));
    return { root, y, xLabel };
  }

  /**
   * Grouped bars: one group per category, one bar per series. values[s][c] is
   * a number or null; whiskers[s][c] an optional [lo, hi].
   */
  function barChart({ title, categories, series, values, whiskers, max, unit, labels }) {
    const { root, y, xLabel } = frame(title, max);
    const plotW = WIDTH - LEFT - 10;
    const groupW = plotW / categories.length;
    const barW = Math.min(36, (groupW * 0.8) / series.length);
    categories.forEach((cat, ci) => {
      const x0 = LEFT + ci * groupW + (groupW - barW * series.length) / 2;
      series.forEach((s, si) => {
        const v = values[si][ci];
        if (v === null || v === undefined || Number.isNaN(v)) return;
        const x = x0 + si * barW;
        const bar = svg('rect', { x: x + 1, y: y(v), width: barW - 2, height: y(0) - y(v), class: `bar c${si % COLORS.length}` });
        bar.append(svg('title', {}, `${s} · ${cat}: ${labels ? labels[si][ci] : v.toFixed(2)}${unit || ''}`));
        root.append(bar);
        const w = whiskers && whiskers[si][ci];
        if (w) {
          const cx = x + barW / 2;
          root.append(svg('line', { x1: cx, x2: cx, y1: y(w[1]), y2: y(w[0]), class: 'whisker' }));
          root.append(svg('line', { x1: cx - 4, x2: cx + 4, y1: y(w[1]), y2: y(w[1]), class: 'whisker' }));
          root.append(svg('line', { x1: cx - 4, x2: cx + 4, y1: y(w[0]), y2: y(w[0]), class: 'whisker' }));
        }
      });
      xLabel(LEFT + ci * groupW + groupW / 2, cat);
    });
    return el('figure', { class: 'figure' }, el('figcaption', {}, title), root, legend(series));
  }

  /** One line per series over ordered categories; values[s][c] is a number or null (a gap). */
  function lineChart({ title, categories, series, values, max, xName = W.turnAxis }) {
    const { root, y, xLabel } = frame(title, max);
    const plotW = WIDTH - LEFT - 30;
    const x = (i) => LEFT + 10 + (categories.length === 1 ? plotW / 2 : (i * plotW) / (categories.length - 1));
    categories.forEach((c, i) => xLabel(x(i), c));
    series.forEach((s, si) => {
      let d = '';
      let pen = false;
      values[si].forEach((v, i) => {
        if (v === null || v === undefined) {
          pen = false;
          return;
        }
        d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
        pen = true;
        const dot = svg('circle', { cx: x(i), cy: y(v), r: 3, class: `dot c${si % COLORS.length}` });
        dot.append(svg('title', {}, `${s} · ${xName} ${categories[i]}: ${v.toFixed(2)}`));
        root.append(dot);
      });
      if (d) root.prepend(svg('path', { d, class: `line c${si % COLORS.length}` }));
    });
    return el('figure', { class: 'figure' }, el('figcaption', {}, title), root, legend(series));
  }

  // ---- judge modes: the grids and figures `awb score` gives for turing, pairwise and --repeat files ----
  if (DATA.modes) {
    const modes = el('section', { id: 'modes' }, el('h2', {}, W.modes));
    charts.before(modes);
    drawGrids(modes, DATA.modes.grids, 'data-mode-grid');
    modes.append(notesList(DATA.modes.footnotes));
    for (const f of DATA.modes.figures) {
      const names = Object.keys(f.overall);
      // Overall last, under no domain's id.
      const at = [...Object.entries(f.domains), ['', f.overall]];
      const values = names.map((n) => at.map(([, figs]) => figs[n].value));
      const top = Math.max(
        0,
        ...values.flat().filter((v) => v !== null),
        ...at.flatMap(([, figs]) => names.map((n) => (figs[n].ci95 || [0, 0])[1])),
      );
      modes.append(
        barChart({
          title: say('modesChart', { file: f.file, mode: f.mode }),
          categories: at.map(([d]) => (d === '' ? W.overall : labelOf(d))),
          series: names.map((n) => DATA.modes.names[n] || n),
          values,
          whiskers: names.map((n) => at.map(([, figs]) => figs[n].ci95 || null)),
          max: f.mode === 'repeat' ? Math.max(4, Math.ceil(top / 4) * 4) : 100,
        }),
      );
    }
  }

  // ---- drift: a teacher-forced run and free-running ones (awb drift's figures) ----
  if (DATA.drift) {
    const D = DATA.drift;
    const drift = el('section', { id: 'drift' }, el('h2', {}, W.driftHeading));
    charts.before(drift);
    drift.append(
      el(
        'p',
        { class: 'meta' },
        say('driftRuns', { runs: D.runs.map((r, i) => say('driftRun', { horizon: D.horizons[i], label: r })).join('; '), rows: D.rows }),
      ),
      lineChart({
        title: W.driftChart,
        categories: D.hs.map((h) => say('horizonTick', { h })),
        series: D.curves.map((c) => c.label),
        values: D.curves.map((c) => c.points.map((p) => p.s)),
        max: 100,
        xName: W.horizonAxis,
      }),
      el(
        'table',
        { class: 'grid drift' },
        el(
          'tr',
          {},
          el('th', {}, W.driftDrop),
          D.horizons.slice(1).map((h) => el('th', {}, h)),
          el('th', {}, W.driftFirst),
        ),
        D.curves.map((c) =>
          el(
            'tr',
            {},
            el('td', {}, c.label),
            c.points
              .slice(1)
              .map((p) =>
                el('td', { class: p.sig ? 'bad' : '' }, p.dci ? `${p.dt} [${p.dci[0].toFixed(2)}, ${p.dci[1].toFixed(2)}]` : p.dt),
              ),
            el('td', {}, c.first),
          ),
        ),
      ),
      el('p', { class: 'meta' }, W.driftNote),
    );
  }

  // Only judge-mode files: no graded run to chart.
  if (C.runs.length === 0) charts.remove();
  else drawRunCharts();

  /** The graded runs' charts: score, dimensions, turn depth and failures per domain. */
  function drawRunCharts() {
    const doms = domainsOf();
    const domLabels = doms.map(labelOf);
    charts.append(
      barChart({
        title: W.chartScore,
        categories: domLabels,
        series: C.runs.map((r) => r.label),
        values: C.runs.map((r) => doms.map((d) => (find(r, d) ? find(r, d).score : null))),
        labels: C.runs.map((r) => doms.map((d) => (find(r, d) ? find(r, d).text : W.na))),
        whiskers: C.runs.map((r) => doms.map((d) => (find(r, d) ? find(r, d).ci : null))),
        max: 100,
      }),
    );
    for (const run of C.runs) {
      charts.append(
        barChart({
          title: multi ? say('chartOfRun', { title: W.chartDimensions, run: run.label }) : W.chartDimensions,
          categories: domLabels,
          series: C.dimensions,
          values: C.dimensions.map((_, di) => doms.map((d) => (find(run, d) ? find(run, d).dims[di] : null))),
          max: 100,
        }),
      );
    }
    for (const run of C.runs) {
      const buckets = C.buckets.filter((b) => run.domains.some((d) => d.turns.some((t) => t.bucket === b)));
      const present = doms.filter((d) => find(run, d));
      charts.append(
        lineChart({
          title: multi ? say('chartOfRun', { title: W.chartTurns, run: run.label }) : W.chartTurns,
          categories: buckets,
          series: present.map(labelOf),
          values: present.map((d) =>
            buckets.map((b) => {
              const t = find(run, d).turns.find((x) => x.bucket === b);
              return t ? t.score : null;
            }),
          ),
          max: 100,
        }),
      );
    }
    const failedMax = Math.max(1, ...C.runs.flatMap((r) => r.domains.map((d) => d.failed)));
    charts.append(
      barChart({
        title: W.chartFailed,
        categories: domLabels,
        series: C.runs.map((r) => r.label),
        values: C.runs.map((r) => doms.map((d) => (find(r, d) ? find(r, d).failed : null))),
        labels: C.runs.map((r) =>
          doms.map((d) => (find(r, d) ? say('failedOf', { failed: find(r, d).failed, rows: find(r, d).rows }) : W.na)),
        ),
        max: Math.max(4, Math.ceil(failedMax / 4) * 4),
      }),
    );
  }

  performance.mark('awb-leaderboard');
  // ---- rows: their data comes after this script in the page, so they are drawn once it is read ----
  // After the leaderboard has been painted: unpacking the rows of the full data keeps the page busy for a moment.
  const afterPaint = () => requestAnimationFrame(() => setTimeout(loadRows, 0));
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', afterPaint);
  else afterPaint();

  // Bytes handed to the decompressor at a time, each in a task of its own so that the page keeps painting and answering.
  const INFLATE_CHUNK = 1 << 18;

  /** The rows come gzipped in base64, in several blocks (see packedJson in report.ts). */
  async function loadRows() {
    performance.mark('awb-rows-start');
    const base64 = Array.from(document.querySelectorAll('script.awb-rows'), (s) => s.textContent.trim()).join('');
    let bytes;
    if (Uint8Array.fromBase64) bytes = Uint8Array.fromBase64(base64);
    else {
      const packed = atob(base64);
      bytes = new Uint8Array(packed.length);
      for (let i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
    }
    let at = 0;
    const text = await new Response(
      new ReadableStream({
        // A stream of the bytes in hand (a Blob would travel to the browser process and back).
        async pull(c) {
          if (at >= bytes.length) return c.close();
          c.enqueue(bytes.subarray(at, (at += INFLATE_CHUNK)));
          await new Promise((resolve) => setTimeout(resolve, 0));
        },
      }).pipeThrough(new DecompressionStream('gzip')),
    ).text();
    performance.mark('awb-rows-unpacked');
    DATA.rows = JSON.parse(text);
    performance.mark('awb-rows-read');
    drawRows();
  }

  // ---- line diff of the ground truth and the prediction ----
  // Above this many cells of the LCS table (lines x lines, after the common
  // head and tail are set aside) the texts are only shown side by side.
  const DIFF_CELLS = 4000000;

  /**
   * A line diff from `a` to `b` by longest common subsequence: a list of
   * [op, line] with op ' ' (in both), '-' (only in a), '+' (only in b); null
   * when the table would pass DIFF_CELLS.
   */
  function lineDiff(a, b) {
    let head = 0;
    while (head < a.length && head < b.length && a[head] === b[head]) head++;
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
    const A = a.slice(head, a.length - tail);
    const B = b.slice(head, b.length - tail);
    const n = A.length;
    const m = B.length;
    const w = m + 1;
    if ((n + 1) * w > DIFF_CELLS) return null;
    // L[i*w + j]: length of the LCS of A[i..] and B[j..]. Texts are cut to a few thousand characters, so lengths fit 16 bits.
    const L = new Uint16Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        L[i * w + j] = A[i] === B[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    const out = a.slice(0, head).map((line) => [' ', line]);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && A[i] === B[j]) {
        out.push([' ', A[i++]]);
        j++;
      } else if (j >= m || (i < n && L[(i + 1) * w + j] >= L[i * w + j + 1])) out.push(['-', A[i++]]);
      else out.push(['+', B[j++]]);
    }
    for (const line of a.slice(a.length - tail)) out.push([' ', line]);
    return out;
  }

  const textOf = (kept) => (Array.isArray(kept) ? kept[0] : kept);
  const lines = (text) => text.split(/\r?\n/);

  /** The ground truth against the prediction, line by line; past the cap, a note instead. */
  function diffBlock(r) {
    const truth = textOf(r.gt);
    const prediction = textOf(r.p);
    const box = el('div', { class: 'text diff-box' }, el('h4', {}, W.diffTitle));
    if (truth === prediction) {
      box.append(el('p', { class: 'meta diff-note' }, W.diffSame));
      return box;
    }
    const a = lines(truth);
    const b = lines(prediction);
    const ops = lineDiff(a, b);
    if (!ops) {
      box.append(
        el('p', { class: 'meta diff-note' }, say('diffTooBig', { a: a.length, b: b.length, cells: DIFF_CELLS.toLocaleString('en') })),
      );
      return box;
    }
    const cls = { ' ': 'same', '-': 'del', '+': 'add' };
    const pre = el('pre', { class: 'diff' });
    for (const [op, line] of ops) pre.append(el('span', { class: cls[op] }, `${op} ${line}`));
    if (Array.isArray(r.gt) || Array.isArray(r.p)) box.append(el('p', { class: 'meta diff-note' }, W.diffCut));
    box.append(pre);
    return box;
  }

  function drawRows() {
    const rowsSection = el('section', { id: 'rows' }, el('h2', {}, W.rows));
    app.append(rowsSection);
    const cutNote = DATA.cutTexts > 0 ? say('cutSome', { limit: DATA.limit, cut: DATA.cutTexts }) : say('cutNone', { limit: DATA.limit });
    rowsSection.append(el('p', { class: 'meta' }, cutNote));

    const option = (value, text) => el('option', { value }, text);
    const fDomain = el(
      'select',
      { id: 'f-domain' },
      option('', W.allDomains),
      DATA.domains.map((d) => option(d.id, d.label)),
    );
    const fRun = el(
      'select',
      { id: 'f-run' },
      option('', W.allRuns),
      DATA.runs.map((r, i) => option(String(i), r.label)),
    );
    const fMin = el('input', { id: 'f-min', type: 'number', min: 0, max: 100, step: 'any', placeholder: '0' });
    const fMax = el('input', { id: 'f-max', type: 'number', min: 0, max: 100, step: 'any', placeholder: '100' });
    const fFailed = el('select', { id: 'f-failed' }, option('', W.failedOrNot), option('1', W.failedOnly), option('0', W.notFailed));
    const fSort = el('select', { id: 'f-sort' }, option('file', W.fileOrder), option('asc', W.lowestFirst), option('desc', W.highestFirst));
    const count = el('span', { id: 'f-count', class: 'meta' });
    rowsSection.append(
      el(
        'div',
        { class: 'filters' },
        el('label', {}, `${W.filterDomain} `, fDomain),
        el('label', {}, `${W.filterRun} `, fRun),
        el('label', {}, `${W.filterFrom} `, fMin),
        el('label', {}, `${W.filterTo} `, fMax),
        el('label', {}, `${W.filterFailed} `, fFailed),
        el('label', {}, `${W.filterSort} `, fSort),
        count,
      ),
    );
    const listBody = el('tbody', { id: 'row-list' });
    const more = el('button', { id: 'f-more', type: 'button' }, W.showMore);
    rowsSection.append(
      el(
        'div',
        { class: 'scroll list' },
        el(
          'table',
          { class: 'rows' },
          el(
            'thead',
            {},
            el(
              'tr',
              {},
              [W.headRow, W.headRun, W.headScore, ...C.dimensions.map((d) => d.slice(0, 4)), W.headFailed].map((t) => el('th', {}, t)),
            ),
          ),
          listBody,
        ),
      ),
      more,
    );
    const detail = el('section', { id: 'detail' });
    app.append(detail);

    const refLink = (ref) =>
      '#row=' +
      ref
        .split('/')
        .map((p) => encodeURIComponent(p))
        .join('/');
    /** The row name `#row=` in the address bar holds, or null (no such link, or a bad one). */
    function hashRef() {
      const m = /^#row=(.+)$/.exec(location.hash);
      if (!m) return undefined;
      const parts = m[1].split('/');
      try {
        return parts.length >= 3
          ? [parts[0], parts.slice(1, -1).join('/'), parts[parts.length - 1]].map(decodeURIComponent).join('/')
          : null;
      } catch {
        return null;
      }
    }
    let shown = PAGE;
    let matching = [];

    function applyFilters() {
      const domain = fDomain.value;
      const run = fRun.value === '' ? -1 : Number(fRun.value);
      const lo = fMin.value === '' ? -Infinity : Number(fMin.value);
      const hi = fMax.value === '' ? Infinity : Number(fMax.value);
      const failed = fFailed.value;
      const bounded = fMin.value !== '' || fMax.value !== '';
      matching = DATA.rows.filter(
        (r) =>
          (domain === '' || r.d === domain) &&
          (run === -1 || r.run === run) &&
          (failed === '' || String(r.f) === failed) &&
          (!bounded || (r.s !== null && r.s >= lo && r.s <= hi)),
      );
      // Rows without a score sort last either way.
      if (fSort.value !== 'file') {
        const sign = fSort.value === 'asc' ? 1 : -1;
        matching.sort((a, b) => (a.s === null) - (b.s === null) || sign * ((a.s ?? 0) - (b.s ?? 0)));
      }
      shown = PAGE;
      drawList();
    }

    function drawList() {
      listBody.replaceChildren(
        ...matching.slice(0, shown).map((r) =>
          el(
            'tr',
            { class: [r.f ? 'failed' : '', r.ref === hashRef() ? 'current' : ''].join(' ').trim() || undefined },
            el('td', {}, el('a', { href: refLink(r.ref) }, r.ref)),
            el('td', {}, DATA.runs[r.run].label),
            el('td', { class: 'right' }, r.st),
            r.g.map((g) => el('td', { class: 'right' }, g ? String(+g.toFixed(2)) : '–')),
            el('td', {}, r.f ? W.failed : ''),
          ),
        ),
      );
      count.textContent =
        say('rowsCount', { shown: matching.length, all: DATA.rows.length }) +
        (matching.length > shown ? say('firstListed', { n: shown }) : '');
      more.hidden = matching.length <= shown;
    }

    for (const f of [fDomain, fRun, fFailed, fSort]) f.addEventListener('change', applyFilters);
    for (const f of [fMin, fMax]) f.addEventListener('input', applyFilters);
    more.addEventListener('click', () => {
      shown += PAGE;
      drawList();
    });

    /** A text block; a cut text says so, with the length it had. */
    function textBlock(title, kept, cls) {
      const cut = Array.isArray(kept);
      const text = textOf(kept);
      const box = el('div', { class: `text ${cls || ''}` }, el('h4', {}, title));
      box.append(el('pre', {}, text === '' ? W.empty : text));
      if (cut) box.append(el('p', { class: 'cut' }, say('cutMark', { kept: text.length, all: kept[1] })));
      return box;
    }

    function gradesTable(r) {
      return el(
        'table',
        { class: 'grades' },
        el(
          'tr',
          {},
          [...C.dimensions, W.total, W.score].map((d) => el('th', {}, d)),
        ),
        el(
          'tr',
          {},
          r.g.map((g) => el('td', {}, g ? String(+g.toFixed(3)) : W.noScore)),
          el('td', {}, r.tot ? String(+r.tot.toFixed(3)) : W.noScore),
          el('td', {}, r.st),
        ),
      );
    }

    /** The orders of a turing or pairwise row (a panel's: each member's two): where the subject was, what the judge chose, what that counts as. */
    function choicesTable(c) {
      const turing = c.m === 'turing';
      const panel = c.o.some((o) => o.j !== undefined);
      const verdict = (o) => (o.h === null ? W.noChoice : turing ? (o.h ? W.fooled : W.spotted) : o.h ? W.candidate : W.reference);
      const heads = [W.order, turing ? W.realAt : W.predictionAt, W.judgeChose, turing ? W.verdict : W.preferred];
      return el(
        'table',
        { class: 'grades choices' },
        el(
          'tr',
          {},
          (panel ? [W.judge, ...heads] : heads).map((t) => el('th', {}, t)),
        ),
        c.o.map((o, i) =>
          el(
            'tr',
            {},
            panel ? el('td', {}, o.j) : null,
            el('td', {}, String(panel ? (i % 2) + 1 : i + 1)),
            el('td', {}, o.at),
            el('td', {}, o.ch || '–'),
            el('td', {}, verdict(o)),
          ),
        ),
      );
    }

    /** A free-running row's history as the model saw it: each generated observation beside the real one of its turn. */
    function rolloutBlock(ro, all) {
      const first = ro[0][0];
      const last = ro[ro.length - 1][0];
      const turns = say('rolloutTurns', { n: first === last ? 1 : 2, first, last });
      const of = all > ro.length ? say('rolloutLast', { shown: ro.length, n: all }) : '';
      return el(
        'details',
        { class: 'rollout', open: '' },
        el('summary', {}, say('rollout', { turns, last: of })),
        ro.map(([turn, generated, real]) =>
          el(
            'div',
            { class: 'pair' },
            textBlock(say('turnGenerated', { turn }), generated, 'prediction'),
            textBlock(say('turnReal', { turn }), real, 'truth'),
          ),
        ),
      );
    }

    function rowDetail(r) {
      const list = (title, items, cls) =>
        el(
          'div',
          { class: `text ${cls}` },
          el('h4', {}, title),
          items.length
            ? el(
                'ul',
                {},
                items.map((k) => el('li', {}, Array.isArray(k) ? say('listCut', { text: k[0], kept: k[0].length, all: k[1] }) : k)),
              )
            : el('p', { class: 'meta' }, W.none),
        );
      const c = r.c;
      const run = DATA.runs[r.run];
      const replies = c
        ? c.o.map((o, i) =>
            el(
              'details',
              {},
              el(
                'summary',
                {},
                o.j === undefined ? say('replyOrder', { order: i + 1 }) : say('replyMemberOrder', { judge: o.j, order: (i % 2) + 1 }),
              ),
              o.e && o.e !== '' ? textBlock(W.error, o.e, 'error') : null,
              textBlock('', o.raw, 'judge'),
            ),
          )
        : r.rp
          ? [
              el(
                'table',
                { class: 'grades repeats' },
                el(
                  'tr',
                  {},
                  el('th', {}, W.repeat),
                  r.rp.map((_, i) => el('th', {}, String(i + 1))),
                ),
                el(
                  'tr',
                  {},
                  el('td', {}, W.total),
                  r.rp.map((x) => el('td', {}, x.f ? W.failed : String(+x.t.toFixed(3)))),
                ),
              ),
              ...r.rp.map((x, i) => el('details', {}, el('summary', {}, say('replyRepeat', { n: i + 1 })), textBlock('', x.raw, 'judge'))),
            ]
          : [el('details', {}, el('summary', {}, W.replyRaw), textBlock('', r.j, 'judge'))];
      return el(
        'article',
        { class: `row${r.f ? ' failed' : ''}`, 'data-ref': r.ref, 'data-key': r.key || undefined },
        el('h3', {}, el('a', { href: refLink(r.ref), class: 'ref' }, r.ref), ` · ${run.label}${r.f ? W.rowFailed : ''}`),
        el('p', { class: 'meta' }, say('rowAt', { file: run.file, line: r.line }) + (r.key ? say('rowKey', { key: r.key }) : '')),
        c ? choicesTable(c) : gradesTable(r),
        r.e && r.e !== '' ? textBlock(W.error, r.e, 'error') : null,
        textBlock(W.action, r.a, 'action'),
        el(
          'div',
          { class: 'pair' },
          textBlock(c && c.m === 'pairwise' ? W.predictionCandidate : W.prediction, r.p, 'prediction'),
          c && c.m === 'pairwise' ? textBlock(W.referencePrediction, c.ref, 'reference') : null,
          textBlock(W.groundTruth, r.gt, 'truth'),
        ),
        diffBlock(r),
        r.ro ? rolloutBlock(r.ro, r.roN) : null,
        c ? null : el('div', { class: 'pair' }, list(W.strengths, r.sw, 'strengths'), list(W.weaknesses, r.wk, 'weaknesses')),
        replies,
      );
    }

    /** `#row=domain/id/turn`: every row holding that name, in every run, opened below the list and scrolled to. */
    function showHash() {
      const ref = hashRef();
      drawList();
      if (ref === undefined) {
        detail.replaceChildren();
        return;
      }
      const found = ref === null ? [] : DATA.rows.filter((r) => r.ref === ref);
      detail.replaceChildren(
        el('h2', {}, say('rowHeading', { ref: ref === null ? W.badLink : ref })),
        found.length
          ? el('p', { class: 'meta' }, found.length > 1 ? say('rowsHoldName', { n: found.length }) : '')
          : el('p', { class: 'warning' }, W.noSuchRow),
        ...found.map(rowDetail),
        el('p', {}, el('a', { href: '#rows' }, W.backToRows)),
      );
      detail.scrollIntoView();
    }
    window.addEventListener('hashchange', showHash);
    // A link to the row already in the address bar fires no hashchange: it opens the row again all the same.
    document.addEventListener('click', (e) => {
      const a = e.target instanceof window.Element ? e.target.closest('a[href^="#row="]') : null;
      if (a && a.hash === location.hash) {
        e.preventDefault();
        showHash();
      }
    });

    applyFilters();
    // The comparison view (compare.js) draws itself from the same rows, above the list: the row is scrolled to after it is in place.
    document.dispatchEvent(new window.CustomEvent('awb-rows', { detail: { data: DATA, el, refLink, say } }));
    showHash();
    performance.mark('awb-ready');
    document.body.setAttribute('data-ready', '1');
  }
})();

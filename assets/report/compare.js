// The comparison view of `awb report` pages with two or more graded runs:
// pick a baseline and a candidate; their paired deltas per domain (computed
// by awb as `awb compare` does) and their rows side by side, sorted by the
// change in total. As page.js: data reaches the screen as text nodes only.
'use strict';
(function () {
  document.addEventListener('awb-rows', (event) => {
    const { data: DATA, el, refLink } = event.detail;
    if (!DATA.compare) return;
    const textOf = (k) => (Array.isArray(k) ? k[0] : k);
    const option = (value, text, selected) => el('option', { value, selected }, text);
    const runsIn = [...new Set(DATA.compare.map((p) => p.b))];
    const fBase = el(
      'select',
      { id: 'c-base' },
      runsIn.map((i) => option(String(i), DATA.runs[i].label, i === runsIn[0])),
    );
    const fCand = el(
      'select',
      { id: 'c-cand' },
      runsIn.map((i) => option(String(i), DATA.runs[i].label, i === runsIn[1])),
    );
    const fDomain = el(
      'select',
      { id: 'c-domain' },
      option('', 'all domains'),
      DATA.domains.map((d) => option(d.id, d.label)),
    );
    const fText = el('input', { id: 'c-text', type: 'search', placeholder: 'id, prediction or truth text' });
    const fOrder = el('select', { id: 'c-order' }, option('drop', 'largest drop first'), option('gain', 'largest gain first'));
    const deltas = el('div', { class: 'scroll' });
    const note = el('p', { class: 'meta', id: 'c-note' });
    const count = el('span', { class: 'meta', id: 'c-count' });
    const list = el('tbody', { id: 'c-list' });
    const more = el('button', { id: 'c-more', type: 'button' }, 'show more');
    const detail = el('div', { id: 'c-detail' });
    const section = el(
      'section',
      { id: 'compare' },
      el('h2', {}, 'Comparison of two runs'),
      el('div', { class: 'filters' }, el('label', {}, 'Baseline ', fBase), el('label', {}, 'Candidate ', fCand)),
      deltas,
      note,
      el('h3', {}, 'Paired rows, by change in total'),
      el(
        'div',
        { class: 'filters' },
        el('label', {}, 'Domain ', fDomain),
        el('label', {}, 'Text ', fText),
        el('label', {}, 'Order ', fOrder),
        count,
      ),
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
              ['Row', 'Baseline', 'Candidate', 'Change'].map((t) => el('th', {}, t)),
            ),
          ),
          list,
        ),
      ),
      more,
      detail,
    );
    document.getElementById('app').insertBefore(section, document.getElementById('rows'));

    const PAGE = 50;
    let shown = PAGE;
    let pairs = [];
    let matching = [];

    function drawDeltas() {
      const b = Number(fBase.value);
      const c = Number(fCand.value);
      const pair = DATA.compare.find((p) => p.b === b && p.c === c);
      if (!pair) {
        deltas.replaceChildren(el('p', { class: 'warning' }, 'Pick two different runs.'));
        note.textContent = '';
        pairs = [];
        applyFilters();
        return;
      }
      const line = (label, d, cls) =>
        el(
          'tr',
          { class: cls },
          el('td', {}, label),
          el('td', { class: 'right' }, d.base),
          el('td', { class: 'right' }, d.cand),
          el('td', { class: `right delta${d.sure ? (d.delta > 0 ? ' good' : ' bad') : ''}` }, d.dt),
          el('td', { class: 'right' }, d.ci),
          el('td', { class: 'right' }, String(d.paired)),
        );
      deltas.replaceChildren(
        el(
          'table',
          { class: 'grid', id: 'c-deltas' },
          el('caption', {}, `${DATA.runs[c].label} minus ${DATA.runs[b].label} (0-100, paired rows only)`),
          el(
            'tr',
            {},
            ['Domain', 'Baseline', 'Candidate', 'Change', '95% interval', 'Paired rows'].map((t, i) =>
              el('th', { class: i ? 'right' : undefined }, t),
            ),
          ),
          pair.domains.map((d) => line(d.label, d, undefined)),
          line('Overall (macro)', pair.overall, 'overall'),
        ),
      );
      note.textContent =
        'Intervals: cluster-robust (CR2) t intervals over trajectories, as awb compare prints them; coloured when they exclude 0.' +
        (pair.onlyB || pair.onlyC
          ? ` Unpaired rows left out: ${pair.onlyB} only in the baseline, ${pair.onlyC} only in the candidate.`
          : '');
      // Rows of both runs by their key; a row without a score on either side has no change to sort by.
      const cand = new Map(DATA.rows.filter((r) => r.run === c && r.key).map((r) => [r.key, r]));
      pairs = DATA.rows.flatMap((r) => {
        const o = r.run === b && r.key ? cand.get(r.key) : undefined;
        return o && r.s !== null && o.s !== null ? [{ b: r, c: o, change: o.s - r.s }] : [];
      });
      applyFilters();
    }

    function applyFilters() {
      const domain = fDomain.value;
      const needle = fText.value.trim().toLowerCase();
      const has = (p) => [p.b.ref, textOf(p.b.gt), textOf(p.b.p), textOf(p.c.p)].some((t) => t.toLowerCase().includes(needle));
      matching = pairs.filter((p) => (domain === '' || p.b.d === domain) && (needle === '' || has(p)));
      const sign = fOrder.value === 'gain' ? -1 : 1;
      matching.sort((x, y) => sign * (x.change - y.change));
      shown = PAGE;
      drawList();
    }

    const signed = (v) => (v > 0 ? `+${v.toFixed(2)}` : v.toFixed(2));

    function drawList() {
      list.replaceChildren(
        ...matching.slice(0, shown).map((p, i) => {
          const open = el('button', { type: 'button', class: 'link', 'data-i': i }, p.b.ref);
          open.addEventListener('click', () => showPair(p));
          return el(
            'tr',
            {},
            el('td', {}, open),
            el('td', { class: 'right' }, p.b.st),
            el('td', { class: 'right' }, p.c.st),
            el('td', { class: `right${p.change > 0 ? ' good' : p.change < 0 ? ' bad' : ''}` }, signed(p.change)),
          );
        }),
      );
      count.textContent = `${matching.length} of ${pairs.length} paired rows${matching.length > shown ? `, first ${shown} listed` : ''}`;
      more.hidden = matching.length <= shown;
    }

    function block(title, kept, cls) {
      const text = textOf(kept);
      return el(
        'div',
        { class: `text ${cls}` },
        el('h4', {}, title),
        el('pre', {}, text === '' ? '(empty)' : text),
        Array.isArray(kept) ? el('p', { class: 'cut' }, `[cut: the first ${text.length} of ${kept[1]} characters]`) : null,
      );
    }

    function showPair(p) {
      detail.replaceChildren(
        el(
          'article',
          { class: 'row', 'data-key': p.b.key },
          el('h3', {}, el('a', { href: refLink(p.b.ref), class: 'ref' }, p.b.ref), ` · change ${signed(p.change)}`),
          block('Current action', p.b.a, 'action'),
          el(
            'div',
            { class: 'pair three' },
            block(`Baseline: ${DATA.runs[p.b.run].label} (${p.b.st})`, p.b.p, 'prediction baseline'),
            block('Ground truth', p.b.gt, 'truth'),
            block(`Candidate: ${DATA.runs[p.c.run].label} (${p.c.st})`, p.c.p, 'prediction candidate'),
          ),
        ),
      );
      detail.scrollIntoView();
    }

    for (const f of [fBase, fCand]) f.addEventListener('change', drawDeltas);
    for (const f of [fDomain, fOrder]) f.addEventListener('change', applyFilters);
    fText.addEventListener('input', applyFilters);
    more.addEventListener('click', () => {
      shown += PAGE;
      drawList();
    });
    drawDeltas();
  });
})();

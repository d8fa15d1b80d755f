// The comparison view of `awb report` pages with two or more graded runs:
// pick a baseline and a candidate; their paired deltas per domain (computed
// by awb as `awb compare` does) and their rows side by side, sorted by the
// change in total. As page.js: data reaches the screen as text nodes only.
'use strict';
(function () {
  document.addEventListener('awb-rows', (event) => {
    const { data: DATA, el, refLink, say } = event.detail;
    const W = DATA.words;
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
      option('', W.allDomains),
      DATA.domains.map((d) => option(d.id, d.label)),
    );
    const fText = el('input', { id: 'c-text', type: 'search', placeholder: W.textPlaceholder });
    const fOrder = el('select', { id: 'c-order' }, option('drop', W.largestDrop), option('gain', W.largestGain));
    const deltas = el('div', { class: 'scroll' });
    const note = el('p', { class: 'meta', id: 'c-note' });
    const count = el('span', { class: 'meta', id: 'c-count' });
    const list = el('tbody', { id: 'c-list' });
    const more = el('button', { id: 'c-more', type: 'button' }, W.showMore);
    const detail = el('div', { id: 'c-detail' });
    const section = el(
      'section',
      { id: 'compare' },
      el('h2', {}, W.compareHeading),
      el('div', { class: 'filters' }, el('label', {}, `${W.baseline} `, fBase), el('label', {}, `${W.candidateRun} `, fCand)),
      deltas,
      note,
      el('h3', {}, W.pairedRows),
      el(
        'div',
        { class: 'filters' },
        el('label', {}, `${W.filterDomain} `, fDomain),
        el('label', {}, `${W.filterText} `, fText),
        el('label', {}, `${W.filterOrder} `, fOrder),
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
              [W.headRow, W.baseline, W.candidateRun, W.change].map((t) => el('th', {}, t)),
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
        deltas.replaceChildren(el('p', { class: 'warning' }, W.pickTwo));
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
          el('caption', {}, say('minus', { candidate: DATA.runs[c].label, baseline: DATA.runs[b].label })),
          el(
            'tr',
            {},
            [W.domain, W.baseline, W.candidateRun, W.change, W.interval, W.paired].map((t, i) =>
              el('th', { class: i ? 'right' : undefined }, t),
            ),
          ),
          pair.domains.map((d) => line(d.label, d, undefined)),
          line(W.overallMacro, pair.overall, 'overall'),
        ),
      );
      note.textContent = W.intervals + (pair.onlyB || pair.onlyC ? say('unpaired', { b: pair.onlyB, c: pair.onlyC }) : '');
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
      count.textContent =
        say('pairedCount', { shown: matching.length, all: pairs.length }) +
        (matching.length > shown ? say('firstListed', { n: shown }) : '');
      more.hidden = matching.length <= shown;
    }

    function block(title, kept, cls) {
      const text = textOf(kept);
      return el(
        'div',
        { class: `text ${cls}` },
        el('h4', {}, title),
        el('pre', {}, text === '' ? W.empty : text),
        Array.isArray(kept) ? el('p', { class: 'cut' }, say('cutMark', { kept: text.length, all: kept[1] })) : null,
      );
    }

    function showPair(p) {
      detail.replaceChildren(
        el(
          'article',
          { class: 'row', 'data-key': p.b.key },
          el('h3', {}, el('a', { href: refLink(p.b.ref), class: 'ref' }, p.b.ref), say('changeBy', { change: signed(p.change) })),
          block(W.action, p.b.a, 'action'),
          el(
            'div',
            { class: 'pair three' },
            block(say('baselineOf', { label: DATA.runs[p.b.run].label, score: p.b.st }), p.b.p, 'prediction baseline'),
            block(W.groundTruth, p.b.gt, 'truth'),
            block(say('candidateOf', { label: DATA.runs[p.c.run].label, score: p.c.st }), p.c.p, 'prediction candidate'),
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

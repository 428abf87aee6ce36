// Lorekeeper inspector: the context viewer (DESIGN §11) — tokens per section against the budget, the text exactly
// as the model reads it, and every dropped entry with its reason and, on demand, its text. Imported by inspector.js.

/** The largest budget the service takes: with it, an entry the budget dropped is in the context and has its text. */
const MAX_BUDGET = '200000';

function widthSpan(el, pct) {
  const span = el('span');
  span.style.width = `${pct}%`;
  return span;
}

function bar(el, tokens, budget, cls = '') {
  const pct = Math.min(100, (100 * tokens) / Math.max(1, budget));
  return el(
    'div',
    { class: `bar ${cls}`, role: 'img', 'aria-label': `${tokens} of ${budget} tokens` },
    // Set through the CSSOM: the Content-Security-Policy refuses inline style attributes.
    widthSpan(el, pct),
  );
}

/**
 * Builds the context for `query` (URLSearchParams) twice, as JSON and as the text/plain the model reads, and
 * renders both into `box`. `ui` = { el, api, status, base } (base: the campaign's /v1 path).
 */
export async function showContext(ui, query, box) {
  const { el, api, status, base } = ui;
  const json = new URLSearchParams(query);
  json.set('format', 'json');
  const text = new URLSearchParams(query);
  text.delete('format');
  const [ctx, prompt] = await Promise.all([
    api(`${base}/context?${json}`),
    api(`${base}/context?${text}`, { headers: { accept: 'text/plain' } }),
  ]);
  const { budget, used } = ctx.tokens;
  box.replaceChildren(
    el('p', { id: 'context-total' }, `${used} of ${budget} tokens used${ctx.overBudget ? ' — over budget' : ''}`),
    bar(el, used, budget, ctx.overBudget ? 'over' : 'total'),
    ...ctx.sections.map((s) =>
      el(
        'div',
        { class: 'section', 'data-key': s.key },
        el('strong', {}, s.title),
        ` — ${s.tokens} tokens, ${s.entries.length} entr${s.entries.length === 1 ? 'y' : 'ies'}`,
        bar(el, s.tokens, budget),
      ),
    ),
    el(
      'details',
      { open: true, id: 'context-text-box' },
      el('summary', {}, 'The text the model reads'),
      el('pre', { id: 'context-text', tabindex: '0', 'aria-label': 'context text as the model reads it' }, prompt),
    ),
    el('h4', {}, `Dropped (${ctx.dropped.length})`),
    ctx.dropped.length ? droppedTable(ui, query, ctx.dropped) : el('p', { class: 'hint' }, 'Nothing was dropped.'),
  );
  status(`Context built: ${used}/${budget} tokens, ${ctx.dropped.length} dropped`);
}

function droppedTable(ui, query, dropped) {
  const { el } = ui;
  const head = ['Section', 'Entry', 'Tokens', 'Reason', 'Text'].map((h) => el('th', { scope: 'col' }, h));
  const rows = dropped.map((d) => {
    const cell = el('td', { class: 'preview' });
    const button = el(
      'button',
      {
        type: 'button',
        'aria-label': `Show the text of dropped ${d.section} entry ${d.ref}`,
        onclick: async () => {
          button.disabled = true;
          cell.replaceChildren(el('q', {}, await droppedText(ui, query, d)));
        },
      },
      'Show text',
    );
    cell.append(button);
    return el(
      'tr',
      { 'data-ref': String(d.ref) },
      el('td', {}, d.section),
      el('td', {}, String(d.ref)),
      el('td', {}, String(d.tokens)),
      el('td', {}, d.reason),
      cell,
    );
  });
  return el('table', { id: 'dropped' }, el('thead', {}, el('tr', {}, ...head)), el('tbody', {}, ...rows));
}

/**
 * A dropped entry's text: the same context at the largest budget holds what the budget dropped; what it still
 * leaves out (a duplicate, a compacted message) is read where it lives — a message by its index, a memory by its id.
 */
export async function droppedText(ui, query, d) {
  const { api, base } = ui;
  try {
    const full = new URLSearchParams(query);
    full.set('format', 'json');
    full.set('budget', MAX_BUDGET);
    const ctx = await api(`${base}/context?${full}`);
    const entry = ctx.sections.find((s) => s.key === d.section)?.entries.find((e) => e.ref === d.ref);
    if (entry) return entry.text;
    const ref = String(d.ref);
    if (/^\d+$/.test(ref)) {
      const { items } = await api(`${base}/messages?after=${Number(ref) - 1}&limit=1`);
      const m = items[0];
      if (m) return `[${m.index}] ${m.speaker ?? m.role}: ${m.content}`;
    }
    if (/^[^:]+:\d+:(location|npc|world):/.test(ref)) {
      const { items } = await api(`${base}/memories/${encodeURIComponent(ref)}/history`);
      const last = items[items.length - 1];
      if (last) return last.summary;
    }
    return `(no text to show: ${d.reason === 'not-historical' ? 'game state is not kept as history' : 'not found'})`;
  } catch (err) {
    return `(could not read it: ${err.message})`;
  }
}

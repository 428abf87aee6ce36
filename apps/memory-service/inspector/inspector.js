// Lorekeeper inspector: plain ES module, no build step. Every call goes through api(), which sends the
// key (when the service wants one) as a bearer token; the live timeline reads the SSE stream with fetch,
// since EventSource cannot send headers (docs/decisions.md).
import { showContext } from './context-view.js';
import { describe, scopeName } from './timeline-text.js';

const $ = (id) => document.getElementById(id);
const PAGE = 100;
/** Live events beyond this many rows drop the oldest rows (still reachable with "Load older"): the page stays fast. */
const MAX_ROWS = 1000;
const state = {
  key: sessionStorage.getItem('lorekeeper-key') ?? '',
  campaign: null,
  stream: null,
  oldest: null,
  openapi: null,
  nextCampaigns: null,
  /** The character a viewer-bound key reads as ({kind, id}); null for a full key: player mode (DESIGN §8). */
  bound: null,
};

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

function status(text) {
  $('status').textContent = text;
}

class Unauthorized extends Error {}

async function api(path, init = {}) {
  const headers = { ...(init.headers ?? {}) };
  if (state.key) headers.authorization = `Bearer ${state.key}`;
  const res = await fetch(path, { ...init, headers });
  if (res.status === 401) throw new Unauthorized('the service wants an API key');
  const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw new Error(`${res.status} ${body.code ?? ''}: ${body.detail ?? body}`);
  return body;
}

// ---- key prompt -------------------------------------------------------------------------------
function askForKey(message = '') {
  $('app').hidden = true;
  $('key-form').hidden = false;
  $('key-error').textContent = message;
  $('api-key').focus();
}

$('key-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  state.key = $('api-key').value.trim();
  sessionStorage.setItem('lorekeeper-key', state.key);
  await start();
});

// ---- campaigns ----------------------------------------------------------------------------------
async function loadCampaigns(after) {
  const q = new URLSearchParams({ limit: '50', ...(after ? { after } : {}) });
  const { items } = await api(`/v1/campaigns?${q}`);
  const list = $('campaigns');
  if (!after) list.replaceChildren();
  for (const c of items) {
    const forked = c.parent ? ` · fork of ${c.parent.id} at v${c.parent.version}` : '';
    const button = el(
      'button',
      { type: 'button', 'data-id': c.id, onclick: () => openCampaign(c.id) },
      c.name,
      el('br'),
      el('small', {}, `${c.id} · v${c.version}${forked}`),
    );
    list.append(el('li', { 'data-campaign': c.id, 'data-parent': c.parent?.id }, button));
  }
  // The fork tree: a fork goes under its parent when the parent is listed too.
  for (const li of [...list.querySelectorAll('li[data-parent]')]) {
    const parent = [...list.querySelectorAll('li[data-campaign]')].find(
      (p) => p.dataset.campaign === li.dataset.parent,
    );
    if (!parent) continue;
    let forks = parent.querySelector(':scope > ul');
    if (!forks) parent.append((forks = el('ul', { 'aria-label': `forks of ${parent.dataset.campaign}` })));
    forks.append(li);
  }
  state.nextCampaigns = items.length === 50 ? items[items.length - 1].id : null;
  $('more-campaigns').hidden = !state.nextCampaigns;
  if (!after && items.length === 0) list.append(el('li', { class: 'hint' }, 'No campaigns yet.'));
}
$('more-campaigns').addEventListener('click', () => loadCampaigns(state.nextCampaigns));

/** Histories the game master opened stay open when the panel re-reads itself on memory events. */
const openHistories = new Set();

async function openCampaign(id) {
  state.stream?.abort();
  state.campaign = id;
  openHistories.clear();
  // Until this campaign's own stream is open, "live" would describe the previous one.
  $('live-state').textContent = state.bound ? 'not live (player key)' : 'connecting…';
  for (const b of document.querySelectorAll('#campaigns button'))
    b.setAttribute('aria-current', String(b.dataset.id === id));
  $('campaign').hidden = false;
  const c = await api(`/v1/campaigns/${encodeURIComponent(id)}`);
  $('campaign-title').textContent = c.name;
  renderMeta(c);
  renderActions();
  renderAsOf();
  await Promise.all([state.bound ? loadMessages() : loadTimeline(), loadMemories(c)]);
  $('context').replaceChildren();
  status(`Campaign ${c.name} loaded`);
}

// ---- player mode (a viewer-bound key, DESIGN §8) -------------------------------------------------
/** Player mode: what the key may read is shown; what it may not (log, stream, actions) is said once, not tried. */
function renderMode() {
  const b = state.bound;
  $('mode-note').hidden = !b;
  $('actions-section').hidden = Boolean(b);
  $('older').hidden = Boolean(b);
  $('timeline-title').firstChild.textContent = b ? 'Messages ' : 'Timeline ';
  if (!b) return;
  $('mode-note').textContent =
    `Player mode: this key reads as ${b.kind} ${b.id}, so you see its character's context, memories and the ` +
    'messages it witnessed (numbered by its own count). The event log, the live stream, usage and the game ' +
    'master actions are for a full key.';
  const agent = $('ctx-agent');
  agent.replaceChildren(el('option', {}, b.kind));
  $('ctx-viewer').value = b.id;
  $('ctx-viewer').readOnly = true;
}

/** The messages the bound character witnessed, by its own `seq`. */
async function loadMessages() {
  const { items } = await api(`/v1/campaigns/${encodeURIComponent(state.campaign)}/messages?limit=${PAGE * 5}`);
  $('timeline').replaceChildren(
    ...items.map((m) =>
      el(
        'li',
        { 'data-seq': m.seq },
        el('span', { class: 'type' }, `#${m.seq}`),
        el('span', {}, `${m.speaker ?? m.role}: ${m.content}`),
      ),
    ),
  );
  if (items.length === 0) $('timeline').append(el('li', { class: 'hint' }, 'No message witnessed yet.'));
}

/** The header line: version, processed version and round, kept live by the stream (refreshMeta). */
function renderMeta(c) {
  $('campaign-meta').textContent =
    `${c.id} · game version ${c.version} · processed ${c.processedVersion} · round ${c.round ?? 1}`;
}

/** Re-reads the header once per burst of stream events (a burst of 100 events is one request). */
function refreshMeta(campaign) {
  clearTimeout(state.metaRefresh);
  state.metaRefresh = setTimeout(async () => {
    if (state.campaign !== campaign) return;
    const c = await api(`/v1/campaigns/${encodeURIComponent(campaign)}`).catch(() => null);
    if (c && state.campaign === campaign) renderMeta(c);
  }, 300);
}

// ---- timeline -----------------------------------------------------------------------------------
/** Rows that change what the story or a memory says get a class of their own, so they stand out. */
const MARKS = {
  MemorySkipped: 'skipped',
  MemoryWithdrawn: 'withdrawn',
  MemoryDeleted: 'withdrawn',
  MemoryRevised: 'revised',
  MemoryCorrected: 'revised',
  MessagesRetracted: 'retraction',
  CampaignRewound: 'retraction',
};

function timelineItem(item, fresh) {
  const cls = [item.stream, MARKS[item.type] ?? '', fresh ? 'fresh' : ''].join(' ').trim();
  const trigger = item.triggerVersion !== undefined ? ` · trigger game v${item.triggerVersion}` : '';
  const index = item.type === 'MessageRecorded' ? item.data?.index : undefined;
  const retracts = item.type === 'MessagesRetracted' ? item.data.indexes.join(',') : undefined;
  return el(
    'li',
    {
      class: cls,
      'data-id': item.id,
      'data-stream': item.stream,
      'data-message': index,
      'data-retracts': retracts,
      title: item.recordedAt,
    },
    el('span', { class: 'badge' }, `${item.stream} v${item.version}${trigger}`),
    el('span', { class: 'type' }, item.type),
    el('span', { class: 'text' }, describe(item)),
  );
}

/** Strikes through the messages a retraction took back (those loaded; older pages are marked when loaded). */
function markRetracted() {
  const list = $('timeline');
  const gone = new Set();
  for (const li of list.querySelectorAll('li[data-retracts]'))
    for (const i of li.dataset.retracts.split(',')) gone.add(i);
  for (const li of list.querySelectorAll('li[data-message]')) {
    const retracted = gone.has(li.dataset.message);
    li.classList.toggle('retracted', retracted);
    if (retracted) li.setAttribute('aria-label', `retracted: ${li.textContent}`);
  }
}

/** A stream notice (rewound, deleted) as a row of its own: it has no event id. */
function noticeItem(text) {
  return el('li', { class: 'notice', role: 'note' }, el('span', { class: 'type' }, 'notice'), el('span', {}, text));
}

async function loadTimeline() {
  const list = $('timeline');
  list.replaceChildren();
  const { items } = await api(`/v1/campaigns/${encodeURIComponent(state.campaign)}/timeline?limit=${PAGE}`);
  for (const item of items) list.append(timelineItem(item, false));
  markRetracted();
  state.oldest = items[0]?.id ?? null;
  $('older').disabled = items.length < PAGE;
  list.scrollTop = list.scrollHeight;
  follow(items.length ? items[items.length - 1].id : '1:game:0');
}

$('older').addEventListener('click', async () => {
  if (!state.oldest) return;
  const { items } = await api(
    `/v1/campaigns/${encodeURIComponent(state.campaign)}/timeline?limit=${PAGE}&before=${state.oldest}`,
  );
  $('timeline').prepend(...items.map((i) => timelineItem(i, false)));
  markRetracted();
  state.oldest = items[0]?.id ?? state.oldest;
  $('older').disabled = items.length < PAGE;
  status(`Loaded ${items.length} older events`);
});

/** Follows the SSE stream after `lastId`, reconnecting from the last event seen when it ends. */
async function follow(lastId) {
  const abort = new AbortController();
  state.stream = abort;
  const campaign = state.campaign;
  const headers = { accept: 'text/event-stream', 'last-event-id': lastId };
  if (state.key) headers.authorization = `Bearer ${state.key}`;
  try {
    const res = await fetch(`/v1/campaigns/${encodeURIComponent(campaign)}/stream`, { headers, signal: abort.signal });
    if (!res.ok) throw new Error(`stream: ${res.status}`);
    $('live-state').textContent = 'live';
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let m;
      while ((m = /\r?\n\r?\n/.exec(buffer))) {
        const frame = parseFrame(buffer.slice(0, m.index));
        buffer = buffer.slice(m.index + m[0].length);
        if (frame?.id) {
          lastId = frame.id;
          const list = $('timeline');
          const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
          list.append(timelineItem({ id: frame.id, ...frame.data }, true));
          if (frame.data.type === 'MessagesRetracted') markRetracted();
          refreshMeta(campaign);
          // A memory changed under the panel: read the panel again (once per burst of events).
          if (frame.data.stream === 'memory' || frame.data.type?.startsWith('Memory')) {
            clearTimeout(state.memoriesRefresh);
            state.memoriesRefresh = setTimeout(() => state.campaign === campaign && loadMemories(), 300);
          }
          if (list.children.length > MAX_ROWS) {
            while (list.children.length > MAX_ROWS) list.firstElementChild.remove();
            state.oldest = list.firstElementChild.dataset.id;
            $('older').disabled = false;
          }
          if (atBottom) list.scrollTop = list.scrollHeight;
        } else if (frame?.event === 'cutoff') status('The stream fell behind and was cut off; resuming');
        else if (frame?.event === 'rewound') {
          // The versions after toVersion are gone: say so, then read the timeline again from the new head.
          const d = frame.data;
          const text = `Rewound from v${d.fromVersion} to v${d.toVersion} (timeline ${d.timeline}); timeline re-read`;
          abort.abort();
          clearTimeout(state.rewindFallback);
          await openCampaign(campaign);
          $('timeline').append(noticeItem(text));
          status(text);
          return;
        } else if (frame?.event === 'deleted') {
          $('timeline').append(noticeItem('This campaign was deleted; the stream has ended.'));
          $('live-state').textContent = 'ended';
          status(`Campaign ${campaign} was deleted`);
          state.stream = null;
          await loadCampaigns();
          return;
        }
      }
    }
  } catch (err) {
    if (abort.signal.aborted) return;
    status(`Stream interrupted (${err.message}); reconnecting`);
  }
  if (abort.signal.aborted || state.campaign !== campaign) return;
  $('live-state').textContent = 'reconnecting…';
  setTimeout(() => state.stream === abort && follow(lastId), 2000);
}

function parseFrame(block) {
  const frame = { event: 'message', data: '' };
  for (const line of block.split(/\r?\n/)) {
    if (!line || line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i === -1 ? line : line.slice(0, i);
    const value = i === -1 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'data') frame.data += value;
    else if (field === 'id' || field === 'event') frame[field] = value;
  }
  if (!frame.data) return null;
  frame.data = JSON.parse(frame.data);
  return frame;
}

// ---- memories and cursors -----------------------------------------------------------------------
async function loadMemories(campaign) {
  const campaignRead = campaign ?? (await api(`/v1/campaigns/${encodeURIComponent(state.campaign)}`));
  // A bound key gets no cursors (they are campaign indexes): its scopes are those of its memories.
  const c = { ...campaignRead, cursors: campaignRead.cursors ?? { world: undefined, locations: {}, npcs: {} } };
  const { items } = await api(`/v1/campaigns/${encodeURIComponent(state.campaign)}/memories?limit=100`);
  const groups = new Map();
  for (const m of items) {
    const key = `${m.scope}:${m.scope === 'world' ? '' : (m.subjectId ?? '')}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(m);
  }
  const cursorOf = (scope, subject) =>
    scope === 'world'
      ? c.cursors.world
      : scope === 'location'
        ? c.cursors.locations[subject]
        : scope === 'npc'
          ? c.cursors.npcs[subject]
          : undefined;
  const scopes = [
    ['world', ''],
    ...Object.keys(c.cursors.locations).map((id) => ['location', id]),
    ...Object.keys(c.cursors.npcs).map((id) => ['npc', id]),
  ];
  for (const key of groups.keys()) {
    const [scope, subject] = key.split(':');
    if (!scopes.some(([s, id]) => s === scope && id === subject)) scopes.push([scope, subject]);
  }
  const box = $('memories');
  box.replaceChildren(
    ...scopes.map(([scope, subject]) => {
      const cursor = cursorOf(scope, subject);
      const list = groups.get(`${scope}:${subject}`) ?? [];
      return el(
        'details',
        { open: list.length > 0, class: 'scope', 'data-scope': `${scope}:${subject}` },
        el(
          'summary',
          {},
          `${scopeName(scope, subject)} — ${state.bound ? '' : `cursor ${cursor ?? -1} · `}` +
            `${list.length} memor${list.length === 1 ? 'y' : 'ies'}`,
        ),
        ...list.map((m) =>
          el(
            'div',
            { class: 'memory-item', 'data-memory': m.id },
            el('span', { class: 'summary' }, m.summary),
            el('br'),
            el('small', {}, memoryLine(m)),
            el('br'),
            ...MEMORY_ACTIONS.filter((a) => offers(a.path, a.method) && (!state.bound || a.history)).map((a) =>
              el(
                'button',
                {
                  type: 'button',
                  'aria-label': `${a.label} memory ${m.id}`,
                  onclick: (e) => (a.history ? showHistory(m.id, e.target) : runAction(a, m)),
                },
                a.label,
              ),
            ),
          ),
        ),
      );
    }),
  );
  for (const id of openHistories) {
    const button = [...box.querySelectorAll('button')].find(
      (b) => b.getAttribute('aria-label') === `History memory ${id}`,
    );
    if (button) void showHistory(id, button);
  }
}
$('refresh-memories').addEventListener('click', () => loadMemories());

/** A memory's id, range, trigger, and (§10) revision and origin. */
function memoryLine(m) {
  const revision = m.revision > 1 ? ` · revision ${m.revision}` : '';
  const origin = m.origin === 'dm' ? ' · corrected (locked)' : '';
  const range = `messages ${m.sinceMessageIndex}–${m.throughMessageIndex}`;
  return `${m.id} · ${range} · trigger game v${m.triggerVersion}${revision}${origin}`;
}

/** Whether the service's OpenAPI document lists this operation (features that land later light up by themselves). */
const offers = (path, method) => Boolean(state.openapi?.paths?.[path]?.[method]);

async function showHistory(memoryId, button) {
  openHistories.add(memoryId);
  const { items } = await api(
    `/v1/campaigns/${encodeURIComponent(state.campaign)}/memories/${encodeURIComponent(memoryId)}/history`,
  );
  button.replaceWith(
    el(
      'ol',
      { class: 'history', 'aria-label': `history of memory ${memoryId}` },
      ...items.map((h) => el('li', {}, `r${h.revision} ${h.reason} (${h.origin}, v${h.version}): ${h.summary}`)),
    ),
  );
}

// ---- context viewer (context-view.js) -------------------------------------------------------------
$('context-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = new FormData(e.target);
  const q = new URLSearchParams();
  for (const name of ['agent', 'viewer', 'budget', 'query', 'asOf']) if (form.get(name)) q.set(name, form.get(name));
  const base = `/v1/campaigns/${encodeURIComponent(state.campaign)}`;
  try {
    await showContext({ el, api, status, base }, q, $('context'));
  } catch (err) {
    $('context').replaceChildren(el('p', { class: 'error', role: 'alert' }, err.message));
  }
});

// ---- game master actions (only those the service's OpenAPI document lists) ----------------------
/** prompt(), with empty answers as undefined and Cancel as null (the action is then not sent). */
function ask(question, fallback = '') {
  const answer = prompt(question, fallback);
  return answer === null ? null : answer.trim() || undefined;
}
const CANCEL = Symbol('cancel');
const num = (v) => (v === undefined || v === null ? v : Number(v));

const ACTIONS = [
  {
    label: 'Fork…',
    path: '/v1/campaigns/{cid}/fork',
    method: 'post',
    ask: () => {
      const name = ask('Name of the fork (empty: the service picks one)?');
      if (name === null) return CANCEL;
      const atVersion = ask('Fork at game version (empty: now)?');
      return atVersion === null ? CANCEL : { name, atVersion: num(atVersion) };
    },
  },
  {
    label: 'Rewind…',
    path: '/v1/campaigns/{cid}/rewind',
    method: 'post',
    ask: () => {
      const toVersion = ask('Rewind to game version?');
      if (!toVersion) return CANCEL;
      const keepAs = ask('Keep the story as it is now as a fork with id (empty: do not keep it)?');
      return keepAs === null ? CANCEL : { toVersion: Number(toVersion), keepAs };
    },
  },
  {
    label: 'Retract messages…',
    path: '/v1/campaigns/{cid}/messages/retract',
    method: 'post',
    ask: () => {
      const indexes = ask('Message indexes to retract (comma separated; #n in the timeline)?');
      if (!indexes) return CANCEL;
      const reason = ask('Reason (optional)?');
      return reason === null ? CANCEL : { indexes: indexes.split(',').map(Number), reason };
    },
  },
];

/** Per memory, in the memories panel. */
const MEMORY_ACTIONS = [
  {
    label: 'Correct…',
    path: '/v1/campaigns/{cid}/memories/{memoryId}',
    method: 'put',
    ask: (m) => {
      const summary = ask(`New wording of memory ${m.id}?`, m.summary);
      return summary ? { summary } : CANCEL;
    },
  },
  { label: 'Delete…', path: '/v1/campaigns/{cid}/memories/{memoryId}', method: 'delete', ask: () => undefined },
  { label: 'History', path: '/v1/campaigns/{cid}/memories/{memoryId}/history', method: 'get', history: true },
];

function renderAsOf() {
  const params = state.openapi?.paths?.['/v1/campaigns/{cid}/context']?.get?.parameters ?? [];
  $('ctx-asof-field').hidden = !params.some((p) => p.name === 'asOf');
}

function renderActions() {
  const paths = state.openapi?.paths ?? {};
  const offered = ACTIONS.filter((a) => paths[a.path]?.[a.method]);
  $('actions').replaceChildren(
    ...offered.map((a) => el('button', { type: 'button', onclick: () => runAction(a) }, a.label)),
  );
  $('actions-note').textContent = offered.length
    ? 'Each action asks for confirmation before it is sent.'
    : 'This service does not offer fork, rewind, retract, correct or delete yet (they are not in /docs/openapi.json); they appear here once it does.';
}

async function runAction(action, memory) {
  const path = action.path
    .replace('{cid}', encodeURIComponent(state.campaign))
    .replace('{memoryId}', encodeURIComponent(memory?.id ?? ''));
  const body = action.ask(memory);
  if (body === CANCEL) return;
  const label = `${action.label.replace('…', '')}${memory ? ` memory ${memory.id}` : ''}`;
  if (!confirm(`${label}: send ${action.method.toUpperCase()} ${path}${body ? ` ${JSON.stringify(body)}` : ''}?`))
    return status(`${label}: cancelled, nothing sent`);
  let answer;
  try {
    answer = await api(path, {
      method: action.method.toUpperCase(),
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    return status(`${label} failed: ${err.message}`);
  }
  if (action.path.endsWith('/fork')) {
    // The fork is a campaign of its own: it shows in the fork tree, under its parent.
    await loadCampaigns();
    return status(`Forked as ${answer.id} at v${answer.parent?.version}`);
  }
  if (action.path.endsWith('/rewind')) {
    // The live stream says `rewound` and re-reads the timeline; re-read here too if that notice does not come.
    clearTimeout(state.rewindFallback);
    state.rewindFallback = setTimeout(() => openCampaign(state.campaign), 5000);
    if (answer.keptAs) await loadCampaigns();
    return status(`Rewound to v${answer.version} (timeline ${answer.timeline})`);
  }
  await openCampaign(state.campaign);
  status(
    action.path.endsWith('/retract')
      ? `${label} done: the messages and the memories built from them are withheld; the worker revises them`
      : `${label} done`,
  );
}

// ---- start --------------------------------------------------------------------------------------
async function start() {
  try {
    await loadCampaigns();
  } catch (err) {
    if (err instanceof Unauthorized) return askForKey(state.key ? 'That key was not accepted.' : '');
    status(err.message);
    return;
  }
  state.bound = await api('/v1/caller')
    .then((c) => c.viewer)
    .catch(() => null);
  $('key-form').hidden = true;
  $('app').hidden = false;
  renderMode();
  state.openapi = await fetch('/docs/openapi.json')
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  status('Pick a campaign');
  const first = document.querySelector('#campaigns button');
  if (first) first.focus();
}

start();

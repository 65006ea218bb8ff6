// kvroute console: renders /api/* into the page. Vanilla JS, no dependencies, same origin only.
// Data is only ever put into the page as text (textContent), never as markup.
'use strict';

const POLL_MS = 2000;
const main = document.getElementById('main');
const statusLine = document.getElementById('status');
let timer = null;
let live = true;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fmtTime(ms) {
  if (ms === null || ms === undefined) return '';
  const d = new Date(ms);
  const pad = (n, w) => String(n).padStart(w || 2, '0');
  return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
}
function fmtNum(v, digits) {
  if (v === null || v === undefined) return '';
  return Number(v).toLocaleString('en-US', { maximumFractionDigits: digits === undefined ? 0 : digits, minimumFractionDigits: 0 });
}
function fmtPct(v) { return v === null || v === undefined ? '' : (100 * v).toFixed(1) + '%'; }
function fmtAge(ms) { return ms < 1000 ? ms + ' ms' : ms < 120000 ? (ms / 1000).toFixed(1) + ' s' : Math.round(ms / 60000) + ' min'; }
function badge(text, cls) { return el('span', { class: 'badge ' + (cls || text), text: text }); }
function table(headers, rows, cls) {
  return el('table', { class: cls },
    el('thead', {}, el('tr', {}, headers.map(h => el('th', { class: h.num ? 'num' : null, text: h.label || h })))),
    el('tbody', {}, rows));
}
function td(value, cls) { return el('td', { class: cls }, value); }
function num(value) { return el('td', { class: 'num' }, value); }

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function setStatus(text) { statusLine.textContent = text; }

function schedule(fn) {
  clearTimeout(timer);
  timer = setTimeout(async function tick() {
    if (live) await fn();
    timer = setTimeout(tick, POLL_MS);
  }, POLL_MS);
}

function render(nodes) { main.replaceChildren(...[nodes].flat(Infinity).filter(n => n !== null && n !== undefined && n !== false && n !== "")); }

// ---------- fleet ----------
function kvBar(w) {
  if (!w.kvKnown) return el('span', { class: 'sub', text: 'not reported' });
  const bar = el('span', { class: 'bar' + (w.kvUsage > 0.9 ? ' hot' : '') }, el('span'));
  bar.firstChild.style.width = Math.min(100, Math.max(0, 100 * w.kvUsage)).toFixed(1) + '%';
  return el('span', {}, bar, el('span', { class: 'bar-label', text: fmtPct(w.kvUsage) + ' of ' + fmtNum(w.kvBlocksTotal) + ' blocks' }));
}

function workerRow(w) {
  return el('tr', { class: w.stale ? 'stale' : null, 'data-worker-id': w.workerId },
    td(w.workerId, 'mono'),
    td([badge(w.status), w.stale ? ' ' : '', w.stale ? badge('stale', 'stale') : '']),
    td(kvBar(w)),
    num(w.running + ' / ' + w.maxRunning),
    num(w.waiting),
    num(fmtNum(w.owedPrefillTokens) + (w.owedPrefillRequests ? ' (' + w.owedPrefillRequests + ' req)' : '')),
    num(fmtPct(w.prefixHitRate)),
    num(fmtNum(w.tokensPerSecond, 1)),
    num(w.recentTtftMs ? fmtNum(w.recentTtftMs, 0) : ''),
    num(w.ownedPartitions.join(', ')),
    num(fmtAge(w.ageMs)));
}

async function fleetPage() {
  const load = async () => {
    const fleet = await getJson('/api/fleet');
    const cards = el('div', { class: 'cards' },
      card('workers', fleet.workerCount), card('regions', fleet.regions.length),
      card('stale workers', fleet.staleWorkers), card('telemetry reports read', fmtNum(fleet.telemetryReports)));
    const sections = fleet.regions.map(r => [
      el('h2', {}, r.region, ' ', el('span', { class: 'sub', text: r.workers.length + ' worker(s), ' + r.running + ' running, '
        + r.waiting + ' waiting, ' + fmtNum(r.owedPrefillTokens) + ' prefill tokens owed, ' + fmtNum(r.tokensPerSecond, 1) + ' tokens/s'
        + (r.staleWorkers ? ', ' + r.staleWorkers + ' stale' : '') })),
      table(['Worker', 'Status', 'KV cache', { label: 'Running', num: 1 }, { label: 'Waiting', num: 1 },
        { label: 'Owed prefill tokens', num: 1 }, { label: 'Prefix hit rate', num: 1 }, { label: 'Tokens/s', num: 1 },
        { label: 'TTFT ms', num: 1 }, { label: 'Slots', num: 1 }, { label: 'Telemetry age', num: 1 }],
        r.workers.map(workerRow), 'fleet')]);
    render([el('h1', { text: 'Fleet' }), cards,
      fleet.workerCount === 0 ? el('p', { class: 'empty', text: 'No worker telemetry on this cluster yet.' }) : sections,
      el('p', { class: 'sub', text: 'From the compacted worker-telemetry topic: each worker\'s newest report. A worker is stale when '
        + 'its report is older than ' + fleet.staleAfterMs + ' ms (the router gives such a worker no new work).' })]);
    setStatus('fleet at ' + fmtTime(fleet.nowMs));
  };
  await guarded(load);
  schedule(() => guarded(load));
}

function card(k, v) { return el('div', { class: 'card' }, el('div', { class: 'k', text: k }), el('div', { class: 'v', text: String(v) })); }

// ---------- decisions ----------
// candidates as columns, score components as rows: a policy may report many components and few candidates
function candidatesTable(d) {
  if (!d.candidates.length) return el('span', { class: 'sub', text: 'no candidates recorded' });
  const names = [...new Set(d.candidates.flatMap(c => Object.keys(c.components)))].sort();
  const head = el('tr', {}, el('th', { text: 'Candidate' }),
    d.candidates.map(c => el('th', { class: 'num' + (c.workerId === d.workerId ? ' chosen' : '') },
      el('span', { class: 'mono candidate', text: c.workerId }), c.workerId === d.workerId ? ' (chosen)' : '')));
  const row = (label, f) => el('tr', {}, el('td', { class: 'mono', text: label }), d.candidates.map(c => num(f(c))));
  return el('table', { class: 'inner candidates' }, el('thead', {}, head), el('tbody', {},
    row('region / partition', c => c.region + ' / ' + c.partition),
    el('tr', { class: 'score' }, el('td', { text: 'score' }), d.candidates.map(c => num(fmtNum(c.score, 3)))),
    names.map(n => row(n, c => c.components[n] === undefined ? '' : fmtNum(c.components[n], 3)))));
}

function chosen(d) {
  return d.workerId ? el('span', { class: 'mono chosen-worker', text: d.workerId + ' (' + d.region + ' partition ' + d.partition + ')' }) : '';
}

const openDetails = new Set();

function decisionRow(d) {
  const key = d.requestId + '#' + d.attempt;
  const details = el('details', { open: openDetails.has(key), ontoggle: e => e.target.open ? openDetails.add(key) : openDetails.delete(key) },
    el('summary', { text: d.candidates.length + ' of ' + d.candidatesConsidered + ' candidate(s)' }), candidatesTable(d));
  return el('tr', {},
    td(fmtTime(d.decidedAtMs), 'mono'),
    td(el('a', { href: '/request/' + encodeURIComponent(d.requestId), class: 'mono', text: d.requestId })),
    td(d.tenant), td(badge(d.outcome)), td(chosen(d)), td(d.policy), num(d.score === null ? '' : fmtNum(d.score, 3)),
    num(d.matchedPrefixBlocks + ' / ' + d.promptBlocks), num(d.attempt), td([el('div', { text: d.reason }), details]));
}

async function decisionsPage() {
  const params = new URLSearchParams(location.search);
  const filters = { tenant: params.get('tenant') || '', region: params.get('region') || '', outcome: params.get('outcome') || '',
    request: params.get('request') || '' };
  const form = el('form', { class: 'filters', onsubmit: e => { e.preventDefault(); apply(); } });
  const select = (name, values) => {
    const s = el('select', { name, onchange: apply }, el('option', { value: '', text: 'all' }),
      values.map(v => el('option', { value: v, text: v, selected: v === filters[name] })));
    return s;
  };
  const liveBox = el('input', { type: 'checkbox', checked: live, onchange: e => { live = e.target.checked; } });
  let facets = { tenants: [], regions: [] };
  const body = el('div');

  function buildForm() {
    const keep = (values, v) => v && !values.includes(v) ? [...values, v] : values;
    form.replaceChildren(
      el('label', {}, 'tenant', select('tenant', keep(facets.tenants, filters.tenant))),
      el('label', {}, 'region', select('region', keep(facets.regions, filters.region))),
      el('label', {}, 'outcome', select('outcome', ['DISPATCHED', 'NO_CAPACITY', 'REJECTED'])),
      el('label', {}, 'request id contains', el('input', { name: 'request', value: filters.request, size: 24 })),
      el('button', { type: 'submit', text: 'Filter' }),
      el('label', {}, 'live', liveBox));
  }
  function apply() {
    for (const name of ['tenant', 'region', 'outcome', 'request']) {
      const input = form.elements[name];
      if (input) filters[name] = input.value;
    }
    const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
    history.replaceState(null, '', '/decisions' + (q.toString() ? '?' + q : ''));
    guarded(load);
  }
  async function load() {
    const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v));
    q.set('limit', '200');
    const data = await getJson('/api/decisions?' + q);
    const changed = data.tenants.join() !== facets.tenants.join() || data.regions.join() !== facets.regions.join();
    facets = data;
    if (changed || !form.firstChild) buildForm();
    const outcomes = Object.entries(data.outcomes).map(([k, v]) => k + ' ' + fmtNum(v)).join(', ');
    body.replaceChildren(
      el('p', { class: 'sub', text: fmtNum(data.read) + ' decisions read since the console started (' + (outcomes || 'none') + '); the newest '
        + fmtNum(data.kept) + ' kept, ' + fmtNum(data.matching) + ' match, newest first.' }),
      data.decisions.length === 0 ? el('p', { class: 'empty', text: 'No decision matches.' }) :
        table(['Decided', 'Request', 'Tenant', 'Outcome', 'Chosen GPU', 'Policy', { label: 'Score', num: 1 },
          { label: 'Prefix blocks matched', num: 1 }, { label: 'Attempt', num: 1 }, 'Reason and candidates'],
          data.decisions.map(decisionRow), 'decisions'));
    setStatus('decisions at ' + fmtTime(Date.now()));
  }
  buildForm();
  render([el('h1', { text: 'Decisions' }), form, body]);
  await guarded(load);
  schedule(() => guarded(load));
}

// ---------- one request ----------
async function requestPage(id) {
  const input = el('input', { name: 'id', value: id || '', size: 44, placeholder: 'request id', autofocus: true });
  const form = el('form', { class: 'filters', onsubmit: e => {
    e.preventDefault();
    if (input.value.trim()) location.assign('/request/' + encodeURIComponent(input.value.trim()));
  } }, el('label', {}, 'request id', input), el('button', { type: 'submit', text: 'Show' }));
  const body = el('div');
  render([el('h1', { text: 'Request' }), form, body]);
  if (!id) {
    body.append(el('p', { class: 'empty', text: 'Give a request id (the decisions page links each one).' }));
    setStatus('');
    return;
  }
  body.append(el('p', { class: 'empty', text: 'Reading the story of ' + id + '…' }));
  const load = async () => {
    const story = await getJson('/api/request/' + encodeURIComponent(id));
    body.replaceChildren(...storyView(story));
    setStatus('story read at ' + fmtTime(Date.now()) + ' (' + fmtNum(story.scannedRecords) + ' records scanned)');
  };
  await guarded(load, body);
}

function storyView(s) {
  const out = [];
  if (!s.found) {
    out.push(el('p', { class: 'empty', text: 'No record of ' + s.requestId + ' in the last ' + fmtAge(s.lookbackMs) + '.' }));
    return out;
  }
  const r = s.request;
  const t = s.terminal;
  const lastDecision = s.decisions[s.decisions.length - 1];
  out.push(el('div', { class: 'cards' },
    card('status', t ? t.status : 'no terminal yet'),
    card('chosen GPU', lastDecision && lastDecision.workerId ? lastDecision.workerId : (lastDecision ? lastDecision.outcome : '—')),
    card('decisions', s.decisions.length),
    card('dispatch attempts', s.dispatches.length),
    card('chunks', s.attempts.reduce((n, a) => n + a.chunks, 0)),
    t ? card('tokens prompt / out / cached', t.promptTokens + ' / ' + t.completionTokens + ' / ' + t.cachedTokens) : ''));
  out.push(el('div', { class: 'note' }, el('strong', { text: 'The prompt is never shown. ' }), r
    ? 'Request ' + (r.customId ? '(custom id ' + r.customId + ') ' : '') + 'from tenant ' + r.tenant + ' for ' + r.model + ', ' + r.priority
      + ': ' + fmtNum(r.promptChars) + ' characters in ' + (r.messages ? r.messages + ' message(s)' : 'one prompt') + ', about '
      + fmtNum(r.promptTokenEstimate) + ' tokens, ' + r.prefixBlocks + ' prefix-block hashes of ' + r.prefixBlockTokens + ' tokens, at most '
      + r.maxTokens + ' new tokens' + (r.allowedRegions.length ? ', regions ' + r.allowedRegions.join(', ') : '') + '.'
    : 'The request record itself is not within the lookback.'));
  if (!s.complete) out.push(el('p', { class: 'error', text: 'The read stopped at its time limit: the story may be incomplete.' }));

  out.push(el('h2', { text: 'Timeline' }));
  const t0 = s.timeline.length ? s.timeline[0].atMs : 0;
  out.push(table(['Time', { label: '+ms', num: 1 }, 'Event', 'What', 'Where'], s.timeline.map(e => el('tr', {},
    td(fmtTime(e.atMs), 'mono'), num(e.atMs - t0), td(e.kind, 'kind'), td(e.text),
    td(e.partition === undefined ? e.topic : e.topic + '-' + e.partition + '@' + e.offset, 'mono'))), 'timeline'));

  out.push(el('h2', { text: 'Decisions' }));
  for (const d of s.decisions) {
    out.push(el('div', { class: 'decision' },
      el('p', {}, badge(d.outcome), ' attempt ' + d.attempt + ' by ' + d.policy + ' at ' + fmtTime(d.decidedAtMs) + ': ', chosen(d),
        d.score === null ? '' : ' score ' + fmtNum(d.score, 3), ', ' + d.matchedPrefixBlocks + '/' + d.promptBlocks + ' prefix blocks matched, '
        + d.candidatesConsidered + ' candidate(s) considered' + (d.routerInstance ? ', router ' + d.routerInstance : '')),
      el('p', { class: 'sub', text: d.reason }),
      candidatesTable(d)));
  }
  if (s.attempts.length) {
    out.push(el('h2', { text: 'Runs' }));
    out.push(table([{ label: 'Run attempt', num: 1 }, { label: 'Dispatch attempt', num: 1 }, { label: 'Chunks', num: 1 }, 'First chunk',
      'Last chunk', 'Terminal', 'Worker', { label: 'TTFT ms', num: 1 }, { label: 'Decode ms', num: 1 }],
      s.attempts.map(a => el('tr', {}, num(a.runAttempt), num(a.dispatchAttempt), num(a.chunks), td(fmtTime(a.firstChunkAtMs), 'mono'),
        td(fmtTime(a.lastChunkAtMs), 'mono'), td(a.terminal ? [badge(a.terminal.status), a.terminal.error ? ' ' + a.terminal.error : ''] : ''),
        td(a.terminal ? a.terminal.workerId : '', 'mono'), num(a.terminal ? a.terminal.ttftMs : ''),
        num(a.terminal ? a.terminal.decodeMs : ''))), 'runs'));
  }
  return out;
}

// ---------- dead letters ----------
async function dlqPage() {
  const load = async () => {
    const data = await getJson('/api/dlq?limit=200');
    render([el('h1', { text: 'Dead letters' }),
      el('p', { class: 'sub', text: fmtNum(data.read) + ' dead letter(s) read; the newest ' + fmtNum(data.kept) + ' kept. Values are '
        + 'user data: only their size is shown.' }),
      el('h2', { text: 'By reason' }),
      data.reasons.length === 0 ? el('p', { class: 'empty', text: 'No dead letters.' }) :
        table([{ label: 'Count', num: 1 }, 'Source topic', 'Error', 'Last message', 'Last at'], data.reasons.map(r => el('tr', {},
          num(fmtNum(r.count)), td(r.sourceTopic, 'mono'), td(r.errorClass, 'mono'), td(r.lastMessage), td(fmtTime(r.lastAtMs), 'mono'))), 'reasons'),
      el('h2', { text: 'Newest first' }),
      data.recent.length === 0 ? '' :
        table(['Failed at', 'Key', 'Source', 'Error', 'Message', { label: 'Value bytes', num: 1 }], data.recent.map(d => el('tr', {},
          td(fmtTime(d.failedAtMs), 'mono'), td(d.key, 'mono'), td(d.sourceTopic + '-' + d.sourcePartition + '@' + d.sourceOffset, 'mono'),
          td(d.errorClass, 'mono'), td(d.errorMessage), num(fmtNum(d.valueBytes)))), 'dead-letters')]);
    setStatus('dead letters at ' + fmtTime(Date.now()));
  };
  await guarded(load);
  schedule(() => guarded(load));
}

async function guarded(fn, target) {
  try {
    await fn();
  } catch (e) {
    const box = el('p', { class: 'error', text: 'Could not load: ' + e.message });
    if (target) target.replaceChildren(box); else setStatus('error: ' + e.message);
  }
}

async function footer() {
  try {
    const info = await getJson('/api/info');
    document.getElementById('footer').textContent = 'Read-only view of ' + info.bootstrapServers + ', topics ' + info.topicPrefix + '.*'
      + (info.feedsFailure ? ' — reading stopped: ' + info.feedsFailure : '');
  } catch (e) { /* the page still works */ }
}

function start() {
  const path = location.pathname;
  const page = path.startsWith('/request') ? 'request' : path === '/decisions' ? 'decisions' : path === '/dlq' ? 'dlq' : 'fleet';
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.page === page);
  footer();
  if (page === 'request') {
    const id = path.startsWith('/request/') ? decodeURIComponent(path.slice('/request/'.length)) : '';
    return requestPage(id);
  }
  return page === 'decisions' ? decisionsPage() : page === 'dlq' ? dlqPage() : fleetPage();
}

start();

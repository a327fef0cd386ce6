// toolgate's page for the person in the loop. Plain DOM, no framework; every piece of data is
// set as text (never parsed as HTML), and every control, direction, invisible and format character
// is spelled out and marked.
'use strict';

const FOLD_AT = 120; // longer values are folded behind a "show all" disclosure
const SHOW_MAX = 20000; // and cut past this, saying how much was left out
let csrf = '';
const cards = new Map(); // pending id -> card element

function $(id) {
  return document.getElementById(id);
}

// The host's list of characters a person cannot see or that redraw text (controls, bidi, every
// Unicode format character such as zero-width ones and tag characters), put in by the server.
const HIDDEN_CLASS = '@@HIDDEN_CHARACTER_CLASS@@';
if (HIDDEN_CLASS.startsWith('@@')) throw new Error('toolgate: app.js was served without its hidden-character list');
const HIDDEN = new RegExp(HIDDEN_CLASS, 'gu');

/** `\uXXXX` per UTF-16 unit, as the host's escaper spells it (a tag character is a surrogate pair). */
function spelled(c) {
  let out = '';
  for (let i = 0; i < c.length; i++) out += '\\u' + c.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
}

/** Text a person can trust as a plain string: every hidden character spelled out. */
function visible(s) {
  return String(s).replace(HIDDEN, spelled);
}

/**
 * The same text as nodes: each spelled-out character in a marked span, so "\u200b" that was a
 * hidden character reads differently from those six characters typed.
 */
function shownNodes(s) {
  const text = String(s);
  const out = [];
  let at = 0;
  for (const m of text.matchAll(HIDDEN)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    const code = m[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0');
    const mark = document.createElement('mark');
    mark.className = 'hidden-char';
    mark.title = `hidden character U+${code}`;
    mark.textContent = spelled(m[0]);
    out.push(mark);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.replaceChildren(...shownNodes(v));
    else e.setAttribute(k, v === true ? '' : k === 'title' ? visible(v) : String(v));
  }
  for (const c of children) if (c) e.append(...(typeof c === 'string' ? shownNodes(c) : [c]));
  return e;
}

function announce(text) {
  $('announce').textContent = visible(text);
}

function formatLeft(ms) {
  if (ms <= 0) return 'expired';
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  return m > 0 ? `${m} min ${String(s % 60).padStart(2, '0')} s left` : `${s} s left`;
}

function whenText(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/** A value: short ones inline; long ones folded with their length, the whole text one click away. */
function valueNode(v) {
  const text = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  if (text === undefined) return el('code', { text: 'undefined' });
  if (text.length <= FOLD_AT && !text.includes('\n')) return el('code', { text });
  const shown = text.length > SHOW_MAX ? text.slice(0, SHOW_MAX) : text;
  const more =
    text.length > SHOW_MAX
      ? el('p', { class: 'hint', text: `(${text.length - SHOW_MAX} more characters not shown)` })
      : null;
  const head = text.slice(0, 80).replace(/\s+/g, ' ');
  return el(
    'details',
    { class: 'fold' },
    el('summary', {}, el('code', { text: head + '…' }), ` (${text.length} characters; show all)`),
    el('pre', { text: shown }),
    more,
  );
}

function argumentsNode(args) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return valueNode(args);
  const keys = Object.keys(args);
  if (keys.length === 0) return el('p', { class: 'hint', text: '(no arguments)' });
  const dl = el('dl', { class: 'args' });
  for (const k of keys) dl.append(el('dt', { text: k }), el('dd', {}, valueNode(args[k])));
  return dl;
}

function fact(dl, term, value) {
  dl.append(el('dt', { text: term }), el('dd', {}, typeof value === 'string' ? value : value));
}

function pendingCard(p) {
  const title = el(
    'h3',
    { id: `t-${p.id}` },
    el('span', { class: 'tool', text: p.tool }),
    p.version ? el('span', { class: 'version', text: ` ${p.version}` }) : null,
  );
  const facts = el('dl', { class: 'facts' });
  fact(facts, 'Signer', p.signer);
  fact(facts, 'Asked by', el('span', {}, el('code', { text: p.decidedBy }), ': ', p.reason));
  if (p.agent) fact(facts, 'Agent', p.agent);
  fact(facts, 'Asked at', whenText(p.createdAt));
  const left = el(
    'span',
    { class: 'left', 'data-expires': p.expiresAt || '' },
    p.expiresAt ? formatLeft(Date.parse(p.expiresAt) - Date.now()) : 'no limit',
  );
  fact(facts, 'Time left', left);
  const caps = el('ul', { class: 'caps' });
  for (const c of p.capabilities) caps.append(el('li', { text: c }));
  if (p.capabilities.length === 0) caps.append(el('li', { text: 'nothing beyond computing: no network, no files' }));
  const result = el('p', { class: 'result', role: 'status' });
  const allow = el(
    'button',
    { type: 'button', class: 'allow', 'aria-describedby': `t-${p.id}` },
    el('span', { 'aria-hidden': 'true' }, '✓ '),
    'Allow once',
  );
  const deny = el(
    'button',
    { type: 'button', class: 'deny', 'aria-describedby': `t-${p.id}` },
    el('span', { 'aria-hidden': 'true' }, '✗ '),
    'Deny',
  );
  allow.addEventListener('click', () => answer(p, 'allowed-once', card));
  deny.addEventListener('click', () => answer(p, 'rejected', card));
  const card = el(
    'li',
    { class: 'card pending', 'data-id': p.id, 'data-tool': p.tool, 'aria-labelledby': `t-${p.id}` },
    title,
    facts,
    el('h4', { text: 'May touch' }),
    caps,
    el('h4', { text: 'Arguments' }),
    argumentsNode(p.arguments),
    el('div', { class: 'actions' }, allow, deny),
    result,
  );
  card.dataset.args = argumentsLine(p.arguments);
  card.dataset.shownAt = String(Date.now());
  return card;
}

async function answer(p, outcome, card) {
  // Disabling the focused button drops focus to the body; remember it so it can be put back.
  card.dataset.hadFocus = String(card.contains(document.activeElement));
  card.dataset.answering = 'true';
  for (const b of card.querySelectorAll('button')) b.disabled = true;
  const result = card.querySelector('.result');
  result.textContent = 'Sending…';
  let res;
  try {
    res = await fetch(`/ui/api/approvals/${encodeURIComponent(p.id)}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ outcome }),
    });
  } catch (err) {
    result.textContent = 'Could not reach toolgate: the answer was not delivered. Try again.';
    card.dataset.answering = 'false';
    for (const b of card.querySelectorAll('button')) b.disabled = false;
    return;
  }
  const body = await res.json().catch(() => ({}));
  const message = res.ok ? body.message : (body.error && body.error.message) || `toolgate answered HTTP ${res.status}`;
  result.textContent = visible(message);
  card.classList.add(res.ok ? 'answered' : 'refused');
  // The card leaves when the queue changes; the notice keeps what happened in view.
  showNotice(`${res.ok ? '' : 'Not answered: '}${p.tool} (${argumentsLine(p.arguments)}): ${message}`);
  if (res.status === 401) location.reload();
}

function showNotice(text) {
  const notice = $('notice');
  notice.hidden = false;
  notice.textContent = visible(text);
}

/** A card this page did not answer is leaving: say why (expired, answered elsewhere, withdrawn). */
function endedElsewhere(list) {
  for (const x of list) {
    const card = cards.get(x.id);
    if (!card || card.dataset.answering === 'true') continue;
    card.dataset.endedElsewhere = 'true';
    showNotice(`${card.dataset.tool} (${card.dataset.args}): ${x.message}`);
  }
}

function argumentsLine(args) {
  const text = JSON.stringify(args) || '';
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function renderPending(list) {
  const ol = $('pending-list');
  const ids = new Set(list.map((p) => p.id));
  for (const [id, card] of cards) {
    if (ids.has(id)) continue;
    // Keyboard users keep their place: focus moves to the next card's first button, or the heading.
    const active = document.activeElement;
    const hadFocus =
      card.contains(active) || (card.dataset.hadFocus === 'true' && (!active || active === document.body));
    const next = card.nextElementSibling || card.previousElementSibling;
    card.remove();
    cards.delete(id);
    if (hadFocus) (next ? next.querySelector('button') : $('h-pending')).focus();
  }
  for (const p of list) {
    if (cards.has(p.id)) continue;
    const card = pendingCard(p);
    cards.set(p.id, card);
    ol.append(card);
    announce(`Approval needed: ${p.tool}`);
  }
  $('pending-empty').hidden = list.length > 0;
  $('pending-count').textContent = `(${list.length})`;
  document.title = list.length > 0 ? `(${list.length}) toolgate: approvals` : 'toolgate: approvals';
}

function tick() {
  for (const span of document.querySelectorAll('.left[data-expires]')) {
    const at = Date.parse(span.dataset.expires);
    if (Number.isNaN(at)) continue;
    const ms = at - Date.now();
    span.textContent = formatLeft(ms);
    const card = span.closest('.card');
    if (ms <= 0 && card && !card.classList.contains('expired')) {
      card.classList.add('expired');
      for (const b of card.querySelectorAll('button')) b.disabled = true;
      card.querySelector('.result').textContent = 'Expired with no answer: the call was denied.';
    }
  }
}

const OUTCOME_TEXT = { ok: '✓ ok', denied: '✗ denied', failed: '! failed' };

function approvalText(a) {
  if (!a) return '—';
  const what =
    {
      'allowed-once': 'allowed once',
      rejected: 'denied',
      timeout: 'expired, denied',
      cancelled: 'cancelled',
      unavailable: 'no one to ask',
    }[a.outcome] || a.outcome;
  return a.answeredBy ? `${what} by ${a.answeredBy}` : what;
}

/** Whole milliseconds; a tenth below 10 ms, where it still says something. */
function durationText(ms) {
  if (ms === null || typeof ms !== 'number') return '—';
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

function renderRecent(r) {
  const v = r.verify;
  const verify = $('audit-verify');
  verify.className = `verify ${v.state}`;
  verify.textContent = visible(
    {
      ok: `✓ audit verify: the chain of ${v.records} records is intact (${r.auditPath})`,
      broken: `✗ audit verify FAILED at line ${v.line}: ${v.reason} (${r.auditPath})`,
      missing: `No audit log at ${r.auditPath} yet (the policy set needs an audit-log entry).`,
      'too-large': `The audit log is ${v.bytes} bytes; run toolgate audit verify ${r.auditPath}`,
    }[v.state] || v.state,
  );
  const body = $('recent-body');
  body.replaceChildren();
  for (const c of r.calls) {
    const outcome = OUTCOME_TEXT[c.outcome] + (c.errorCode ? ` (${c.errorCode})` : '');
    body.append(
      el(
        'tr',
        { class: `call ${c.outcome}`, 'data-tool': c.tool, title: c.message },
        el('td', { 'data-label': 'Time' }, el('time', { datetime: c.time, text: whenText(c.time) })),
        el('td', { 'data-label': 'Tool', text: c.tool }),
        el('td', { 'data-label': 'Outcome', class: 'outcome', text: outcome }),
        el('td', { 'data-label': 'Decided by', text: c.decidedBy || 'default' }),
        el('td', { 'data-label': 'Approval', class: 'approval', text: approvalText(c.approval) }),
        el('td', { 'data-label': 'Duration', text: durationText(c.durationMs) }),
      ),
    );
  }
  $('recent-empty').hidden = r.calls.length > 0;
  $('recent-table').hidden = r.calls.length === 0;
}

function renderTools(t) {
  $('queue-off').hidden = t.queueInUse !== false;
  const p = t.policy;
  const policy = $('policy');
  const entries = el('ol', { class: 'entries' });
  for (const e of p.entries) entries.append(el('li', {}, el('code', { text: e.id }), ` (${e.use})`));
  const parts = [
    el('h3', { text: 'Policy set in force' }),
    el('p', { text: p.description }),
    el('p', { text: `Loaded ${whenText(p.loadedAt)}` }),
    p.entries.length > 0 ? entries : null,
    p.lastRejected
      ? el('p', {
          class: 'error',
          text: `✗ A reload was refused at ${whenText(p.lastRejected.at)}; the set above stays: ${p.lastRejected.error}`,
        })
      : null,
  ];
  policy.replaceChildren(...parts.filter(Boolean));
  const ol = $('tools-list');
  ol.replaceChildren();
  for (const tool of t.tools) {
    const facts = el('dl', { class: 'facts' });
    fact(facts, 'Signer', tool.signer);
    fact(facts, 'From', el('code', { text: tool.source }));
    fact(
      facts,
      'Module',
      tool.sha256
        ? el(
            'span',
            {},
            el('code', { class: 'digest', text: tool.sha256 }),
            tool.pinned ? ' (pinned)' : ' (not pinned by the manifest)',
          )
        : '—',
    );
    const caps = el('ul', { class: 'caps' });
    for (const c of tool.capabilities) caps.append(el('li', { text: c }));
    ol.append(
      el(
        'li',
        { class: 'card tool', 'data-tool': tool.name },
        el(
          'h3',
          {},
          el('span', { class: 'tool', text: tool.name }),
          tool.version ? el('span', { class: 'version', text: ` ${tool.version}` }) : null,
        ),
        tool.problem ? el('p', { class: 'error', text: `Problem: ${tool.problem}` }) : null,
        facts,
        el('h4', { text: 'May touch' }),
        caps,
      ),
    );
  }
}

function showView() {
  const name = ['pending', 'recent', 'tools'].includes(location.hash.slice(1)) ? location.hash.slice(1) : 'pending';
  for (const v of ['pending', 'recent', 'tools']) {
    $(`view-${v}`).hidden = v !== name;
    const link = $(`nav-${v}`);
    if (v === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function connect() {
  const source = new EventSource('/ui/api/events');
  source.addEventListener('open', () => {
    $('connection').textContent = 'Live: updates arrive as they happen.';
    $('connection').className = 'connection live';
  });
  source.addEventListener('error', () => {
    $('connection').textContent = 'Disconnected: reconnecting…';
    $('connection').className = 'connection down';
  });
  source.addEventListener('ended', (e) => endedElsewhere(JSON.parse(e.data)));
  source.addEventListener('pending', (e) => renderPending(JSON.parse(e.data)));
  source.addEventListener('recent', (e) => renderRecent(JSON.parse(e.data)));
  source.addEventListener('tools', (e) => renderTools(JSON.parse(e.data)));
}

async function start() {
  showView();
  window.addEventListener('hashchange', showView);
  const res = await fetch('/ui/api/state', { credentials: 'same-origin' });
  if (res.status === 401) {
    location.reload();
    return;
  }
  const state = await res.json();
  csrf = state.csrf;
  $('logout-csrf').value = csrf;
  renderPending(state.pending);
  renderRecent(state.recent);
  renderTools(state.tools);
  connect();
  setInterval(tick, 1000);
}

document.addEventListener('DOMContentLoaded', () => {
  void start();
});

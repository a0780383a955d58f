'use strict';
// coord ui: one page, one JSON endpoint per tab (/api/<page>), polled every second. Plain DOM, no build step.
const PAGES = ['locks', 'queues', 'elections', 'barriers', 'config', 'findings'];
const POLL_MS = 1000;
let page = 'locks';
let polls = 0;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) {
    if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
  }
  return e;
}
const none = (text) => el('div', {class: 'none'}, text);
const badge = (text, kind) => el('span', {class: 'badge ' + kind}, text);

function table(headers, rows) {
  if (rows.length === 0) return null;
  return el('table', {}, el('tr', {}, headers.map(h => el('th', {}, h))),
    rows.map(r => el('tr', {}, r.map(c => el('td', {}, c === null || c === undefined ? '-' : c)))));
}

function age(iso, now) {
  if (!iso) return '-';
  return ms(Date.parse(now) - Date.parse(iso));
}

function ms(n) {
  const s = Math.max(0, Math.round(n / 1000));
  return s < 120 ? s + 's' : s < 7200 ? Math.floor(s / 60) + 'm' : Math.floor(s / 3600) + 'h';
}

const hex = (n) => '0x' + Number(n).toString(16);
const who = (e) => e.owner ? e.owner + (e.pid ? ' pid ' + e.pid : '') + (e.host ? ' on ' + e.host : '') : '(no holder info)';
const json = (v) => typeof v === 'string' ? v : JSON.stringify(v);

const render = {
  locks(d) {
    if (d.locks.length === 0) return [none('no locks under /locks')];
    return d.locks.map(l => el('section', {'data-lock': l.path},
      el('h2', {}, l.path, l.holders.length ? badge('held', 'warn') : badge('free', 'ok'),
        l.waiters.length ? badge(l.waiters.length + ' waiting', 'info') : null),
      el('h3', {}, 'holders'),
      table(['holder', 'type', 'token', 'held since', 'held for', 'session'],
        l.holders.map(h => [who(h), h.type, hex(h.token), h.heldSince || '<1s', age(h.heldSince || h.queuedAt, d.at), h.sessionId]))
        || none('none (free)'),
      el('h3', {}, 'waiters'),
      table(['#', 'waiter', 'type', 'queued at', 'waiting', 'session'],
        l.waiters.map((w, i) => [i + 1, who(w), w.type, w.queuedAt, age(w.queuedAt, d.at), w.sessionId])) || none('none'),
      l.foreign.length ? el('div', {class: 'badge bad'}, 'foreign nodes: ' + l.foreign.join(', ')) : null));
  },
  queues(d) {
    if (d.queues.length === 0) return [none('no queues under /queues')];
    return d.queues.map(q => q.incomplete ? el('section', {}, el('h2', {}, q.queue), none(q.incomplete)) :
      el('section', {'data-queue': q.queue},
        el('h2', {}, q.queue, badge('depth ' + q.depth + ' / ' + q.depthCap, 'info'),
          q.deadCount ? badge(q.deadCount + ' dead', 'bad') : null),
        el('div', {}, q.ready + ' ready, ' + q.delayed + ' delayed, ' + q.claims.length + ' claimed; oldest pending '
          + ms(q.oldestPendingAgeMs)),
        el('h3', {}, 'claims'),
        table(['task', 'worker', 'age', 'attempts'], q.claims.map(c => [c.task, c.worker, ms(c.ageMs), c.attempts])) || none('none'),
        el('h3', {}, 'dead letters'),
        table(['task', 'attempts', 'deliveries', 'last error', 'payload'],
          q.dead.map(t => [t.id, t.attempts, t.deliveries, t.lastError, json(t.payload)])) || none('none'),
        q.undecodable.length ? el('div', {class: 'badge bad'}, q.undecodable.length + ' undecodable node(s)') : null));
  },
  elections(d) {
    const elections = d.elections.length === 0 ? [none('no elections under /elections')] : d.elections.map(e =>
      el('section', {'data-election': e.election},
        el('h2', {}, e.path, e.leader ? badge('leader ' + e.leader.id, 'ok') : badge('no leader', 'bad')),
        e.leader ? el('div', {}, 'leader ' + e.leader.id + '  epoch ' + e.leader.epochHex
          + (e.leader.acting ? '  acting since ' + e.leader.since : '  elected, not acting yet')) : null,
        el('h3', {}, 'candidates, in the order they lead'),
        table(['#', 'id', 'epoch', 'joined', 'library'],
          e.candidates.map((c, i) => [i + 1, c.id, hex(c.epoch), c.joinedAt, c.library])) || none('none')));
    const groups = d.groups.length === 0 ? [none('no groups under /groups')] : d.groups.map(g =>
      el('section', {'data-group': g.group},
        el('h2', {}, '/groups/' + g.group, badge(g.members.length + ' members', 'info'),
          g.flaps.length ? badge(g.flaps.length + ' flapping', 'warn') : null),
        table(['member', 'joined', 'session', 'metadata', 'flaps'], g.members.map(m => {
          const f = g.flaps.find(x => x.id === m.id);
          return [m.id, m.joinedAt, m.session, json(m.metadata), f ? f.count : 0];
        })) || none('no members'),
        g.flaps.length ? table(['flapped', 'count', 'last', 'down'],
          g.flaps.map(f => [f.id, f.count, f.lastAt, f.downtimeMs + ' ms'])) : null));
    return [el('h3', {}, 'elections'), ...elections, el('h3', {}, 'groups'), ...groups];
  },
  barriers(d) {
    if (d.barriers.length === 0) return [none('no barriers under /barriers')];
    return d.barriers.map(b => el('section', {'data-barrier': b.name},
      el('h2', {}, '/barriers/' + b.name, !b.exists ? badge('never used', 'info')
        : b.broken ? badge('BROKEN', 'bad') : badge(b.phase, 'ok')),
      b.exists ? el('div', {}, 'generation ' + b.generation + ', ' + b.phase + (b.since ? ' since ' + b.since : '')
        + ', parties ' + b.parties + ', arrived ' + b.arrived.length
        + (b.missing.length ? ', missing: ' + b.missing.join(', ') : '')) : null,
      b.broken ? el('div', {class: 'badge bad'}, 'broken during ' + b.brokenIn + ': ' + b.reason) : null,
      b.exists ? table(['#', 'member', 'arrived at', 'left', 'present'],
        b.arrived.map(a => [a.sequence, a.member, a.arrivedAt, a.left ? 'yes' : 'no', a.present ? 'yes' : 'gone'])) : null));
  },
  config(d) {
    if (d.keys.length === 0) return [none('no config keys under /config')];
    return d.keys.map(k => el('section', {'data-key': k.path},
      el('h2', {}, k.path, k.version === null ? badge('not released', 'info') : badge('v' + k.version, 'ok'),
        k.canary ? badge('canary ' + k.canary.percent + '%', 'warn') : null),
      k.error ? el('div', {class: 'badge bad'}, k.error) : null,
      k.version !== null && k.version !== undefined ? el('div', {}, 'released v' + k.version + ': ' + json(k.value)) : null,
      k.canary ? el('div', {}, 'canary offered to ' + k.canary.percent + '%: ' + k.canary.value) : null,
      el('h3', {}, 'who runs what'),
      table(['instance', 'version', 'canary', 'stale', 'applied at'], (k.instances || []).map(i =>
        [i.instance, i.version < 0 ? 'default' : 'v' + i.version, i.canary ? 'yes' : '', i.stale ? 'stale' : '', i.appliedAt]))
        || none('no live readers'),
      el('h3', {}, 'history (newest first)'),
      table(['version', 'modified', 'value'], (k.history || []).map(h => [h.version, h.modified, h.value])) || none('none')));
  },
  findings(d) {
    if (!d.doctor) return [none('no doctor checks are wired into this console (coord doctor runs them)')];
    if (d.findings.length === 0) return [none('no findings: the doctor saw nothing wrong')];
    const kind = {ERROR: 'bad', WARNING: 'warn', INFO: 'info'};
    return [el('section', {}, table(['severity', 'check', 'path', 'seen', 'advice'],
      d.findings.map(f => [badge(f.severity, kind[f.severity]), f.check, f.path, f.seen, f.advice])))];
  },
};

async function poll() {
  const shown = page;
  const status = document.getElementById('status');
  try {
    const r = await fetch('api/' + shown, {cache: 'no-store'});
    const d = await r.json();
    if (shown !== page) return;
    if (!r.ok) throw new Error(d.error || ('HTTP ' + r.status));
    document.getElementById('view').replaceChildren(...render[shown](d));
    polls++;
    document.body.dataset.polls = polls;
    status.className = '';
    status.textContent = 'updated ' + d.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  } catch (e) {
    status.className = 'error';
    status.textContent = 'cannot read ' + shown + ': ' + e.message + ' (retrying)';
  }
}

function show() {
  const wanted = location.hash.replace('#', '');
  page = PAGES.includes(wanted) ? wanted : 'locks';
  for (const a of document.querySelectorAll('#tabs a')) a.classList.toggle('active', a.dataset.page === page);
  document.getElementById('view').replaceChildren();
  poll();
}

window.addEventListener('hashchange', show);
show();
setInterval(poll, POLL_MS);

// The page: everything it shows comes from the agent's control methods, called through
// /api/rpc with the page's CSRF token, and is read again whenever the agent reports a change
// (/api/events); transfers' progress and rates, which no event reports, every 2 s.
import { call, known, actions, act, hooks, serial, setProblem, succeeded, deviceName } from './api.js';
import { el, button, cell, timeEl, setText, changed, keepFocus, confirmDialog } from './dom.js';
import * as model from './model.js';
import { loadConflicts } from './conflicts.js';
import { openDetails, closeDetails, loadDetails, openContainer, showDetailsStatus } from './details.js';
import { loadKeyValueStores, showRecordStores } from './stores.js';

export { call };

const counters = new Map(); // device → {time, sent, received}, to tell rates from peers.list
const estimates = new Map(); // container → model.nextEstimate state
// Null until the first status: the conflicts are loaded then, whatever it says.
let conflictSignature = null;

function showHeader(status) {
  const account = status.identityToken ? `account ${model.shorten(status.identityToken)}` : 'signed out';
  setText(document.querySelector('#this-device'),
    `${status.device.name} (${status.device.id}) · ${account} · ubiq ${status.agentVersion}${status.paused ? ' · all syncing paused' : ''}`);
  const pause = document.querySelector('#pause-all');
  pause.hidden = false;
  pause.dataset.action = status.paused ? 'resume-all' : 'pause-all';
  setText(pause, status.paused ? 'Resume all syncing' : 'Pause all syncing');
}

function peerRates(peers, limits) {
  const now = Date.now();
  const rates = new Map();
  for (const peer of peers) {
    const last = counters.get(peer.deviceID);
    if (last && now > last.time) {
      const seconds = (now - last.time) / 1000;
      rates.set(peer.deviceID, {
        send: Math.max(0, (peer.bytesSent - last.sent) / seconds),
        receive: Math.max(0, (peer.bytesReceived - last.received) / seconds),
      });
    }
    counters.set(peer.deviceID, { time: now, sent: peer.bytesSent, received: peer.bytesReceived });
  }
  // What the agent measured over the last second is better than a difference over 2 s.
  for (const peer of limits.peers ?? []) rates.set(peer.device, { send: peer.send.rate, receive: peer.receive.rate });
  return rates;
}

function showDevices(devices, rates) {
  const body = document.querySelector('#devices tbody');
  const rows = devices.map((device) => {
    const state = device.removed ? 'removed' : device.thisDevice ? 'this device' : device.connected ? 'connected' : 'not connected';
    const rate = rates.get(device.id);
    const connected = device.connected && !device.removed && !device.thisDevice;
    return { device, state, send: connected ? model.formatRate(rate?.send ?? 0) : '', receive: connected ? model.formatRate(rate?.receive ?? 0) : '' };
  });
  // Relative times age, so the rows are built anew at least every half minute.
  if (!changed(body, [rows, Math.floor(Date.now() / 30000)])) return;
  keepFocus(body, () => body.replaceChildren(...rows.map(deviceRow)), document.querySelector('#devices-heading'));
}

function deviceRow({ device, state, send, receive }) {
  return el('tr', { data: { device: device.id } },
    cell('Name', el('span', { class: 'name' }, device.name), device.thisDevice ? el('span', { class: 'tag' }, 'this device') : '',
      el('span', { class: 'muted id' }, device.id)),
    cell('State', state, device.removed && device.removedAt ? [' ', timeEl(device.removedAt)] : ''),
    cell('Addresses', (device.addresses?.length ? device.addresses : [device.address].filter(Boolean)).join(', ')),
    // A device connected now is seen now, whenever its connection began.
    cell('Last seen', device.connected && !device.thisDevice && !device.removed ? 'now' : timeEl(device.lastSeen)),
    cell('Sending', send),
    cell('Receiving', receive),
    cell('Actions', device.thisDevice || device.removed ? ''
      : button('Remove', 'remove-device', { device: device.id }, { 'aria-label': `Remove ${device.name} from the account` })));
}

function showContainers(status) {
  const list = document.querySelector('#containers');
  const now = Date.now();
  const cards = status.containers.map((container) => {
    const estimate = model.nextEstimate(estimates.get(container.id), now, container.needBytes);
    estimates.set(container.id, estimate);
    const left = model.timeLeft(estimate);
    return { container, state: model.containerState(container, status.paused), progress: model.progressOf(container), left };
  });
  if (changed(list, cards)) {
    keepFocus(list, () => list.replaceChildren(...cards.map(containerCard)), document.querySelector('#containers-heading'));
  }
  const notSynced = document.querySelector('#containers-not-synced');
  if (changed(notSynced, status.containersNotSynced ?? [])) {
    notSynced.replaceChildren(...(status.containersNotSynced ?? []).map((c) => el('li', {}, `${c.id} (${c.path}) is not synced: ${c.reason}`)));
  }
}

function containerCard({ container: c, state, progress, left }) {
  const failures = c.failures ?? [];
  const notSynced = (c.notSynced?.length ?? 0) + (c.notSyncedMore ?? 0);
  return el('li', { data: { container: c.id } },
    el('h3', {}, c.id),
    el('p', { class: 'muted path' }, c.path),
    el('p', { class: `state ${state.replace(/ /g, '-')}` }, state),
    c.reason ? el('p', { class: 'warn', role: 'alert' }, `Not synced: ${c.reason}`) : '',
    c.heldDeletions ? el('div', { class: 'warn banner', role: 'alert' },
      el('p', {}, `${model.count(c.heldDeletions.count, 'file')} deleted here at once ${c.heldDeletions.count === 1 ? 'is' : 'are'} held, not sent to the other devices`
        + ` (${c.heldDeletions.sample.slice(0, 3).join(', ')}${c.heldDeletions.count > 3 ? ', …' : ''}).`),
      button('Restore the files', 'restore-deletions', {}, { 'aria-label': `Restore the files deleted in ${c.id}` }),
      button('Delete them everywhere', 'confirm-deletions', {}, { 'aria-label': `Send the deletions of ${c.id} to every device` })) : '',
    state === 'syncing' && progress ? el('p', { class: 'progress' },
      el('progress', { max: progress.total, value: progress.done, 'aria-label': `${c.id} fetched` }),
      ` ${Math.floor((progress.done / progress.total) * 100)} %${left != null ? `, about ${model.formatDuration(left)} left` : ''}`) : '',
    el('dl', { class: 'facts' },
      el('dt', {}, 'Size'), el('dd', {}, `${model.formatBytes(c.bytes)} in ${model.count(c.files, 'file')}`),
      el('dt', {}, 'To fetch'), el('dd', {}, c.needItems > 0 ? `${model.count(c.needItems, 'item')}, ${model.formatBytes(c.needBytes)}` : 'nothing'),
      el('dt', {}, 'Mode'), el('dd', {}, c.mode ?? 'send-receive'),
      el('dt', {}, 'Download'), el('dd', {}, c.download === 'all' || !c.download ? 'everything' : `on demand (${c.notDownloaded ?? 0} not downloaded)`),
      c.conflicts > 0 ? [el('dt', {}, 'Conflicts'), el('dd', {}, String(c.conflicts))] : ''),
    failures.length ? el('ul', { class: 'failures', 'aria-label': 'Changes that could not be applied' },
      failures.map((f) => el('li', {}, el('span', { class: 'path' }, f.path), `: ${f.error ?? f.reason ?? ''}`))) : '',
    notSynced ? el('p', { class: 'warn' }, `${model.count(notSynced, 'item')} on disk not synced`) : '',
    el('div', { class: 'buttons' },
      c.paused ? button('Resume', 'resume', {}, { 'aria-label': `Resume ${c.id}` }) : button('Pause', 'pause', {}, { 'aria-label': `Pause ${c.id}` }),
      button('Open', 'open', {}, { 'aria-label': `Open ${c.id}` })));
}

function showLimits(limits) {
  setText(document.querySelector('#rates'),
    `Sending ${model.formatRate(limits.send.rate)}, receiving ${model.formatRate(limits.receive.rate)}, over all devices.`);
  for (const [id, value] of [['#limit-send', limits.send.limit], ['#limit-receive', limits.receive.limit]]) {
    const input = document.querySelector(id);
    // Leave what the person is typing alone.
    if (document.activeElement === input || input.dataset.edited === 'true') continue;
    input.value = model.limitText(value);
  }
}

async function refresh() {
  // The status first: it is also what a signed-out agent still answers.
  const status = await call('agent.status');
  known.status = status;
  showHeader(status);
  showContainers(status);
  showRecordStores(status);
  showDetailsStatus();
  const [devices, peers, limits] = await Promise.all([call('devices.list'), call('peers.list'), call('limits.get')]);
  known.devices = new Map(devices.map((d) => [d.id, d]));
  showDevices(devices, peerRates(peers, limits));
  showLimits(limits);
  const signature = status.containers.map((c) => `${c.id}:${c.conflicts}`).join(' ');
  if (signature !== conflictSignature) {
    conflictSignature = signature;
    loadConflicts();
  }
}

const poll = serial(async () => {
  try {
    await refresh();
    succeeded('reach');
  } catch (error) {
    setProblem('reach', error);
  }
});

// --- Actions ---

const containerOf = (b) => b.closest('[data-container]').dataset.container;

actions['pause-all'] = (b) => act(b, async () => { await call('sync.pause'); return 'All syncing paused.'; });
actions['resume-all'] = (b) => act(b, async () => { await call('sync.resume'); return 'Syncing resumed.'; });
actions.pause = (b) => act(b, async () => { await call('sync.pause', { container: containerOf(b) }); return `${containerOf(b)} paused.`; });
actions.resume = (b) => act(b, async () => { await call('sync.resume', { container: containerOf(b) }); return `${containerOf(b)} syncs again.`; });
actions['restore-deletions'] = (b) => act(b, async () => {
  const result = await call('deletions.restore', { container: containerOf(b) });
  return `${model.count(result.restoring ?? 0, 'file')} being put back in ${containerOf(b)}.`;
});
actions['confirm-deletions'] = async (b) => {
  const container = containerOf(b);
  if (!await confirmDialog(`Delete these files on every device of the account? They stay in each device's history for a while.`, 'Delete them everywhere')) return;
  await act(b, async () => {
    const result = await call('deletions.confirm', { container });
    return `${model.count(result.confirmed ?? 0, 'deletion')} sent from ${container}.`;
  });
};
actions.open = (b) => { location.hash = `#/c/${encodeURIComponent(containerOf(b))}`; };
actions['close-details'] = () => { location.hash = '#/'; };

actions['remove-device'] = async (b) => {
  const id = b.dataset.device;
  const name = deviceName(id);
  if (!await confirmDialog(`Remove ${name} (${id}) from the account? It can no longer sync with any device of the account, and has to join again to come back.`, `Remove ${name}`)) return;
  await act(b, async () => { await call('device.remove', { device: id }); return `${name} was removed from the account.`; });
};

actions.invite = (b) => act(b, async () => {
  const invitation = await call('device.invite');
  document.querySelector('#invite-code').textContent = invitation.code;
  const expires = new Date(invitation.expiresAt);
  document.querySelector('#invite-expiry').textContent = `Valid once, until ${expires.toLocaleTimeString()} (${model.relativeTime(invitation.expiresAt)}).`;
  // Where mDNS does not reach (or discovery is off here) the new workstation needs this one's join address.
  const peer = ` --peer ${invitation.host ?? 'THIS-HOST'}:${invitation.port}`;
  document.querySelector('#invite-command').textContent =
    `ubiq account join --code ${invitation.code}${invitation.discovery ? '' : peer}` + (invitation.discovery ? ` (add${peer} where mDNS does not reach), then start ubiqd there` : ', then start ubiqd there');
  document.querySelector('#invite-result').hidden = false;
});

actions.limits = (form) => act(form.querySelector('button'), async () => {
  const send = form.querySelector('#limit-send');
  const receive = form.querySelector('#limit-receive');
  const limits = await call('limits.set', { send: model.parseLimit(send.value, 'send'), receive: model.parseLimit(receive.value, 'receive') });
  for (const input of [send, receive]) delete input.dataset.edited;
  send.value = model.limitText(limits.send.limit);
  receive.value = model.limitText(limits.receive.limit);
  return 'Limits saved.';
});

document.addEventListener('click', (event) => {
  const target = event.target.closest('button[data-action]');
  if (target && actions[target.dataset.action]) actions[target.dataset.action](target);
});
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!form.dataset.submit) return;
  event.preventDefault();
  actions[form.dataset.submit]?.(form);
});
document.addEventListener('input', (event) => {
  if (event.target.matches('#limit-send, #limit-receive')) event.target.dataset.edited = 'true';
});

// --- Routes: #/c/<container> opens a container's details ---

function route() {
  const match = /^#\/c\/(.+)$/.exec(location.hash);
  if (match) openDetails(decodeURIComponent(match[1]));
  else if (location.hash === '' || location.hash === '#/') closeDetails();
}
window.addEventListener('hashchange', route);

// --- Keeping up with the agent ---

let pending = new Set();
let timer = null;

/** Reads again what may have changed: everything, or what concerns `containers`. */
function everythingChanged(containers) {
  // Conflicts after the status, which says which containers have some.
  poll().then(() => loadConflicts());
  // No file event tells of key-value changes.
  if (!containers) loadKeyValueStores();
  const open = openContainer();
  if (open && (!containers || containers.has(open))) loadDetails(true);
}
hooks.changed = () => everythingChanged(null);

function itemChanged(event) {
  try {
    pending.add(JSON.parse(event.data).container);
  } catch {
    pending.add(null);
  }
  // At most one reading per 100 ms, also while a large sync sends events without pause.
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    const containers = pending.has(null) ? new Set(known.status?.containers.map((c) => c.id)) : pending;
    pending = new Set();
    everythingChanged(containers);
  }, 100);
}

// EventSource connects again by itself when the stream ends (the agent restarted), but gives
// up for good on an answer other than 200 (503 while the agent is down): then a new one.
function listen() {
  const events = new EventSource('/api/events');
  events.addEventListener('events.item', itemChanged);
  events.addEventListener('open', () => everythingChanged(null));
  events.addEventListener('error', () => {
    if (events.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
  });
}
listen();

let ticks = 0;
setInterval(() => {
  ticks += 1;
  poll();
  if (openContainer()) loadDetails(false);
  if (ticks % 5 === 0) loadKeyValueStores();
}, 2000);

// The details wait for the first status, which says how the container downloads and names devices.
poll().finally(() => {
  route();
  loadKeyValueStores();
});

// One container opened (#/c/<id>): its files by folder, its history with a timeline to put
// a folder back as it was, its trash, and its ignore patterns. Read only while it is open.
import { call, actions, act, serial, setProblem, succeeded, deviceName, containerStatus } from './api.js';
import { el, button, cell, timeEl, setText, changed, keepFocus } from './dom.js';
import * as model from './model.js';

let open = null; // {id, folder}
let steps = []; // the timeline's times (ms); the last one stands for now
let pendingSteps = null;
let ignoreRead = null; // the .ubiqignore text as last read, to tell whether the person edited it

const $ = (selector) => document.querySelector(selector);

export function openContainer() {
  return open?.id ?? null;
}

export function openDetails(id) {
  if (open?.id === id) return;
  open = { id, folder: '' };
  $('#details').hidden = false;
  setText($('#details-heading'), id);
  for (const body of document.querySelectorAll('#details tbody')) body.replaceChildren();
  $('#breadcrumbs').replaceChildren();
  $('#restore-result').replaceChildren();
  delete $('#restore-folder-path').dataset.edited;
  defaultRestorePath();
  steps = [];
  pendingSteps = null;
  setSteps([Date.now()]);
  ignoreRead = null;
  $('#ignore-text').value = '';
  showDetailsStatus();
  loadDetails(true);
  $('#details-heading').focus();
}

export function closeDetails() {
  if (!open) return;
  const id = open.id;
  open = null;
  $('#details').hidden = true;
  const back = document.querySelector(`#containers [data-container="${CSS.escape(id)}"] button[data-action="open"]`);
  (back ?? $('#containers-heading')).focus();
}

/** Files every time; history, trash and ignore patterns only when something changed (`full`). */
export function loadDetails(full) {
  if (!open) return;
  loadFiles();
  showPicked();
  if (full) {
    loadHistory();
    loadIgnore();
  }
}

/** What agent.status tells of the open container: its folder and its ignore problems. */
export function showDetailsStatus() {
  if (!open) return;
  const status = containerStatus(open.id);
  setText($('#details-path'), status ? `${status.path}${status.paused ? ' (paused)' : ''}` : '');
  const problems = status?.ignore?.problems ?? [];
  const list = $('#ignore-problems');
  if (changed(list, problems)) list.replaceChildren(...problems.map((p) => el('li', {}, `Left out: ${p}`)));
}

// --- Files ---

const loadFiles = serial(async () => {
  if (!open) return;
  const { id, folder } = open;
  try {
    const items = await call('items.list', folder ? { container: id, path: folder } : { container: id });
    if (open?.id !== id || open.folder !== folder) return;
    showFiles(items);
    succeeded('files');
  } catch (error) {
    if (open?.id === id && folder && (error.code === -32004 || error.code === -32005)) {
      // The folder went away (here or on another device): show the one around it.
      goTo(model.folderOf(folder));
      return;
    }
    setProblem('files', error, loadFiles);
  }
});

function goTo(folder) {
  open.folder = folder;
  defaultRestorePath();
  loadFiles();
}

function showFiles(items) {
  const status = containerStatus(open.id);
  const onDemand = status?.download === 'on-demand' || status?.download === 'onDemand';
  const section = $('#files');
  const body = section.querySelector('tbody');
  showCrumbs();
  section.querySelector('.empty').hidden = items.length > 0;
  section.querySelector('table').hidden = items.length === 0;
  if (!changed(body, [open.id, open.folder, items, onDemand, Math.floor(Date.now() / 30000)])) return;
  keepFocus(body, () => body.replaceChildren(...model.sortItems(items).map((item) => fileRow(item, onDemand))), $('#files-heading'));
}

function fileRow(item, onDemand) {
  const name = model.nameOf(item.path);
  const hasContent = item.kind === 'file' || item.kind === 'package';
  let action = '';
  if (onDemand && hasContent && !item.ignoredBy) {
    action = item.downloaded === false
      ? button('Download', 'download', {}, { 'aria-label': `Download ${name}` })
      : button('Remove download', 'evict', {}, { 'aria-label': `Remove download of ${name}: its content leaves this device, it stays on others` });
  }
  return el('tr', { data: { path: item.path } },
    cell('Name', item.kind === 'directory'
      ? button(`${name}/`, 'open-folder', { folder: item.path }, { class: 'link' })
      : el('span', { class: 'path' }, name, item.kind === 'symlink' ? ` → ${item.symlinkTarget ?? ''}` : '', item.kind === 'package' ? ' (package)' : '')),
    cell('Size', item.kind === 'directory' ? 'folder' : model.formatBytes(item.size)),
    cell('Modified', timeEl(item.mtime)),
    cell('Status', el('span', { class: 'status' }, model.itemStatus(item))),
    cell('Actions', action));
}

function showCrumbs() {
  const list = $('#breadcrumbs');
  if (!changed(list, [open.id, open.folder])) return;
  const parts = open.folder ? open.folder.split('/') : [];
  const here = (text) => el('span', { 'aria-current': 'location' }, text);
  const crumbs = [el('li', {}, parts.length ? button('Top', 'open-folder', { folder: '' }) : here('Top'))];
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    crumbs.push(el('li', {}, last ? here(part) : button(part, 'open-folder', { folder: parts.slice(0, i + 1).join('/') })));
  });
  keepFocus(list, () => list.replaceChildren(...crumbs), $('#files-heading'));
}

actions['open-folder'] = (b) => {
  if (open) goTo(b.dataset.folder);
};

const pathOf = (b) => b.closest('tr[data-path]').dataset.path;

actions.download = (b) => act(b, async () => {
  await call('item.startDownloading', { container: open.id, path: pathOf(b) });
  return `Downloading ${pathOf(b)}.`;
});

actions.evict = (b) => act(b, async () => {
  await call('item.evict', { container: open.id, path: pathOf(b) });
  return `The content of ${pathOf(b)} left this device.`;
});

// --- History and trash ---

const loadHistory = serial(async () => {
  if (!open) return;
  const { id } = open;
  try {
    const [history, trash] = await Promise.all([call('history.list', { container: id }), call('trash.list', { container: id })]);
    if (open?.id !== id) return;
    showHistory(history);
    showTrash(trash);
    succeeded('history');
  } catch (error) {
    setProblem('history', error, loadHistory);
  }
});

const shownVersions = 500;

function showHistory(history) {
  const section = $('#history');
  const versions = history.versions;
  const asked = history.peersAsked?.length ? `; also asked ${history.peersAsked.map(deviceName).join(', ')}` : '';
  setText($('#history-summary'), `This device keeps ${model.count(history.count, 'version')} (${model.formatBytes(history.bytes)})${asked}.`
    + (versions.length > shownVersions ? ` The newest ${shownVersions} of ${versions.length} are listed.` : ''));
  section.querySelector('.empty').hidden = versions.length > 0;
  section.querySelector('table').hidden = versions.length === 0;
  setSteps(model.timelineSteps(versions));
  const body = section.querySelector('tbody');
  if (!changed(body, [open.id, versions.slice(0, shownVersions), versions.map((v) => deviceName(v.by)), Math.floor(Date.now() / 30000)])) return;
  keepFocus(body, () => body.replaceChildren(...versions.slice(0, shownVersions).map((v) => el('tr', { data: { path: v.path } },
    cell('File', el('span', { class: 'path' }, v.path)),
    cell('Why kept', v.reason),
    cell('Kept', timeEl(v.keptAt)),
    cell('Size', model.formatBytes(v.size)),
    cell('By', deviceName(v.by)),
    cell('Actions', button('Restore', 'restore', { version: v.id }, { 'aria-label': `Restore the version of ${v.path} kept ${model.relativeTime(v.keptAt)}` }))))),
  $('#history-heading'));
}

function showTrash(entries) {
  const section = $('#trash');
  const body = section.querySelector('tbody');
  section.querySelector('.empty').hidden = entries.length > 0;
  section.querySelector('table').hidden = entries.length === 0;
  if (!changed(body, [open.id, entries, entries.map((e) => deviceName(e.deletedBy)), Math.floor(Date.now() / 30000)])) return;
  keepFocus(body, () => body.replaceChildren(...entries.map((entry) => el('tr', { data: { path: entry.path } },
    cell('File', el('span', { class: 'path' }, entry.path)),
    cell('Deleted', timeEl(entry.deletedAt)),
    cell('By', deviceName(entry.deletedBy)),
    cell('Size', model.formatBytes(entry.size)),
    cell('Actions', button('Restore', 'restore', { version: entry.version }, { 'aria-label': `Restore ${entry.path}` }))))),
  $('#trash-heading'));
}

actions.restore = (b) => act(b, async () => {
  const result = await call('history.restore', { container: open.id, path: pathOf(b), version: b.dataset.version });
  return `Restored ${result.path}.`;
});

// --- The timeline ---

/** New steps for the range, keeping the time picked; not while the person moves it. */
function setSteps(next) {
  const input = $('#timeline');
  if (document.activeElement === input) {
    pendingSteps = next;
    return;
  }
  pendingSteps = null;
  const index = Number(input.value);
  const picked = index < steps.length - 1 ? steps[index] : null;
  steps = next;
  let at = steps.length - 1;
  if (picked != null && steps.length > 1) {
    const distance = (i) => Math.abs(steps[i] - picked);
    at = steps.slice(0, -1).reduce((best, _, i) => (distance(i) < distance(best) ? i : best), 0);
  }
  input.max = String(steps.length - 1);
  input.value = String(at);
  showPicked();
}

function pickedTime() {
  const index = Number($('#timeline').value);
  return index >= steps.length - 1 ? null : steps[index];
}

function showPicked() {
  const time = pickedTime();
  const text = time == null ? 'now' : `${model.relativeTime(time)} (${new Date(time).toLocaleString()})`;
  setText($('#timeline-time'), text);
  $('#timeline').setAttribute('aria-valuetext', text);
}

function defaultRestorePath() {
  const input = $('#restore-folder-path');
  if (input.dataset.edited !== 'true') input.value = open?.folder || 'Documents';
}

document.addEventListener('input', (event) => {
  if (event.target.id === 'timeline') showPicked();
  if (event.target.id === 'restore-folder-path') event.target.dataset.edited = 'true';
});
document.addEventListener('focusout', (event) => {
  if (event.target.id === 'timeline' && pendingSteps) setSteps(pendingSteps);
});

actions['restore-folder'] = (form) => act(form.querySelector('#restore-folder'), async () => {
  const path = $('#restore-folder-path').value.trim().replace(/^\/+|\/+$/g, '');
  if (!path) throw new Error('Name the folder to restore, such as Documents.');
  const at = new Date(pickedTime() ?? Date.now()).toISOString();
  const result = await call('history.restoreFolder', { container: open.id, path, at });
  const list = (title, paths) => (paths.length ? el('p', {}, `${title} (${paths.length}): `, el('span', { class: 'path' }, paths.join(', '))) : '');
  const failed = result.failed ?? [];
  $('#restore-result').replaceChildren(
    el('p', {}, `${path} as it was at ${new Date(at).toLocaleString()}:`),
    list('Restored', result.restored ?? []),
    list('Moved to the history, being newer', result.removed ?? []),
    result.unchanged ? el('p', {}, `${result.unchanged} unchanged.`) : '',
    failed.length ? el('ul', { class: 'failures' }, failed.map((f) => el('li', {}, `${f.path}: ${f.reason}`))) : '',
    !result.restored?.length && !result.removed?.length && !failed.length ? el('p', {}, 'Nothing had to change.') : '');
});

// --- Ignore patterns ---

const loadIgnore = serial(async () => {
  if (!open) return;
  const { id } = open;
  try {
    const answer = await call('ignore.get', { container: id });
    if (open?.id !== id) return;
    const area = $('#ignore-text');
    // Only while the person is not editing it.
    if (document.activeElement !== area && (ignoreRead === null || area.value === ignoreRead)) {
      area.value = answer.text;
      ignoreRead = answer.text;
    }
    succeeded('ignore');
  } catch (error) {
    setProblem('ignore', error, loadIgnore);
  }
});

actions.ignore = (form) => act(form.querySelector('#ignore-save'), async () => {
  const area = $('#ignore-text');
  const text = area.value;
  const answer = await call('ignore.set', { container: open.id, text });
  if (area.value === text) area.value = answer.text;
  ignoreRead = answer.text;
  return 'Ignore patterns saved.';
});

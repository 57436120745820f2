// Key-value stores and record stores, read only.
import { call, known, actions, act, serial, setProblem, succeeded } from './api.js';
import { el, cell, changed, keepFocus } from './dom.js';
import * as model from './model.js';

const json = (value) => model.truncate(JSON.stringify(value), 300);

export const loadKeyValueStores = serial(async () => {
  const status = known.status;
  if (!status) return;
  const root = document.querySelector('#kvstores');
  try {
    const stores = await Promise.all((status.kvstores ?? []).map((store) => call('kv.list', { store })));
    succeeded('kvstores');
    if (!changed(root, stores)) return;
    keepFocus(root, () => root.replaceChildren(...(stores.length ? stores.map(kvStore)
      : [el('p', { class: 'empty' }, 'This device takes part in no key-value store.')])));
  } catch (error) {
    setProblem('kvstores', error, loadKeyValueStores);
  }
});

function kvStore(answer) {
  const keys = Object.keys(answer.values).sort();
  const { usage, limits } = answer;
  return el('section', { class: 'store', data: { store: answer.store } },
    el('h3', {}, answer.store),
    el('p', { class: 'muted' }, `${usage.keys} of ${model.count(limits.maxKeys, 'key')}, ${model.formatBytes(usage.bytes)} of ${model.formatBytes(limits.maxStoreBytes)}`
      + (usage.keys > limits.maxKeys || usage.bytes > limits.maxStoreBytes ? ' (over its limits: only writes that shrink it are taken)' : '')),
    keys.length ? el('table', {},
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Key'), el('th', { scope: 'col' }, 'Value'))),
      el('tbody', {}, keys.map((key) => el('tr', { data: { key } },
        cell('Key', el('code', {}, key)), cell('Value', el('code', { class: 'json' }, json(answer.values[key])))))))
      : el('p', { class: 'empty' }, 'No keys'));
}

/** Each container's record stores, from agent.status; a store's records on asking. */
export function showRecordStores(status) {
  const root = document.querySelector('#recordstores');
  const stores = status.containers.flatMap((c) => (c.recordStores ?? []).map((store) => ({ container: c.id, store })));
  if (!changed(root, stores)) return;
  if (!stores.length) {
    root.replaceChildren(el('p', { class: 'empty' }, 'No record store is open on this device.'));
    return;
  }
  // Sections are kept by store, so an entity being typed and records shown stay.
  const old = new Map([...root.querySelectorAll('.store')].map((s) => [`${s.dataset.container}\n${s.dataset.store}`, s]));
  keepFocus(root, () => root.replaceChildren(...stores.map(({ container, store }) => {
    const section = old.get(`${container}\n${store.name}`) ?? recordStore(container, store.name);
    section.querySelector('.summary').replaceChildren(summary(store));
    return section;
  })));
}

function summary(store) {
  const refused = store.refused ?? [];
  return el('div', {},
    el('p', { class: 'muted' }, `${model.count(store.transactions, 'transaction')} imported${store.waiting ? `, ${model.count(store.waiting, 'log')} waiting for earlier ones` : ''}`),
    refused.length ? el('ul', { class: 'failures', 'aria-label': 'Change logs left out' },
      refused.map((r) => el('li', {}, el('span', { class: 'path' }, r.path), `: ${r.reason}`))) : '');
}

function recordStore(container, name) {
  const id = `entity-${container}-${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  return el('section', { class: 'store', data: { container, store: name } },
    el('h3', {}, name, el('span', { class: 'muted' }, ` in ${container}`)),
    el('div', { class: 'summary' }),
    el('form', { class: 'inline', data: { submit: 'fetch-records' } },
      el('label', { for: id }, 'Entity'),
      el('input', { id, name: 'entity', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false' }),
      el('button', { type: 'submit' }, 'Show records')),
    el('div', { class: 'records', 'aria-live': 'polite' }));
}

actions['fetch-records'] = (form) => act(form.querySelector('button'), async () => {
  const section = form.closest('.store');
  const { container, store } = section.dataset;
  const entity = form.elements.entity.value.trim();
  const { records } = await call('records.fetch', { container, store, entity, limit: 500 });
  const target = section.querySelector('.records');
  target.replaceChildren(records.length
    ? el('table', {},
      el('caption', {}, `${model.count(records.length, `${entity} record`)}${records.length === 500 ? ' (the first 500)' : ''}`),
      el('thead', {}, el('tr', {}, ['ID', 'Entity', 'Fields'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, records.map((r) => el('tr', { data: { record: r.id } },
        cell('ID', el('code', {}, r.id)), cell('Entity', r.entity), cell('Fields', el('code', { class: 'json' }, json(r.attributes)))))))
    : el('p', { class: 'empty' }, `No ${entity} records in ${store}.`));
});

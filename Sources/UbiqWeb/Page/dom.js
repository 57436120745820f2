// Small DOM helpers. Text from the agent (file names above all) only ever goes in as text.
import { relativeTime } from './model.js';

/** el('td', {class: 'x', data: {path}, text: 'y', 'aria-label': 'z'}, ...children) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'data') Object.assign(node.dataset, value);
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((child) => child != null && child !== false));
  return node;
}

export function button(label, action, data = {}, props = {}) {
  return el('button', { type: 'button', data: { action, ...data }, text: label, ...props });
}

/** A cell whose column name shows before it where the table is stacked (narrow screens). */
export function cell(label, ...children) {
  return el('td', { data: { label } }, ...children);
}

/** A time as "3 min ago", the exact time in its title. */
export function timeEl(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  return el('time', { datetime: iso, title: date.toLocaleString() }, relativeTime(iso));
}

export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

const shown = new WeakMap();

/** True (and remembered) when `data` differs from what `node` last showed. */
export function changed(node, data) {
  const signature = JSON.stringify(data);
  if (shown.get(node) === signature) return false;
  shown.set(node, signature);
  return true;
}

/** A selector that finds `node` again after its part of the page was built anew. */
export function locate(node, root = document.body) {
  const parts = [];
  for (let at = node; at && at !== root; at = at.parentElement) {
    if (at.id) {
      parts.unshift(`#${CSS.escape(at.id)}`);
      break;
    }
    const attributes = Object.entries(at.dataset)
      .map(([key, value]) => `[data-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}="${CSS.escape(value)}"]`)
      .join('');
    if (attributes) parts.unshift(at.localName + attributes);
  }
  return parts.length ? parts.join(' ') : null;
}

/**
 * Runs `render`, which replaces what is inside `root`, and gives the focus back to the same
 * element, or the one built anew in its place, or else to `fallback`.
 */
export function keepFocus(root, render, fallback = null) {
  const active = document.activeElement;
  const inside = active && active !== root && root.contains(active);
  const selector = inside ? locate(active, root) : null;
  render();
  if (!inside || document.activeElement === active) return;
  const target = root.contains(active) ? active : selector && root.querySelector(selector);
  (target ?? fallback)?.focus();
}

/** Asks in the page's <dialog>; true when the person confirms. */
export function confirmDialog(text, confirmLabel) {
  const dialog = document.querySelector('#confirm');
  dialog.querySelector('#confirm-text').textContent = text;
  dialog.querySelector('[data-action="confirm"]').textContent = confirmLabel;
  const opener = document.activeElement;
  const selector = opener ? locate(opener) : null;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      const back = opener?.isConnected ? opener : selector && document.querySelector(selector);
      back?.focus();
      resolve(dialog.returnValue === 'confirm');
    }, { once: true });
  });
}

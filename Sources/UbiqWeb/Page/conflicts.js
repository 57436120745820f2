// Conflicts: every file with conflict versions, each version next to the current one, with
// what differs (text), the pictures (images) or just size, time and device.
import { call, known, actions, act, serial, setProblem, succeeded, deviceName } from './api.js';
import { el, button, timeEl, keepFocus, changed } from './dom.js';
import * as model from './model.js';

// A version's content does not change under its id, so it is read once.
const reads = new Map();

function read(container, path, version, id) {
  const key = [container, path, id].join('\n');
  if (!reads.has(key)) {
    const reading = call('versions.read', { container, path, version });
    reading.catch(() => reads.delete(key));
    reads.set(key, reading);
  }
  return reads.get(key);
}

export const loadConflicts = serial(async () => {
  const status = known.status;
  if (!status) return;
  try {
    const lists = await Promise.all(status.containers.filter((c) => c.conflicts > 0).map(async (c) => {
      const files = await call('conflicts.list', { container: c.id });
      return Promise.all(files.map(async (file) => {
        // Resolved meanwhile, or gone: the next change event brings the list again.
        const versions = await call('versions.list', { container: c.id, path: file.path }).catch(() => null);
        return versions?.conflicts.length ? { container: c.id, path: file.path, versions } : null;
      }));
    }));
    await show(lists.flat().filter(Boolean));
    succeeded('conflicts');
  } catch (error) {
    setProblem('conflicts', error, loadConflicts);
  }
});

async function show(entries) {
  const root = document.querySelector('#conflicts');
  const old = new Map([...root.querySelectorAll('[data-conflict]')].map((a) => [`${a.dataset.container}\n${a.dataset.path}`, a]));
  // A conflict appears with its content: what differs is what the person decides on.
  const articles = await Promise.all(entries.map(async (entry) => {
    const names = [entry.versions.current, ...entry.versions.conflicts].map((v) => deviceName(v.modifiedBy));
    const article = old.get(`${entry.container}\n${entry.path}`);
    // An unchanged conflict keeps its article, with the content already read and shown.
    if (article && !changed(article, [entry, names])) return article;
    const built = build(entry);
    changed(built, [entry, names]);
    await fill(built, entry.container, entry.path, entry.versions);
    return built;
  }));
  if (articles.length === old.size && articles.every((a, i) => root.children[i] === a)) return;
  keepFocus(root, () => root.replaceChildren(...(articles.length ? articles : [el('p', { class: 'empty' }, 'No conflicts')])),
    document.querySelector('#conflicts-heading'));
}

function build({ container, path, versions }) {
  const several = versions.conflicts.length > 1;
  return el('article', { class: 'conflict', data: { conflict: '', container, path } },
    el('h3', {}, el('span', { class: 'path' }, path), el('span', { class: 'muted' }, ` in ${container}`)),
    several ? el('p', { class: 'muted' }, `${versions.conflicts.length} versions conflict with the current one; keeping one drops all the others.`) : '',
    el('div', { class: 'versions' },
      panel(versions.current, 'current', 'Current version',
        button('Keep this', 'keep', { version: 'current' }, { 'aria-label': `Keep this: the current version of ${path}` })),
      versions.conflicts.map((v) => panel(v, v.id, `Conflicting version from ${deviceName(v.modifiedBy)}`,
        button('Keep that', 'keep', { version: v.id }, { 'aria-label': `Keep that: the version of ${path} from ${deviceName(v.modifiedBy)}` }),
        button('Keep both', 'keep-both', { version: v.id }, { 'aria-label': `Keep both: save the version from ${deviceName(v.modifiedBy)} as a copy beside ${path}` })))));
}

function panel(version, id, title, ...buttons) {
  return el('section', { class: 'version', data: { version: id } },
    el('h4', {}, title),
    el('p', { class: 'meta' }, `${model.formatBytes(version.size)} · modified `, timeEl(version.mtime), ` · by ${deviceName(version.modifiedBy)}`),
    el('div', { class: 'content' }, el('p', { class: 'muted' }, 'Reading the content…')),
    el('div', { class: 'buttons' }, buttons));
}

async function fill(article, container, path, versions) {
  const sides = [{ id: 'current', version: versions.current }, ...versions.conflicts.map((v) => ({ id: v.id, version: v }))];
  const results = await Promise.all(sides.map((side) => read(container, path, side.id, side.version.id)
    .then((answer) => ({ answer }), (error) => ({ error }))));
  const type = model.imageType(path);
  const texts = results.map(({ answer }) => (answer && !answer.truncated && !type ? model.decodeText(model.decodeBase64(answer.data)) : null));
  sides.forEach((side, i) => {
    const target = article.querySelector(`.version[data-version="${CSS.escape(side.id)}"] .content`);
    const { answer, error } = results[i];
    const note = (text) => target.replaceChildren(el('p', { class: 'muted' }, text));
    if (error) return note(`The content cannot be shown: ${error.message}`);
    if (answer.truncated) return note(type ? 'Too large to preview (over 1 MiB).' : 'Too large to compare (over 1 MiB).');
    if (type) {
      return target.replaceChildren(el('img', {
        src: `data:${type};base64,${answer.data}`,
        alt: `${i === 0 ? 'The current version' : 'The conflicting version'} of ${model.nameOf(path)}`,
      }));
    }
    if (texts[i] == null) return note('No preview: the content is not text.');
    const plain = () => model.splitLines(texts[i]).map((text) => ({ op: ' ', text }));
    if (i === 0 && sides.length > 2) return target.replaceChildren(...textBlock(plain(), ' ', true));
    // The current side shows its diff against the one conflict version; each conflict side against the current one.
    const other = i === 0 ? texts[1] : texts[0];
    if (other == null) return target.replaceChildren(...textBlock(plain(), ' ', i === 0));
    const ops = i === 0 ? model.diffLines(model.splitLines(texts[0]), model.splitLines(other))
      : model.diffLines(model.splitLines(other), model.splitLines(texts[i]));
    if (!ops) return note('Too long to compare (over 2000 lines).');
    return target.replaceChildren(...textBlock(ops, i === 0 ? '-' : '+', i === 0));
  });
}

/** The lines of one side: those in both, and those only on this side (`mark`) marked. */
function textBlock(ops, mark, current) {
  const lines = ops.filter((o) => o.op === ' ' || o.op === mark);
  const only = lines.filter((o) => o.op !== ' ').length;
  const elsewhere = ops.length - lines.length;
  const summary = mark === ' ' ? '' : only + elsewhere === 0 ? 'The same text on both sides.'
    : `Lines only here: ${only}${only ? ` (marked ${mark})` : ''}; only on the other side: ${elsewhere}.`;
  return [
    ...(summary ? [el('p', { class: 'muted' }, summary)] : []),
    el('pre', { class: 'text', tabindex: '0', 'aria-label': current ? 'The current version\'s text' : 'This version\'s text' }, lines.slice(0, 2000).map((o) => (o.op === ' '
      ? el('span', {}, `  ${o.text}\n`)
      : el(mark === '+' ? 'ins' : 'del', {}, `${mark} ${o.text}\n`)))),
  ];
}

function place(b) {
  const { container, path } = b.closest('[data-conflict]').dataset;
  return { container, path };
}

actions.keep = (b) => act(b, async () => {
  const { container, path } = place(b);
  await call('versions.resolve', { container, path, keep: b.dataset.version });
  return b.dataset.version === 'current' ? `Kept the current version of ${path}.` : `Kept the other version of ${path}.`;
});

actions['keep-both'] = (b) => act(b, async () => {
  const { container, path } = place(b);
  const folder = model.folderOf(path);
  const items = await call('items.list', folder ? { container, path: folder } : { container });
  const to = model.conflictCopyPath(path, new Set(items.map((item) => item.path.toLowerCase())));
  await call('versions.save', { container, path, version: b.dataset.version, to });
  await call('versions.resolve', { container, path, keep: 'current' });
  return `Kept both: the other version of ${path} is now ${to}.`;
});

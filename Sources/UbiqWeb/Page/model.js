// What the page computes from the agent's answers, without touching the DOM, so that it can
// be checked on its own (node).

const units = ['KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return '';
  if (Math.abs(bytes) < 1024) return `${Math.round(bytes)} B`;
  let value = bytes;
  let unit = -1;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

export function formatRate(bytesPerSecond) {
  return `${formatBytes(bytesPerSecond ?? 0)}/s`;
}

/** A length of time in words: "12 s", "3 min", "1 h 20 min", "2 days". */
export function formatDuration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.round(hours / 24);
  return days === 1 ? '1 day' : `${days} days`;
}

/** "just now", "3 min ago", "in 10 min": a coarse distance from now. */
export function relativeTime(iso, now = Date.now()) {
  const then = typeof iso === 'number' ? iso : Date.parse(iso);
  if (!Number.isFinite(then)) return '';
  const seconds = (now - then) / 1000;
  if (Math.abs(seconds) < 10) return 'just now';
  const a = Math.abs(seconds);
  const text = a < 60 ? `${Math.round(a)} s`
    : a < 3600 ? `${Math.round(a / 60)} min`
    : a < 86400 ? `${Math.round(a / 3600)} h`
    : Math.round(a / 86400) === 1 ? '1 day' : `${Math.round(a / 86400)} days`;
  return seconds > 0 ? `${text} ago` : `in ${text}`;
}

/** A long identity token shown by its ends. */
export function shorten(text, head = 8, tail = 4) {
  if (!text) return '';
  return text.length > head + tail + 1 ? `${text.slice(0, head)}…${text.slice(-tail)}` : text;
}

/** "1 file", "3 files". */
export function count(n, word, plural = `${word}s`) {
  return `${n} ${n === 1 ? word : plural}`;
}

export function truncate(text, max) {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

// --- Sync state ---

/** The word shown for a container: unavailable, paused, scanning, syncing or up to date. */
export function containerState(container, agentPaused = false) {
  if (container.state === 'unavailable') return 'unavailable';
  if (agentPaused || container.paused) return 'paused';
  if (container.scanning) return 'scanning';
  if (container.needItems > 0 || container.needBytes > 0 || (container.transfers ?? []).length > 0) return 'syncing';
  return 'up to date';
}

/** {done, total} in bytes for the progress bar, or null when nothing is being fetched. */
export function progressOf(container) {
  const transfers = container.transfers ?? [];
  if (transfers.length > 0) {
    const total = transfers.reduce((sum, t) => sum + t.total, 0);
    const done = transfers.reduce((sum, t) => sum + Math.min(t.done, t.total), 0);
    if (total > 0) return { done, total };
  }
  if (container.needBytes > 0) return { done: container.bytes, total: container.bytes + container.needBytes };
  return null;
}

/**
 * Follows how fast the bytes still to fetch go down: `previous` is the last answer of this
 * function (or null), `time` in ms. The rate is smoothed, so one slow poll does not make
 * the time left jump.
 */
export function nextEstimate(previous, time, need) {
  if (need <= 0) return { time, need: 0, rate: null };
  if (!previous || previous.need <= 0 || time <= previous.time) return { time, need, rate: previous?.rate ?? null };
  const dropped = previous.need - need;
  if (dropped < 0) return { time, need, rate: previous.rate };
  const measured = dropped / ((time - previous.time) / 1000);
  const rate = previous.rate == null ? measured : previous.rate * 0.7 + measured * 0.3;
  return { time, need, rate };
}

/** Seconds left at the estimated rate, or null when there is no rate yet. */
export function timeLeft(estimate) {
  if (!estimate || !(estimate.rate > 0) || estimate.need <= 0) return null;
  return estimate.need / estimate.rate;
}

// --- Files ---

export function nameOf(path) {
  return path.slice(path.lastIndexOf('/') + 1);
}

export function folderOf(path) {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function itemStatus(item) {
  if (item.ignoredBy) return `ignored (${item.ignoredBy.pattern})`;
  if (item.conflicts > 0) return 'conflicted';
  if (item.kind === 'directory') return '';
  return item.downloaded === false ? 'not downloaded' : 'downloaded';
}

/** Folders first, then by name as a file manager sorts ("file2" before "file10"). */
export function sortItems(items) {
  return [...items].sort((a, b) => (a.kind === 'directory' ? 0 : 1) - (b.kind === 'directory' ? 0 : 1)
    || nameOf(a.path).localeCompare(nameOf(b.path), undefined, { numeric: true, sensitivity: 'base' }));
}

/** "dir/name (conflict copy).ext", numbered where that is taken (`taken`: lower-cased paths). */
export function conflictCopyPath(path, taken) {
  const folder = folderOf(path);
  const name = nameOf(path);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  for (let n = 1; ; n += 1) {
    const candidate = `${folder ? `${folder}/` : ''}${stem} (conflict copy${n > 1 ? ` ${n}` : ''})${ext}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

const imageTypes = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

export function imageType(path) {
  const name = nameOf(path);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? imageTypes[name.slice(dot + 1).toLowerCase()] ?? null : null;
}

export function decodeBase64(data) {
  return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
}

/** The text of `bytes` when they are UTF-8 (and not binary with NULs), else null. */
export function decodeText(bytes) {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.includes('\0') ? null : text;
  } catch {
    return null;
  }
}

export function splitLines(text) {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * A line diff of `a` to `b` (arrays of lines): [{op, text}] with op ' ' (in both), '-' (only
 * in a) or '+' (only in b); null when either side has more than `maxLines` lines. The common
 * start and end are cut off first, then the longest common subsequence of the rest.
 */
export function diffLines(a, b, maxLines = 2000) {
  if (a.length > maxLines || b.length > maxLines) return null;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const n = endA - start;
  const m = endB - start;
  const width = m + 1;
  // lcs[i * width + j]: the longest common subsequence of a[start + i..endA) and b[start + j..endB).
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * width + j] = a[start + i] === b[start + j]
        ? lcs[(i + 1) * width + j + 1] + 1
        : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const out = a.slice(0, start).map((text) => ({ op: ' ', text }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[start + i] === b[start + j]) {
      out.push({ op: ' ', text: a[start + i] });
      i += 1;
      j += 1;
    } else if (i < n && (j === m || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      out.push({ op: '-', text: a[start + i] });
      i += 1;
    } else {
      out.push({ op: '+', text: b[start + j] });
      j += 1;
    }
  }
  for (let k = endA; k < a.length; k += 1) out.push({ op: ' ', text: a[k] });
  return out;
}

// --- History ---

/** The timeline's steps: the distinct times versions were written or kept (ms), then now. */
export function timelineSteps(versions, now = Date.now()) {
  const times = new Set();
  for (const version of versions) {
    for (const iso of [version.keptAt, version.mtime]) {
      const time = Date.parse(iso);
      if (Number.isFinite(time) && time < now) times.add(time);
    }
  }
  return [...times].sort((x, y) => x - y).concat(now);
}

// --- Limits ---

/** A limit typed in KiB/s as limits.set takes it: bytes a second, or "none" when empty. */
export function parseLimit(text, what) {
  const trimmed = text.trim();
  if (trimmed === '') return 'none';
  const kib = Number(trimmed.replace(',', '.'));
  if (!Number.isFinite(kib) || kib <= 0) throw new Error(`The ${what} limit "${trimmed}" is not a number of KiB/s above 0; leave it empty for no limit`);
  return Math.max(1, Math.round(kib * 1024));
}

export function limitText(bytes) {
  return bytes == null ? '' : String(Math.round((bytes / 1024) * 100) / 100);
}

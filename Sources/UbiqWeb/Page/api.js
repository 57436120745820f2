// Calls to the agent, what the page last learnt from it, and how failures reach the person.
const csrf = document.querySelector('meta[name="ubiq-csrf"]').content;

/** The agent (or its web server) did not answer at all, as opposed to refusing a call. */
export class Unreachable extends Error {}

export async function call(method, params) {
  let response;
  try {
    response = await fetch('/api/rpc', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Ubiq-CSRF': csrf },
      body: JSON.stringify({ method, params }),
    });
  } catch {
    throw new Unreachable('no answer from the page\'s server');
  }
  let answer;
  try {
    answer = await response.json();
  } catch {
    throw new Unreachable(`the agent's page answered ${response.status}`);
  }
  if (answer.error) {
    const error = response.status === 503 ? new Unreachable(answer.error.message) : new Error(answer.error.message);
    error.code = answer.error.code;
    throw error;
  }
  return answer.result;
}

/** The last agent.status and devices.list, which every part of the page reads. */
export const known = { status: null, devices: new Map() };

/** A device's name, with the start of its ID where another device has the same name. */
export function deviceName(id) {
  if (!id) return '';
  const name = known.devices.get(id)?.name;
  if (!name) return id.split('-')[0];
  const shared = [...known.devices.values()].some((d) => d.id !== id && d.name === name);
  return shared ? `${name} (${id.split('-')[0]})` : name;
}

export function containerStatus(id) {
  return known.status?.containers.find((c) => c.id === id) ?? null;
}

// #problem shows that the agent does not answer (cleared when a call succeeds again), the
// background loads that failed (each cleared when it succeeds), and the refusal of the
// person's last action (cleared by their next action that succeeds).
// Background loads each have a slot of their own, by name.
const problems = { reach: '', action: '' };

function showProblems() {
  const node = document.querySelector('#problem');
  const loads = Object.keys(problems).filter((slot) => slot !== 'reach' && slot !== 'action').map((slot) => problems[slot]);
  const text = [...new Set([problems.reach, ...loads, problems.action])].filter(Boolean).join(' ');
  if (node.textContent !== text) node.textContent = text;
  node.hidden = text === '';
}

const retries = new Map(); // slot → the load to run again once the agent answers

/** Shows why `slot` failed; `retry`, a background load, runs again after the next good poll. */
export function setProblem(slot, error, retry = null) {
  if (retry) retries.set(slot, retry);
  if (error instanceof Unreachable) {
    problems.reach = `ubiq agent not reachable: ${error.message}. Trying again every 2 s.`;
  } else {
    if (slot === 'reach') problems.reach = '';
    problems[slot] = error ? error.message : '';
  }
  showProblems();
}

/** Clears "not reachable" and the slot's problem; after a good poll, retries failed loads. */
export function succeeded(slot) {
  problems.reach = '';
  problems[slot] = '';
  retries.delete(slot);
  showProblems();
  if (slot === 'reach') for (const retry of retries.values()) retry();
}

/** Says what an action did, politely (#status is a live region). */
let told = null;

export function tell(text) {
  const node = document.querySelector('#status');
  node.textContent = text;
  clearTimeout(told);
  told = setTimeout(() => { node.textContent = ''; }, 20000);
}

/** Handlers of button[data-action] clicks and form[data-submit] submits, by name. */
export const actions = {};
export const hooks = { changed: () => {} };

/**
 * Runs the person's action: one at a time per button (aria-busy rather than disabled, which
 * would drop the keyboard focus), its refusal in #problem, then the page read again.
 */
export async function act(button, work) {
  if (button?.getAttribute('aria-busy') === 'true') return;
  button?.setAttribute('aria-busy', 'true');
  try {
    const message = await work();
    succeeded('action');
    if (message) tell(message);
  } catch (error) {
    setProblem('action', error);
  } finally {
    button?.removeAttribute('aria-busy');
    hooks.changed();
  }
}

/** Runs `task` once at a time; calls meanwhile make it run once more afterwards. */
export function serial(task) {
  let running = null;
  let again = false;
  return function run() {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await task();
      } while (again);
    })().finally(() => { running = null; });
    return running;
  };
}

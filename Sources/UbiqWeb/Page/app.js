// The page: everything it shows comes from the agent's control methods, called through
// /api/rpc with the page's CSRF token, and is read again whenever the agent reports a change
// (/api/events); transfers' progress, which no event reports, every 2 s.
const csrf = document.querySelector('meta[name="ubiq-csrf"]').content;

export async function call(method, params) {
  const response = await fetch('/api/rpc', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Ubiq-CSRF': csrf },
    body: JSON.stringify({ method, params }),
  });
  const answer = await response.json();
  if (answer.error) throw new Error(answer.error.message);
  return answer.result;
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.append(td);
}

function showDevices(devices) {
  const body = document.querySelector('#devices tbody');
  body.replaceChildren(...devices.map((device) => {
    const row = document.createElement('tr');
    row.dataset.device = device.id;
    cell(row, device.name + (device.thisDevice ? ' (this device)' : ''));
    cell(row, device.removed ? 'removed' : device.thisDevice || device.connected ? 'connected' : 'not connected');
    cell(row, device.address ?? (device.addresses ?? []).join(', '));
    cell(row, device.lastSeen ? new Date(device.lastSeen).toLocaleString() : '');
    return row;
  }));
}

function showContainers(containers) {
  const list = document.querySelector('#containers');
  list.replaceChildren(...containers.map((container) => {
    const item = document.createElement('li');
    item.dataset.container = container.id;
    const name = document.createElement('strong');
    name.textContent = container.id;
    const state = document.createElement('p');
    state.className = 'state';
    state.textContent = container.paused ? 'paused' : container.scanning ? 'scanning' : container.needItems > 0 ? `syncing: ${container.needItems} to fetch` : 'up to date';
    item.append(name, state);
    return item;
  }));
}

async function refresh() {
  const problem = document.querySelector('#problem');
  try {
    const [status, devices] = await Promise.all([call('agent.status'), call('devices.list')]);
    document.querySelector('#this-device').textContent = `${status.device.name}, ubiq ${status.agentVersion}`;
    showDevices(devices);
    showContainers(status.containers);
    problem.hidden = true;
  } catch (error) {
    problem.textContent = `The agent did not answer: ${error.message}`;
    problem.hidden = false;
  }
}

// EventSource connects again by itself, also after the agent restarts.
const events = new EventSource('/api/events');
events.addEventListener('events.item', () => refresh());
events.addEventListener('open', () => refresh());

refresh();
setInterval(refresh, 2000);

// The status strip: what `GET /health` says is loaded.

import { apiKey, forgetKey } from './api.js';
import { append, h, num, replace } from './dom.js';

const REFRESH_MS = 60_000;
let timer = null;
let strip = null;

function item(label, value, title) {
  return h('span', { class: 'status-item', title }, h('span', { class: 'status-label' }, label), ' ', h('span', { class: 'status-value' }, value));
}

/** Reads `/health` (public: no key needed) and redraws the strip. */
export async function refreshStatus() {
  if (!strip) return;
  try {
    const res = await fetch('/health', { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
    const body = await res.json().catch(() => null);
    if (!res.ok || !body) {
      replace(strip, h('span', { class: 'status-item bad' }, `Server unhealthy: ${body?.message ?? `HTTP ${res.status}`}`));
      return;
    }
    const vi = body.vector_index;
    const sources = Array.isArray(body.sources) ? body.sources : [];
    strip.replaceChildren();
    append(strip,
      h('span', { class: 'status-item ok', title: `status ${body.status}` }, '●', h('span', { class: 'visually-hidden' }, 'Server up')),
      item('Triples', num(body.triples)),
      item('Sources', num(sources.length), sources.map((s) => `${s.path} (${s.kind}, ${num(s.triples)} triples)`).join('\n')),
      body.topology ? item('Topology', `${num(body.topology.nodes)} nodes`) : null,
      item('Store', body.store_backend ?? '–'),
      vi ? item('Vectors', `${vi.backend}, ${num(vi.points)} points`) : item('Vectors', 'no document index'),
      vi ? item('Model', vi.model, `${vi.dimension} dimensions`) : null,
      body.version ? item('Version', body.version) : null,
      apiKey() ? h('button', {
        type: 'button', class: 'link-button', onclick: () => { forgetKey(); refreshStatus(); },
      }, 'Forget API key') : null,
    );
  } catch (e) {
    replace(strip, h('span', { class: 'status-item bad' }, `Server unreachable (${e.message})`));
  }
}

/** Starts the strip in `el` and refreshes it now and then. */
export function startStatus(el) {
  strip = el;
  window.addEventListener('daemoniq:apikey', () => refreshStatus());
  refreshStatus();
  clearInterval(timer);
  timer = setInterval(refreshStatus, REFRESH_MS);
}

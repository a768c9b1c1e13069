// DaemonIQ web UI: a hash router over the views. Each view is a module
// with `render(section, params, signal)`, loaded when first visited, which
// may return a cleanup function.

import { config, loadConfig, VendorMissing, vendorNotice } from './config.js';
import { h, replace } from './dom.js';
import { errorBox } from './errors.js';
import { startStatus } from './status.js';

const VIEWS = {
  sparql: { title: 'SPARQL', load: () => import('./sparql.js'), nav: 'sparql' },
  classes: { title: 'Classes', load: () => import('./classes.js'), nav: 'classes', fn: 'renderTree' },
  class: { title: 'Class', load: () => import('./classes.js'), nav: 'classes', fn: 'renderClass' },
  topology: { title: 'Topology', load: () => import('./topology.js'), nav: 'topology' },
  node: { title: 'Node', load: () => import('./node.js'), nav: 'topology' },
  chat: { title: 'Chat', load: () => import('./chat.js'), nav: 'chat' },
  documents: { title: 'Documents', load: () => import('./documents.js'), nav: 'documents' },
};
const DEFAULT_VIEW = 'sparql';

const main = document.getElementById('view');
let current = null;
let firstRender = true;

/** The route in the hash: `#/topology?id=AHU-1` → {name, params}. */
function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const name = decodeURIComponent(q < 0 ? raw : raw.slice(0, q));
  const params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
  return { name, params };
}

async function render() {
  const { name, params } = parseHash();
  if (!name) {
    location.replace(`#/${DEFAULT_VIEW}`);
    return;
  }
  if (current) {
    current.abort.abort();
    try {
      current.cleanup?.();
    } catch (e) {
      console.warn('cleanup failed', e);
    }
  }
  const view = VIEWS[name];
  const abort = new AbortController();
  const section = h('section', { class: `view view-${name}` });
  current = { abort, cleanup: null };
  const mine = current;
  replace(main, section);
  for (const a of document.querySelectorAll('nav.views a')) {
    if (a.dataset.view === view?.nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${view ? view.title : 'Not found'} · DaemonIQ`;
  if (!view) {
    section.append(h('h1', { tabindex: '-1' }, 'Not found'),
      h('p', null, 'There is no view called ', h('code', null, name), '. Pick one from the menu.'));
    focusHeading(section);
    return;
  }
  try {
    const mod = await view.load();
    if (abort.signal.aborted) return;
    const cleanup = await mod[view.fn ?? 'render'](section, params, abort.signal);
    if (typeof cleanup === 'function') {
      if (abort.signal.aborted) cleanup();
      else mine.cleanup = cleanup;
    }
  } catch (e) {
    if (abort.signal.aborted || e?.name === 'AbortError') return;
    console.warn(e);
    section.append(errorBox(e, `The ${view.title} view failed`));
  }
  if (!abort.signal.aborted) focusHeading(section);
}

function focusHeading(section) {
  // Move focus to the new view's heading after a navigation (not on the
  // first load, where the reader starts at the top of the page).
  if (firstRender) {
    firstRender = false;
    return;
  }
  const heading = section.querySelector('h1');
  if (heading && !section.contains(document.activeElement)) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
}

async function start() {
  // The skip link's own href would be read as a route.
  document.querySelector('.skip-link')?.addEventListener('click', (e) => {
    e.preventDefault();
    main.focus();
  });
  startStatus(document.getElementById('status'));
  try {
    await loadConfig();
    const v = config().vendor;
    if (v && v.available === false) {
      document.getElementById('notices').append(
        vendorNotice(new VendorMissing(v.missing ?? []), 'The SPARQL editor and the topology drawing'));
    }
  } catch (e) {
    document.getElementById('notices').append(errorBox(e, 'The UI configuration (/api/ui/config) could not be read'));
  }
  window.addEventListener('hashchange', render);
  await render();
}

start();

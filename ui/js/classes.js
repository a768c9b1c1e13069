// The class tree (lazily expanded from /api/schema/classes, a filter that
// finds a class anywhere through /api/search) and the class page.

import { getJson } from './api.js';
import { compact } from './config.js';
import { debounce, h, loading, num, replace, route, routeLink } from './dom.js';
import { errorBox } from './errors.js';
import { classChip, classLink, iriLink } from './terms.js';

// ---- the tree -------------------------------------------------------------

function treeItem(node, nodes) {
  const name = node.name || compact(node.iri);
  const label = node.label || name;
  const children = h('ul', { class: 'tree-children', hidden: true });
  const li = h('li', { class: 'tree-item', dataset: { iri: node.iri, name } });
  let twisty = null;
  if (node.child_count > 0) {
    twisty = h('button', {
      type: 'button', class: 'twisty', 'aria-expanded': 'false',
      'aria-label': `Show the ${num(node.child_count)} subclasses of ${label}`,
    }, h('span', { 'aria-hidden': 'true' }, '▸'));
    twisty.addEventListener('click', () => toggle(li).catch(() => {}));
  }
  li.append(
    h('div', { class: 'tree-row' },
      twisty ?? h('span', { class: 'twisty-spacer', 'aria-hidden': 'true' }),
      classLink(node.iri, label),
      label !== name ? h('span', { class: 'muted curie' }, name) : null,
      node.child_count > 0 ? h('span', { class: 'count', title: `${node.child_count} direct subclasses` }, num(node.child_count)) : null),
    children);
  li._dq = { node, loaded: false, children, twisty };
  nodes.set(node.iri, li);
  nodes.set(name, li);
  if (node.children?.length) fill(li, node.children, nodes);
  return li;
}

function fill(li, kids, nodes) {
  const sorted = [...kids].sort((a, b) => (a.label || a.name).localeCompare(b.label || b.name));
  replace(li._dq.children, ...sorted.map((k) => treeItem(k, nodes)));
  li._dq.loaded = true;
}

let treeNodes = new Map();

async function expand(li) {
  const st = li._dq;
  if (!st.twisty) return;
  if (!st.loaded) {
    st.twisty.disabled = true;
    st.children.hidden = false;
    replace(st.children, h('li', null, loading()));
    try {
      const sub = await getJson('/api/schema/classes', { root: st.node.iri, depth: 1 });
      fill(li, sub.children ?? [], treeNodes);
    } catch (e) {
      replace(st.children, h('li', null, errorBox(e, 'Cannot load the subclasses')));
      throw e;
    } finally {
      st.twisty.disabled = false;
    }
  }
  st.children.hidden = false;
  st.twisty.setAttribute('aria-expanded', 'true');
  st.twisty.firstChild.textContent = '▾';
}

function collapse(li) {
  const st = li._dq;
  st.children.hidden = true;
  st.twisty?.setAttribute('aria-expanded', 'false');
  if (st.twisty) st.twisty.firstChild.textContent = '▸';
}

function toggle(li) {
  if (li._dq.children.hidden) return expand(li);
  collapse(li);
  return Promise.resolve();
}

/** Expands the tree along `path` (prefixed names or IRIs) and shows `target`. */
async function reveal(path, target) {
  for (const step of path) {
    const li = treeNodes.get(step);
    if (!li) continue;
    await expand(li);
  }
  const li = treeNodes.get(target.iri) ?? treeNodes.get(target.curie);
  if (!li) return false;
  for (const old of document.querySelectorAll('.tree-item.highlight')) old.classList.remove('highlight');
  li.classList.add('highlight');
  const link = li.querySelector('a');
  link?.scrollIntoView({ block: 'center' });
  link?.focus();
  return true;
}

function searchResult(r, note) {
  const path = Array.isArray(r.ancestors) ? r.ancestors : [];
  const show = h('button', { type: 'button', class: 'secondary small' }, 'Show in tree');
  show.addEventListener('click', async () => {
    const ok = await reveal(path, r).catch(() => false);
    if (!ok) note.textContent = `${r.curie || compact(r.iri)} is not in the tree (it may be deprecated or an alias).`;
  });
  return h('li', { class: 'search-result' },
    classLink(r.iri, r.label || r.curie, { class: 'iri class-link result-link' }),
    ' ', h('span', { class: 'muted curie' }, r.curie || compact(r.iri)),
    path.length ? h('div', { class: 'ancestors muted' }, path.join(' › ')) : null,
    show);
}

export async function renderTree(section, params, signal) {
  treeNodes = new Map();
  const input = h('input', {
    type: 'search', id: 'class-filter', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'part of a class name, label or IRI', value: params.get('q') ?? '',
  });
  const note = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const found = h('ul', { class: 'search-results', id: 'class-search-results' });
  const tree = h('ul', { class: 'tree', 'aria-label': 'Class hierarchy' });
  section.append(
    h('h1', null, 'Classes'),
    h('p', { class: 'lede' }, 'The class hierarchy of the loaded ontologies. Expand a class with its arrow, open its page with its name.'),
    h('form', { class: 'search-form', role: 'search', onsubmit: (e) => e.preventDefault() },
      h('label', { for: 'class-filter' }, 'Find a class'), input),
    note, found,
    h('div', { class: 'tree-wrap' }, tree));

  let seq = 0;
  const search = async () => {
    const q = input.value.trim();
    history.replaceState(null, '', route('classes', { q }));
    const mine = ++seq;
    if (!q) {
      found.replaceChildren();
      note.textContent = '';
      return;
    }
    note.textContent = 'Searching…';
    try {
      const r = await getJson('/api/search', { q, kind: 'class', limit: 20 }, { signal });
      if (mine !== seq) return;
      const results = r.results ?? [];
      note.textContent = results.length ? `${results.length} class${results.length === 1 ? '' : 'es'} match “${q}”.` : `No class matches “${q}”.`;
      replace(found, ...results.map((x) => searchResult(x, note)));
    } catch (e) {
      if (mine !== seq || e.name === 'AbortError') return;
      note.textContent = '';
      replace(found, h('li', null, errorBox(e, 'Search failed')));
    }
  };
  input.addEventListener('input', debounce(search, 250));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      const first = found.querySelector('a.result-link');
      if (first) location.hash = first.getAttribute('href');
      else search();
    }
  });
  if (input.value) search();

  tree.append(h('li', null, loading('Loading the class tree…')));
  try {
    const root = await getJson('/api/schema/classes', { depth: 1 }, { signal });
    const li = treeItem(root, treeNodes);
    replace(tree, li);
    if (li._dq.twisty) {
      li._dq.children.hidden = false;
      li._dq.twisty.setAttribute('aria-expanded', 'true');
      li._dq.twisty.firstChild.textContent = '▾';
    }
  } catch (e) {
    if (e.name !== 'AbortError') replace(tree, h('li', null, errorBox(e, 'Cannot load the class tree')));
  }
}

// ---- the class page -------------------------------------------------------

/** The most instances `/api/schema/class` lists. */
const INSTANCE_CAP = 500;

function field(label, content) {
  const empty = content == null || (Array.isArray(content) && content.length === 0);
  return [h('dt', null, label), h('dd', null, empty ? h('span', { class: 'muted' }, 'none') : content)];
}

function linkList(iris) {
  return iris.length ? h('ul', { class: 'inline-list' }, iris.map((i) => h('li', null, classLink(i)))) : null;
}

function chips(items) {
  return items.length ? h('ul', { class: 'inline-list chips' }, items.map((t) => h('li', null, h('span', { class: 'chip' }, t)))) : null;
}

function instancesQuery(iri) {
  return `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nSELECT ?instance ?label WHERE {\n  ?instance a <${iri}> .\n  OPTIONAL { ?instance rdfs:label ?label }\n}\nORDER BY ?label\n`;
}

export async function renderClass(section, params, signal) {
  const iri = params.get('iri');
  if (!iri) {
    section.append(h('h1', null, 'Class'), h('p', null, 'No class given. Find one in ', routeLink('classes', {}, 'the class tree'), '.'));
    return;
  }
  section.append(h('h1', null, compact(iri)), loading());
  let c;
  try {
    c = await getJson('/api/schema/class', { iri }, { signal });
  } catch (e) {
    if (e.name === 'AbortError') return;
    replace(section, h('h1', null, compact(iri)), errorBox(e, 'Cannot load the class'));
    return;
  }
  const name = c.name || compact(c.iri);
  const instances = Array.isArray(c.instances) ? c.instances : [];
  // The list is capped by the server; below the cap it is the whole count.
  const total = instances.length >= INSTANCE_CAP ? Math.max(c.instance_count ?? 0, instances.length) : instances.length;
  replace(section,
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, routeLink('classes', {}, 'Classes'), ' › ', name),
    h('h1', null, c.label || name, ' ', classChip(c.iri, name)),
    h('p', { class: 'muted' }, h('code', { class: 'iri-full' }, c.iri)),
    c.deprecated ? h('p', { class: 'notice' }, 'This class is marked deprecated in its ontology.') : null,
    c.definition ? h('p', { class: 'definition' }, c.definition) : h('p', { class: 'muted' }, 'No definition.'),
    h('dl', { class: 'facts' },
      field('Parents', linkList(c.parents ?? [])),
      field('Children', linkList(c.children ?? [])),
      field('Equivalent', linkList(c.equivalent ?? [])),
      field('Brick tags', chips(c.brick_tags ?? [])),
      field('Haystack kinds', chips((c.haystack_kinds ?? []).map((k) => k.tag))),
      field('Haystack tags', chips((c.haystack_tags ?? []).map((k) => k.tag))),
      field('Yorkland products', (c.yorkland_products ?? []).length ? h('ul', { class: 'plain' }, c.yorkland_products.map((p) => h('li', null,
        iriLink(p.iri, p.label || p.model_number),
        p.model_number ? h('span', { class: 'muted' }, ` model ${p.model_number}`) : null,
        p.confidence != null ? h('span', { class: 'muted' }, `, confidence ${p.confidence}`) : null,
        p.source_url ? h('span', { class: 'muted' }, ', from ', h('span', { class: 'url' }, p.source_url)) : null))) : null)),
    h('h2', { id: 'instances' }, `Instances in this building (${num(total)})`),
    instances.length
      ? h('ul', { class: 'columns instances' }, instances.map((i) => h('li', null,
        iriLink(i.iri, i.label || i.curie),
        ' ', routeLink('topology', { id: i.iri }, 'draw', { class: 'small-link', 'aria-label': `Draw the topology around ${i.label || i.curie}` }))))
      : h('p', { class: 'muted' }, 'No instance of this class in the loaded building models.'),
    total > instances.length ? h('p', { class: 'muted' }, `The first ${num(instances.length)} are listed.`) : null,
    h('p', null, routeLink('sparql', { query: instancesQuery(c.iri), run: '1' }, 'List the instances with SPARQL')));
}

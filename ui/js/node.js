// A node of a building model: its types, points, properties (location,
// product …), incoming relations and provenance, from /api/node. The same
// details fill the topology's side panel.

import { getJson } from './api.js';
import { compact } from './config.js';
import { h, loading, num, replace, route, routeLink, sha, time } from './dom.js';
import { errorBox } from './errors.js';
import { classChip, iriLink, XSD_STRING } from './terms.js';

/** Fetches a node; an ApiError on 404 / 409. */
export function fetchNode(id, signal) {
  return getJson('/api/node', { id }, { signal });
}

function valueNode(v) {
  if (!v) return h('span', { class: 'muted' }, '–');
  if (v.kind === 'iri') return iriLink(v.value, v.label || undefined);
  return h('span', { class: 'literal' },
    h('span', { class: 'literal-value' }, v.value),
    v.lang ? h('span', { class: 'tag' }, `@${v.lang}`) : null,
    v.datatype && !v.lang && v.datatype !== XSD_STRING ? h('span', { class: 'tag', title: v.datatype }, compact(v.datatype)) : null);
}

function provenance(p) {
  if (!p) return h('p', { class: 'muted' }, 'No provenance recorded for this node.');
  return h('dl', { class: 'facts provenance' },
    h('dt', null, 'Source file'), h('dd', null, h('code', null, p.source_path ?? '–')),
    h('dt', null, 'Source sha256'), h('dd', null, sha(p.source_sha)),
    h('dt', null, 'Updated'), h('dd', null, time(p.updated_at)));
}

function groupProperties(props) {
  const groups = new Map();
  for (const p of props ?? []) {
    const key = p.predicate?.iri ?? '';
    if (!groups.has(key)) groups.set(key, { predicate: p.predicate, values: [] });
    groups.get(key).values.push(p.value);
  }
  return [...groups.values()];
}

/**
 * The details of a node. `opts.headingLevel`: 2 on the node page, 3 in
 * the topology panel; `opts.maxPoints` shortens the point list.
 */
export function nodeDetails(n, opts = {}) {
  const hl = `h${opts.headingLevel ?? 2}`;
  const points = n.points ?? [];
  const maxPoints = opts.maxPoints ?? Infinity;
  const shownPoints = points.slice(0, maxPoints);
  const props = groupProperties(n.properties);
  return h('div', { class: 'node-details' },
    h(hl, null, 'Types'),
    (n.types ?? []).length
      ? h('ul', { class: 'inline-list chips' }, n.types.map((t) => h('li', null,
        classChip(t.iri, t.label || t.curie),
        t.family ? h('span', { class: 'muted family' }, ` ${t.family}`) : null)))
      : h('p', { class: 'muted' }, 'No type.'),
    h(hl, null, 'Provenance'),
    provenance(n.provenance),
    h(hl, null, `Points (${num(points.length)})`),
    points.length
      ? h('table', { class: 'compact points' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Point'), h('th', { scope: 'col' }, 'Class'))),
        h('tbody', null, shownPoints.map((p) => h('tr', null,
          h('td', null, iriLink(p.iri, p.label || p.curie)),
          h('td', null, (p.types ?? []).map((t) => classChip(t)))))))
      : h('p', { class: 'muted' }, 'No points.'),
    points.length > shownPoints.length
      ? h('p', null, routeLink('node', { id: n.iri }, `All ${num(points.length)} points on the node page`))
      : null,
    h(hl, null, 'Properties'),
    props.length
      ? h('dl', { class: 'facts properties' }, props.flatMap((g) => [
        h('dt', { title: g.predicate?.iri }, g.predicate?.curie || compact(g.predicate?.iri)),
        h('dd', null, g.values.length === 1 ? valueNode(g.values[0])
          : h('ul', { class: 'plain' }, g.values.map((v) => h('li', null, valueNode(v))))),
      ]))
      : h('p', { class: 'muted' }, 'No properties.'),
    opts.incoming === false ? null : [
      h(hl, null, `Relations to this node (${num((n.incoming ?? []).length)})`),
      (n.incoming ?? []).length
        ? h('ul', { class: 'plain incoming' }, n.incoming.map((r) => h('li', null,
          iriLink(r.subject?.iri, r.subject?.label || r.subject?.curie), ' ',
          h('span', { class: 'rel', title: r.predicate?.iri }, r.predicate?.curie || compact(r.predicate?.iri)), ' this node')))
        : h('p', { class: 'muted' }, 'None.'),
    ]);
}

function describeQuery(iri) {
  return `SELECT ?predicate ?object WHERE {\n  <${iri}> ?predicate ?object\n}\nORDER BY ?predicate\n`;
}

export async function render(section, params, signal) {
  const id = params.get('id');
  if (!id) {
    section.append(h('h1', null, 'Node'), h('p', null, 'No node given. Search for one in ', routeLink('topology', {}, 'the topology view'), '.'));
    return;
  }
  section.append(h('h1', null, id), loading());
  let n;
  try {
    n = await fetchNode(id, signal);
  } catch (e) {
    if (e.name === 'AbortError') return;
    replace(section, h('h1', null, id), errorBox(e, 'Cannot show this node'));
    return;
  }
  if (n.kind === 'class') {
    location.replace(route('class', { iri: n.iri }));
    return;
  }
  const name = n.curie || compact(n.iri);
  replace(section,
    h('nav', { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' }, routeLink('topology', {}, 'Topology'), ' › ', n.label || name),
    h('h1', null, n.label || name),
    h('p', { class: 'muted' }, h('code', { class: 'iri-full' }, n.iri)),
    h('p', { class: 'row' },
      routeLink('topology', { id: n.iri }, 'Draw the topology around it', { class: 'button-link' }),
      routeLink('sparql', { query: describeQuery(n.iri), run: '1' }, 'Its triples in SPARQL', { class: 'button-link secondary' })),
    nodeDetails(n, { headingLevel: 2 }));
}

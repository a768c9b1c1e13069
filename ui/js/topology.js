// The topology view: a node's neighbourhood from /api/topology/subgraph,
// drawn left to right with cytoscape + dagre (what feeds a node on its
// left, what it feeds on its right), the other relation kinds on demand,
// and beside the drawing the same nodes and relations as text. Node
// styles come from the API: shape from the class family, colour from a
// hash of the class name; no class or colour table lives here.

import { getJson } from './api.js';
import { compact, config, relation, shortName, vendor, vendorNotice } from './config.js';
import { debounce, h, hash, loading, num, replace, route, routeLink, truncate } from './dom.js';
import { errorBox } from './errors.js';
import { classColour } from './terms.js';
import { fetchNode, nodeDetails } from './node.js';

const MAX_DEPTH = 6;
const LABEL_CHARS = 22;
const EDGE_LABELS_UP_TO = 12;
// Zoom limits of the first view: no giant boxes, no unreadable text.
const MAX_FIT_ZOOM = 1.4;
const MIN_READABLE_ZOOM = 0.6;
// Shapes handed out by a hash of the family name (no family table).
const SHAPES = ['tag', 'ellipse', 'rhomboid', 'diamond', 'barrel', 'octagon', 'hexagon', 'round-rectangle'];
const NO_FAMILY_SHAPE = 'rectangle';

function familyShape(family) {
  return family ? SHAPES[hash(family) % SHAPES.length] : NO_FAMILY_SHAPE;
}

/** The non-flow relation kinds the server names, each with its relations. */
function optionalKinds() {
  const kinds = new Map();
  for (const r of config().relations) {
    if (r.kind === 'flow') continue;
    if (!kinds.has(r.kind)) kinds.set(r.kind, []);
    kinds.get(r.kind).push(r.label || r.name);
  }
  return kinds;
}

/** Which of the subgraph's nodes and edges to show, and their flow rank. */
function visibleGraph(data, shown) {
  const edges = data.edges.filter((e) => {
    const kind = relation(e.rel).kind;
    return kind === 'flow' || shown.has(kind);
  });
  const adj = new Map();
  const link = (a, b, e) => {
    if (!adj.has(a)) adj.set(a, []);
    adj.get(a).push([b, e]);
  };
  for (const e of edges) {
    link(e.source, e.target, e);
    link(e.target, e.source, e);
  }
  // Breadth first from the root: rank +1 along an edge, −1 against it, so
  // a text list sorted by rank reads left to right like the drawing.
  const rank = new Map([[data.root, 0]]);
  const queue = [data.root];
  while (queue.length) {
    const n = queue.shift();
    for (const [m, e] of adj.get(n) ?? []) {
      if (rank.has(m)) continue;
      rank.set(m, rank.get(n) + (e.source === n ? 1 : -1));
      queue.push(m);
    }
  }
  const nodes = data.nodes.filter((n) => rank.has(n.id));
  const keep = new Set(nodes.map((n) => n.id));
  return { nodes, edges: edges.filter((e) => keep.has(e.source) && keep.has(e.target)), rank };
}

/** The class a node is drawn as: its first type the API gives a family. */
function mainClass(node, classes) {
  const types = node.types ?? [];
  const withFamily = types.find((t) => classes[t]?.family);
  const t = withFamily ?? types[0];
  return t ? { iri: t, ...(classes[t] ?? {}), curie: classes[t]?.curie ?? compact(t) } : null;
}

function nodeName(node) {
  return node.label || shortName(node.id);
}

function elementsFor(vis, data) {
  const classes = data.classes ?? {};
  const els = [];
  for (const n of vis.nodes) {
    const cls = mainClass(n, classes);
    const colour = classColour(cls?.curie ?? '');
    const short = truncate(nodeName(n), LABEL_CHARS);
    els.push({
      group: 'nodes',
      data: {
        id: n.id,
        short,
        full: nodeName(n),
        shape: familyShape(cls?.family),
        fill: cls ? colour.fill : '#eeeeee',
        border: cls ? colour.border : '#777777',
        w: Math.max(56, Math.round(short.length * 6.6 + 18)),
        root: n.id === data.root ? 1 : 0,
      },
    });
  }
  // Many arrows side by side: their labels would only hide each other. They
  // show for the selected node's edges (the legend and the text list name
  // every relation).
  const quiet = vis.edges.length > EDGE_LABELS_UP_TO;
  vis.edges.forEach((e, i) => {
    const r = relation(e.rel);
    els.push({
      group: 'edges',
      data: { id: `e${i}`, source: e.source, target: e.target, label: r.label || r.name, kind: r.kind },
      classes: quiet ? 'quiet' : '',
    });
  });
  return els;
}

const STYLE = [
  {
    selector: 'node',
    style: {
      shape: 'data(shape)',
      'background-color': 'data(fill)',
      'border-color': 'data(border)',
      'border-width': 1.5,
      label: 'data(short)',
      'font-size': 11,
      'font-family': 'system-ui, sans-serif',
      color: '#1a1a1a',
      'text-valign': 'center',
      'text-halign': 'center',
      width: 'data(w)',
      height: 28,
      'min-zoomed-font-size': 6,
    },
  },
  { selector: 'node[root = 1]', style: { 'border-width': 4, 'font-weight': 'bold' } },
  {
    selector: 'edge',
    style: {
      width: 1.4,
      'line-color': '#8a94a6',
      'target-arrow-color': '#8a94a6',
      'target-arrow-shape': 'triangle',
      'arrow-scale': 0.9,
      'curve-style': 'taxi',
      'taxi-direction': 'rightward',
      'taxi-turn': '50%',
      // Near the target end: on a fan of taxi edges the middles share
      // one trunk, the ends do not.
      'target-label': 'data(label)',
      'target-text-offset': 36,
      'target-text-margin-y': -7,
      'font-size': 9,
      color: '#3b4252',
      'text-background-color': '#ffffff',
      'text-background-opacity': 0.85,
      'text-background-padding': 1,
      'min-zoomed-font-size': 8,
    },
  },
  { selector: 'edge[kind = "flow"]', style: { 'line-color': '#6b7587', 'target-arrow-color': '#6b7587', width: 1.6 } },
  { selector: 'edge[kind != "flow"]', style: { 'line-style': 'dashed', 'line-color': '#b0b7c3', 'target-arrow-color': '#b0b7c3' } },
  { selector: 'edge.quiet', style: { 'target-label': '' } },
  { selector: 'edge.loud', style: { 'target-label': 'data(label)', 'line-color': '#c2185b', 'target-arrow-color': '#c2185b', 'z-index': 10 } },
  { selector: 'node:selected', style: { 'border-color': '#c2185b', 'border-width': 4, 'overlay-opacity': 0 } },
];

function shapeIcon(shape) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 20 14');
  svg.setAttribute('width', '20');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  const pts = {
    diamond: '10,1 19,7 10,13 1,7',
    hexagon: '5,1 15,1 19,7 15,13 5,13 1,7',
    octagon: '6,1 14,1 19,5 19,9 14,13 6,13 1,9 1,5',
    rhomboid: '5,1 19,1 15,13 1,13',
    tag: '1,1 14,1 19,7 14,13 1,13',
  }[shape];
  let el;
  if (pts) {
    el = document.createElementNS(ns, 'polygon');
    el.setAttribute('points', pts);
  } else if (shape === 'ellipse') {
    el = document.createElementNS(ns, 'ellipse');
    el.setAttribute('cx', '10'); el.setAttribute('cy', '7'); el.setAttribute('rx', '9'); el.setAttribute('ry', '6');
  } else {
    el = document.createElementNS(ns, 'rect');
    el.setAttribute('x', '1'); el.setAttribute('y', '1'); el.setAttribute('width', '18'); el.setAttribute('height', '12');
    el.setAttribute('rx', shape === 'round-rectangle' ? '3' : shape === 'barrel' ? '6' : '0');
  }
  el.setAttribute('fill', '#ffffff');
  el.setAttribute('stroke', '#3b4252');
  el.setAttribute('stroke-width', '1.4');
  svg.append(el);
  return svg;
}

function legend(vis, data) {
  const classes = data.classes ?? {};
  const families = new Map();
  const used = new Map();
  for (const n of vis.nodes) {
    const cls = mainClass(n, classes);
    const fam = cls?.family ?? null;
    families.set(fam ?? '', (families.get(fam ?? '') ?? 0) + 1);
    if (cls) {
      const u = used.get(cls.curie) ?? { cls, count: 0 };
      u.count += 1;
      used.set(cls.curie, u);
    }
  }
  return h('details', { class: 'legend' },
    h('summary', null, 'Legend'),
    h('ul', { class: 'plain legend-families' }, [...families].map(([f, count]) => h('li', null,
      shapeIcon(familyShape(f || null)), ' ', f || 'no family', h('span', { class: 'muted' }, ` (${num(count)})`)))),
    h('ul', { class: 'plain legend-classes' }, [...used.values()].sort((a, b) => b.count - a.count).map(({ cls, count }) => {
      const sw = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      const c = classColour(cls.curie);
      sw.style.background = c.fill;
      sw.style.borderColor = c.border;
      return h('li', null, sw, ' ', routeLink('class', { iri: cls.iri }, cls.label || cls.curie), h('span', { class: 'muted' }, ` ${cls.curie} (${num(count)})`));
    })),
    h('p', { class: 'muted' }, `Solid arrows: ${config().relations.filter((r) => r.kind === 'flow').map((r) => r.label || r.name).join(', ') || 'flow'}, from left to right. Dashed: the other relations shown.`));
}

function textList(vis, data, onDetails) {
  const byId = new Map(vis.nodes.map((n) => [n.id, n]));
  const classes = data.classes ?? {};
  const order = [...vis.nodes].sort((a, b) => (vis.rank.get(a.id) - vis.rank.get(b.id)) || nodeName(a).localeCompare(nodeName(b), undefined, { numeric: true }));
  const edges = [...vis.edges].sort((a, b) => {
    const fa = relation(a.rel).kind === 'flow' ? 0 : 1;
    const fb = relation(b.rel).kind === 'flow' ? 0 : 1;
    return fa - fb || (vis.rank.get(a.source) - vis.rank.get(b.source))
      || nodeName(byId.get(a.source)).localeCompare(nodeName(byId.get(b.source)), undefined, { numeric: true })
      || nodeName(byId.get(a.target)).localeCompare(nodeName(byId.get(b.target)), undefined, { numeric: true });
  });
  const nodeLink = (id) => routeLink('node', { id }, nodeName(byId.get(id) ?? { id }), { title: compact(id) });
  return h('section', { class: 'topo-text', 'aria-labelledby': 'topo-text-title' },
    h('h2', { id: 'topo-text-title' }, 'The drawing as text'),
    h('h3', null, `Nodes, left to right (${num(order.length)})`),
    h('ol', { class: 'topo-nodes' }, order.map((n) => {
      const types = (n.types ?? []).map((t) => classes[t]?.curie ?? compact(t));
      const details = h('button', { type: 'button', class: 'link-button small', 'aria-label': `Details of ${nodeName(n)}` }, 'details');
      details.addEventListener('click', () => onDetails(n.id));
      return h('li', { dataset: { id: n.id, rank: String(vis.rank.get(n.id)) } },
        nodeLink(n.id), n.id === data.root ? h('strong', null, ' (centre)') : null,
        types.length ? h('span', { class: 'muted' }, ` ${types.join(', ')}`) : null, ' ', details);
    })),
    h('h3', null, `Relations (${num(edges.length)})`),
    edges.length
      ? h('ul', { class: 'topo-edges plain' }, edges.map((e) => {
        const r = relation(e.rel);
        return h('li', { dataset: { rel: e.rel } }, nodeLink(e.source), ' ', h('span', { class: `rel rel-${r.kind}` }, r.label || r.name), ' ', nodeLink(e.target));
      }))
      : h('p', { class: 'muted' }, 'No relations of the kinds shown.'));
}

// ---- node search ----------------------------------------------------------

function nodeSearch(initial, depthOf) {
  const input = h('input', {
    type: 'search', id: 'topo-search', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'a label, a prefixed name or an IRI', value: initial ?? '', required: true,
  });
  const list = h('ul', { class: 'suggestions', id: 'topo-suggestions', 'aria-label': 'Matching nodes' });
  let seq = 0;
  const suggest = debounce(async () => {
    const q = input.value.trim();
    const mine = ++seq;
    if (q.length < 2) {
      list.replaceChildren();
      return;
    }
    try {
      const r = await getJson('/api/search', { q, kind: 'node', limit: 12 });
      if (mine !== seq) return;
      replace(list, ...(r.results ?? []).map((x) => h('li', null,
        h('a', { href: route('topology', { id: x.iri, depth: depthOf() }) }, x.label || x.curie || compact(x.iri)),
        h('span', { class: 'muted' }, ` ${(x.types ?? []).join(', ')}${x.family ? ` · ${x.family}` : ''}`))));
    } catch (e) {
      if (mine === seq) replace(list, h('li', { class: 'muted' }, `Search failed: ${e.message}`));
    }
  }, 250);
  input.addEventListener('input', suggest);
  return { input, list };
}

// ---- the view ---------------------------------------------------------------

export async function render(section, params, signal) {
  const id = params.get('id')?.trim() || '';
  const depth = Math.min(MAX_DEPTH, Math.max(1, Number.parseInt(params.get('depth') ?? '2', 10) || 2));
  const kinds = optionalKinds();
  const shown = new Set((params.get('show') ?? '').split(',').filter((k) => kinds.has(k)));

  const depthSelect = h('select', { id: 'topo-depth', name: 'depth' },
    Array.from({ length: MAX_DEPTH }, (_, i) => h('option', { value: String(i + 1), selected: i + 1 === depth }, String(i + 1))));
  const { input, list } = nodeSearch(id, () => depthSelect.value);
  const toggles = [...kinds].map(([kind, labels]) => {
    const cb = h('input', { type: 'checkbox', id: `show-${kind}`, value: kind, checked: shown.has(kind) });
    return { kind, cb, el: h('label', { class: 'check', for: `show-${kind}`, title: labels.join(', ') }, cb, ` ${kind}`) };
  });
  const form = h('form', { class: 'topo-controls', role: 'search' },
    h('div', { class: 'field grow' }, h('label', { for: 'topo-search' }, 'Node'), input),
    h('div', { class: 'field' }, h('label', { for: 'topo-depth' }, 'Depth'), depthSelect),
    toggles.length ? h('fieldset', { class: 'field toggles' }, h('legend', null, 'Also show'), toggles.map((t) => t.el)) : null,
    h('div', { class: 'field' }, h('button', { type: 'submit', class: 'primary' }, 'Draw')));
  const showParam = () => toggles.filter((t) => t.cb.checked).map((t) => t.kind).join(',');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const target = input.value.trim();
    if (target) location.hash = route('topology', { id: target, depth: depthSelect.value, show: showParam() });
  });
  depthSelect.addEventListener('change', () => {
    if (id) location.hash = route('topology', { id, depth: depthSelect.value, show: showParam() });
  });

  section.append(
    h('h1', null, id ? `Topology around ${id}` : 'Topology'),
    form, list);
  if (!id) {
    section.append(h('p', { class: 'lede' }, 'Search for a piece of equipment, a point or a space by its label to draw what feeds it (left) and what it feeds (right).'));
    input.focus();
    return undefined;
  }

  const status = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' }, 'Loading the neighbourhood…');
  section.append(status);
  let data;
  try {
    data = await getJson('/api/topology/subgraph', { id, depth }, { signal });
  } catch (e) {
    if (e.name === 'AbortError') return undefined;
    status.replaceWith(errorBox(e, 'Cannot draw this node', {
      candidateLink: (cid) => route('topology', { id: cid, depth }),
    }));
    return undefined;
  }
  const rootNode = data.nodes.find((n) => n.id === data.root);
  section.querySelector('h1').textContent = `Topology around ${rootNode ? nodeName(rootNode) : id}`;

  const canvas = h('div', { id: 'cy', class: 'topo-canvas', role: 'img' });
  const canvasWrap = h('div', { class: 'topo-canvas-wrap' });
  const panel = h('section', { class: 'node-panel', id: 'node-panel', 'aria-labelledby': 'node-panel-title', hidden: true });
  const textHost = h('div');
  const legendHost = h('div');
  const tools = h('div', { class: 'row canvas-tools' });
  canvasWrap.append(tools, canvas, legendHost);
  section.append(h('div', { class: 'topo-layout' }, canvasWrap, h('aside', { class: 'topo-side', 'aria-label': 'Node details and the drawing as text' }, panel, textHost)));

  let cy = null;
  let panelSeq = 0;
  async function openPanel(nodeId) {
    const mine = ++panelSeq;
    panel.hidden = false;
    const title = h('h2', { id: 'node-panel-title', tabindex: '-1' }, nodeName(data.nodes.find((n) => n.id === nodeId) ?? { id: nodeId }));
    const close = h('button', { type: 'button', class: 'link-button close', 'aria-label': 'Close the node panel' }, '×');
    close.addEventListener('click', () => {
      panel.hidden = true;
      cy?.nodes().unselect();
    });
    // The heading stays in place while the body loads: moving it would
    // drop the focus a keyboard user just got.
    const body = h('div', { class: 'panel-body' }, loading());
    replace(panel, h('div', { class: 'panel-head' }, title, close), body);
    title.focus();
    if (cy) {
      cy.nodes().unselect();
      cy.getElementById(nodeId).select();
    }
    try {
      const n = await fetchNode(nodeId, signal);
      if (mine !== panelSeq) return;
      replace(body,
        h('p', { class: 'muted' }, h('code', null, n.curie || compact(n.iri))),
        h('p', { class: 'row' },
          routeLink('node', { id: n.iri }, 'Open the node page'),
          n.iri !== data.root ? routeLink('topology', { id: n.iri, depth, show: showParam() }, 'Draw around this node') : null),
        nodeDetails(n, { headingLevel: 3, maxPoints: 12, incoming: false }));
    } catch (e) {
      if (mine !== panelSeq || e.name === 'AbortError') return;
      replace(body, errorBox(e, 'Cannot load this node'));
    }
  }

  let vis = visibleGraph(data, shown);
  const redrawText = () => {
    const hidden = data.nodes.length - vis.nodes.length;
    status.textContent = `${num(vis.nodes.length)} nodes and ${num(vis.edges.length)} relations shown, depth ${depth}${hidden ? `; ${num(hidden)} more nodes are reached through relations not shown` : ''}.`;
    replace(textHost, textList(vis, data, openPanel));
    replace(legendHost, legend(vis, data));
    canvas.setAttribute('aria-label', `Drawing of the ${num(vis.nodes.length)} nodes around ${rootNode ? nodeName(rootNode) : id}; the same nodes and relations are listed as text beside it.`);
  };
  redrawText();

  const draw = () => {
    if (!cy) return;
    section.dataset.state = 'layout';
    cy.elements().remove();
    cy.add(elementsFor(vis, data));
    const layout = cy.layout({
      name: 'dagre', rankDir: 'LR', nodeSep: 10, rankSep: 90, edgeSep: 8, padding: 16, fit: true, animate: false,
    });
    layout.one('layoutstop', () => {
      if (cy.zoom() > MAX_FIT_ZOOM) {
        cy.zoom(MAX_FIT_ZOOM);
        cy.center();
      } else if (cy.zoom() < MIN_READABLE_ZOOM) {
        // Too big to read whole: start readable around the centre node
        // (Fit shows everything; the text list has every node).
        const root = cy.nodes('[root = 1]');
        cy.zoom(MIN_READABLE_ZOOM);
        const p = root.renderedPosition();
        cy.panBy({ x: canvas.clientWidth * 0.3 - p.x, y: canvas.clientHeight / 2 - p.y });
      }
      section.dataset.state = 'drawn';
      window.__dq_topology_drawn_ms = performance.now();
    });
    layout.run();
  };

  for (const t of toggles) {
    t.cb.addEventListener('change', () => {
      const show = showParam();
      history.replaceState(null, '', route('topology', { id, depth, show }));
      const now = new Set(show.split(',').filter(Boolean));
      vis = visibleGraph(data, now);
      redrawText();
      draw();
    });
  }

  try {
    await vendor(['cytoscape.min.js', 'cytoscape-dagre.js']);
  } catch (e) {
    canvas.replaceWith(vendorNotice(e, 'The topology drawing (cytoscape)'));
    section.querySelector('.topo-layout')?.classList.add('text-only');
    section.dataset.state = 'text-only';
    return undefined;
  }
  if (signal.aborted) return undefined;
  const cytoscape = window.cytoscape;
  if (!cytoscape.__daemoniqDagre) {
    cytoscape.use(window.cytoscapeDagre);
    cytoscape.__daemoniqDagre = true;
  }
  cy = cytoscape({
    container: canvas,
    style: STYLE,
    minZoom: 0.05,
    maxZoom: 3,
    boxSelectionEnabled: false,
    selectionType: 'single',
    autoungrabify: true,
    textureOnViewport: data.nodes.length > 300,
    hideEdgesOnViewport: data.edges.length > 600,
  });
  window.__dq_cy = cy;
  cy.on('tap', 'node', (evt) => openPanel(evt.target.id()));
  cy.on('select', 'node', (evt) => evt.target.connectedEdges().addClass('loud'));
  cy.on('unselect', 'node', (evt) => evt.target.connectedEdges().removeClass('loud'));
  const fit = h('button', { type: 'button', class: 'secondary small' }, 'Fit');
  fit.addEventListener('click', () => cy.fit(undefined, 16));
  const zoomBy = (f) => cy.zoom({ level: cy.zoom() * f, renderedPosition: { x: canvas.clientWidth / 2, y: canvas.clientHeight / 2 } });
  const zin = h('button', { type: 'button', class: 'secondary small', 'aria-label': 'Zoom in' }, '+');
  zin.addEventListener('click', () => zoomBy(1.25));
  const zout = h('button', { type: 'button', class: 'secondary small', 'aria-label': 'Zoom out' }, '−');
  zout.addEventListener('click', () => zoomBy(0.8));
  tools.append(zin, zout, fit, h('span', { class: 'muted' }, 'Click a node for its details; drag to pan, wheel to zoom.'));
  draw();

  const onResize = debounce(() => cy?.resize(), 150);
  window.addEventListener('resize', onResize);
  return () => {
    window.removeEventListener('resize', onResize);
    if (window.__dq_cy === cy) delete window.__dq_cy;
    cy?.destroy();
    cy = null;
  };
}

// RDF terms on the page: IRIs as prefixed names that link to the node or
// class page, literals with their datatype or language, class colours.

import { compact } from './config.js';
import { h, hash, routeLink } from './dom.js';

// A literal without a datatype is an xsd:string (RDF 1.1): no tag for it.
export const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

/** A link to the node page of an IRI (the node page forwards classes to the class page). */
export function iriLink(iri, label, attrs) {
  const name = compact(iri);
  return routeLink('node', { id: iri }, label || name, { class: 'iri', title: label ? `${label} — ${name}` : iri, ...attrs });
}

/** A link to the class page. */
export function classLink(iri, label, attrs) {
  const name = compact(iri);
  return routeLink('class', { iri }, label || name, { class: 'iri class-link', title: iri, ...attrs });
}

/** The colours of a class: a hue from a hash of its name, light fill, dark edge. */
export function classColour(name) {
  const hue = hash(String(name ?? '')) % 360;
  return {
    fill: `hsl(${hue}, 70%, 88%)`,
    border: `hsl(${hue}, 45%, 38%)`,
  };
}

/** A small coloured chip naming a class, linking to its page. */
export function classChip(iri, label) {
  const name = compact(iri);
  const c = classColour(name);
  const a = classLink(iri, label || name, { class: 'chip class-chip' });
  a.style.background = c.fill;
  a.style.borderColor = c.border;
  return a;
}

/** A SPARQL JSON results term (`{type, value, datatype, xml:lang}`). */
export function termNode(t) {
  if (!t) return h('span', { class: 'muted' }, '');
  switch (t.type) {
    case 'uri':
      return iriLink(t.value);
    case 'bnode':
      return h('span', { class: 'bnode' }, `_:${t.value}`);
    case 'triple':
      return h('span', { class: 'triple' }, '<< ', termNode(t.value?.subject), ' ', termNode(t.value?.predicate), ' ', termNode(t.value?.object), ' >>');
    default: {
      const lang = t['xml:lang'];
      const dt = t.datatype;
      return h('span', { class: 'literal' },
        h('span', { class: 'literal-value' }, t.value),
        lang ? h('span', { class: 'tag' }, `@${lang}`) : null,
        dt && !lang && dt !== XSD_STRING ? h('span', { class: 'tag', title: dt }, compact(dt)) : null);
    }
  }
}

/** A plain-text form of a term, for CSV. */
export function termText(t) {
  if (!t) return '';
  if (t.type === 'bnode') return `_:${t.value}`;
  if (t.type === 'triple') return `<< ${termText(t.value?.subject)} ${termText(t.value?.predicate)} ${termText(t.value?.object)} >>`;
  return t.value ?? '';
}

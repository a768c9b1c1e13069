// The server's error body `{code, message, details, retry_after}` as a
// person reads it. The message is the server's, shown as text.

import { ApiError } from './api.js';
import { compact } from './config.js';
import { h, routeLink } from './dom.js';

/** `MALFORMED_QUERY` → "Malformed query". */
export function humanCode(code) {
  const s = String(code ?? 'error').toLowerCase().replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The line and column a parser error points at, if it says. */
export function errorPosition(err) {
  const d = err?.details;
  if (d && Number.isInteger(d.line)) return { line: d.line, column: Number.isInteger(d.column) ? d.column : 1 };
  const m = /\b(?:at|line)\s+(\d+):(\d+)/.exec(err?.message ?? '');
  return m ? { line: Number(m[1]), column: Number(m[2]) } : null;
}

function detailValue(v) {
  if (v == null) return h('span', { class: 'muted' }, '–');
  if (typeof v === 'object') return h('pre', { class: 'detail' }, JSON.stringify(v, null, 2));
  return h('span', null, String(v));
}

function candidates(list, linkFor) {
  return h('div', null,
    h('p', null, 'Did you mean one of these?'),
    h('ul', { class: 'candidates' }, list.map((c) => {
      const id = c.id ?? c.iri;
      const types = (c.types ?? []).map((t) => compact(t)).join(', ');
      return h('li', null,
        linkFor ? h('a', { href: linkFor(id) }, c.label || compact(id)) : routeLink('node', { id }, c.label || compact(id)),
        ' ', h('span', { class: 'muted' }, compact(id)),
        types ? h('span', { class: 'muted' }, ` (${types})`) : null);
    })));
}

/**
 * A box describing an error; `context` says what was being done.
 * `opts.candidateLink(id)`: where an ambiguous label's candidates link to
 * (default: their node pages).
 */
export function errorBox(err, context, opts = {}) {
  const e = err instanceof ApiError ? err : new ApiError(0, { code: 'CLIENT_ERROR', message: err?.message ?? String(err) });
  const pos = errorPosition(e);
  const details = e.details && typeof e.details === 'object' ? e.details : null;
  const rest = details ? Object.entries(details).filter(([k]) => !['candidates', 'line', 'column'].includes(k)) : [];
  return h('div', { class: 'error', role: 'alert' },
    h('p', { class: 'error-title' },
      h('strong', null, context ? `${context}: ${humanCode(e.code)}` : humanCode(e.code)),
      ' ', h('span', { class: 'muted' }, `(${e.code}${e.status ? `, HTTP ${e.status}` : ''})`)),
    h('p', { class: 'error-message' }, e.message),
    pos ? h('p', null, `At line ${pos.line}, column ${pos.column}.`) : null,
    e.retryAfter != null ? h('p', null, `The server says to try again in ${e.retryAfter} s.`) : null,
    details?.candidates?.length ? candidates(details.candidates, opts.candidateLink) : null,
    rest.length ? h('dl', { class: 'details' }, rest.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, detailValue(v))])) : null);
}

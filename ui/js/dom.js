// DOM helpers. Every piece of text from the server (labels, literals,
// excerpts, answers, error messages) goes through text nodes: nothing here
// parses HTML, so untrusted text stays text.

/**
 * Creates an element. `attrs`: `class`, `text` (textContent), `on<event>`
 * (a listener), `dataset`, booleans (present when true), anything else as an
 * attribute. Children: nodes, strings (as text) or nested arrays; null,
 * undefined and false are skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = String(v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/** Appends children (nodes, text, nested arrays) to `el`. */
export function append(el, ...children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces the children of `el` (null, undefined and false are skipped). */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, ...children);
}

/** A hash route: `route('node', {id})` → `#/node?id=…`. */
export function route(name, params) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v != null && v !== '') qs.set(k, String(v));
  }
  const s = qs.toString();
  return `#/${name}${s ? `?${s}` : ''}`;
}

/** A link to a hash route. */
export function routeLink(name, params, text, attrs) {
  return h('a', { ...attrs, href: route(name, params) }, text);
}

/** Shortens `s` to `max` characters with an ellipsis. */
export function truncate(s, max) {
  const str = String(s ?? '');
  return str.length > max ? `${str.slice(0, Math.max(1, max - 1))}…` : str;
}

/** A number with thousands separators. */
export function num(n) {
  return typeof n === 'number' ? n.toLocaleString('en-US') : String(n ?? '–');
}

/** A date-time as the reader's local time, with the ISO value in a title. */
export function time(iso) {
  if (!iso) return h('span', { class: 'muted' }, '–');
  const d = new Date(iso);
  const shown = Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString(undefined, {
    year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
  });
  return h('time', { datetime: String(iso), title: String(iso) }, shown);
}

/** A short sha256 with the full value in a title. */
export function sha(s) {
  if (!s) return h('span', { class: 'muted' }, '–');
  return h('code', { class: 'sha', title: String(s) }, String(s).slice(0, 12));
}

/** A status line that a screen reader announces. */
export function loading(text = 'Loading…') {
  return h('p', { class: 'loading', role: 'status' }, text);
}

/** Calls `fn` once `ms` have passed without another call. */
export function debounce(fn, ms) {
  let t;
  return (...args) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...args), ms);
  };
}

/** A 32-bit FNV-1a hash of a string (stable colours and shapes). */
export function hash(s) {
  let x = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    x ^= s.charCodeAt(i);
    x = Math.imul(x, 0x01000193);
  }
  return x >>> 0;
}

/** Offers `text` as a file download. */
export function download(name, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// The SPARQL view: Yasqe as the editor (completion of prefixes, classes and
// properties from this server only), results as a table of our own with
// IRIs as prefixed names linking to the node or class page, CSV and JSON
// downloads, the server's errors as a person reads them.

import { getJson, request } from './api.js';
import { config, vendor, vendorNotice } from './config.js';
import { download, h, num, replace, route } from './dom.js';
import { errorBox, errorPosition } from './errors.js';
import { termNode, termText } from './terms.js';

const MAX_ROWS_SHOWN = 2000;
const FALLBACK_QUERY = 'SELECT ?s ?p ?o WHERE {\n  ?s ?p ?o\n}\nLIMIT 10\n';
const LAST_QUERY = 'daemoniq.sparql.last';

// ---- Yasqe set-up -------------------------------------------------------

const PROPERTY_QUERY = `PREFIX owl: <http://www.w3.org/2002/07/owl#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
SELECT DISTINCT ?p WHERE {
  { ?p a owl:ObjectProperty } UNION { ?p a owl:DatatypeProperty } UNION
  { ?p a owl:AnnotationProperty } UNION { ?p a rdf:Property } UNION { [] ?p [] }
}`;

let propertyList = null;
// The last results shown, kept for the way back to this view.
let lastResult = null;

/** Every property this store declares or uses (once per page). */
function properties() {
  if (!propertyList) {
    propertyList = request('/sparql', {
      method: 'POST', body: PROPERTY_QUERY, contentType: 'application/sparql-query',
      accept: 'application/sparql-results+json',
    }).then((r) => r.results.bindings.map((b) => b.p?.value).filter((v) => typeof v === 'string').sort(),
      (e) => {
        propertyList = null;
        console.warn('property completion unavailable:', e.message);
        return [];
      });
  }
  return propertyList;
}

/** Classes from `/api/search` whose IRI extends what was typed. */
async function classes(_yasqe, token) {
  const typed = token?.autocompletionString ?? '';
  const q = typed.replace(/^.*[#/:]/, '');
  if (!q) return [];
  try {
    const r = await getJson('/api/search', { q, kind: 'class', limit: 50 });
    const iris = (r.results ?? []).map((x) => x.iri).filter(Boolean);
    return token?.tokenPrefixUri ? iris.filter((i) => i.startsWith(typed)) : iris;
  } catch (e) {
    console.warn('class completion unavailable:', e.message);
    return [];
  }
}

function setUpYasqe(Yasqe) {
  if (Yasqe.__daemoniq) return;
  Yasqe.__daemoniq = true;
  const d = Yasqe.defaults;
  // The library's completers that call prefix.cc and LOV stay off: ours
  // read this server only.
  Yasqe.forkAutocompleter('prefixes', {
    name: 'dq-prefixes',
    persistenceId: null,
    get: () => Object.entries(config().prefixes).map(([p, ns]) => `${p}: <${ns}>`).sort(),
  }, false);
  Yasqe.forkAutocompleter('class', { name: 'dq-class', get: classes }, false);
  Yasqe.forkAutocompleter('property', {
    name: 'dq-property', bulk: true, persistenceId: null, get: () => properties(),
  }, false);
  d.autocompleters = ['variables', 'dq-prefixes', 'dq-class', 'dq-property'];
  d.prefixCcApi = null;
  d.persistenceId = null;
  d.consumeShareLink = null;
  d.createShareableLink = null;
  d.createShortLink = undefined;
  d.showQueryButton = false;
  d.resizeable = true;
  d.editorHeight = '16rem';
  d.requestConfig = { ...d.requestConfig, endpoint: '/sparql' };
  // Running is the view's job (with the API key); the editor's own
  // Ctrl-Enter would query without it.
  d.extraKeys = { ...d.extraKeys, 'Ctrl-Enter': () => {}, 'Cmd-Enter': () => {} };
}

/** The editor: Yasqe when it is there, else a plain text area. */
async function makeEditor(host, value, onRun, notices) {
  try {
    await vendor(['yasqe.min.js'], ['yasqe.min.css']);
    const Yasqe = window.Yasqe;
    setUpYasqe(Yasqe);
    const label = h('span', { id: 'sparql-editor-label', class: 'visually-hidden' }, 'SPARQL query');
    host.append(label);
    const y = new Yasqe(host, { value });
    y.getInputField()?.setAttribute('aria-labelledby', 'sparql-editor-label');
    let mark = null;
    const clearMark = () => {
      mark?.clear();
      mark = null;
    };
    y.on('change', clearMark);
    host.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
        e.preventDefault();
        e.stopPropagation();
        onRun();
      }
    }, true);
    return {
      get: () => y.getValue(),
      set: (v) => y.setValue(v),
      focus: () => y.focus(),
      markError(line, column) {
        clearMark();
        const l = Math.max(0, Math.min(line - 1, y.lineCount() - 1));
        const text = y.getLine(l);
        const c = Math.max(0, Math.min(column - 1, Math.max(0, text.length - 1)));
        const token = /^\S+/.exec(text.slice(c));
        mark = y.markText({ line: l, ch: c }, { line: l, ch: c + (token ? token[0].length : 1) }, { className: 'dq-error-mark' });
        y.setCursor({ line: l, ch: c });
      },
      destroy: () => y.destroy?.(),
    };
  } catch (e) {
    notices.append(vendorNotice(e, 'The SPARQL editor (Yasqe)'));
    const ta = h('textarea', {
      id: 'sparql-editor', class: 'code', rows: '12', spellcheck: 'false', autocapitalize: 'off',
      'aria-label': 'SPARQL query',
    });
    ta.value = value;
    ta.addEventListener('keydown', (ev) => {
      if ((ev.ctrlKey || ev.metaKey) && ev.key === 'Enter') {
        ev.preventDefault();
        onRun();
      }
    });
    host.append(ta);
    return {
      get: () => ta.value,
      set: (v) => { ta.value = v; },
      focus: () => ta.focus(),
      markError(line) {
        const lines = ta.value.split('\n');
        const start = lines.slice(0, line - 1).reduce((n, s) => n + s.length + 1, 0);
        ta.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
      },
      destroy: () => {},
    };
  }
}

// ---- results --------------------------------------------------------------

function csvCell(s) {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function toCsv(data) {
  const vars = data.head?.vars ?? [];
  const lines = [vars.map(csvCell).join(',')];
  for (const b of data.results?.bindings ?? []) lines.push(vars.map((v) => csvCell(termText(b[v]))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function resultsTable(data) {
  const vars = data.head?.vars ?? [];
  const rows = data.results?.bindings ?? [];
  const shown = rows.slice(0, MAX_ROWS_SHOWN);
  const table = h('table', { class: 'results' },
    h('caption', { class: 'visually-hidden' }, 'Query results'),
    h('thead', null, h('tr', null, h('th', { scope: 'col', class: 'rownum' }, '#'), vars.map((v) => h('th', { scope: 'col' }, `?${v}`)))),
    h('tbody', null, shown.map((b, i) => h('tr', null,
      h('td', { class: 'rownum' }, String(i + 1)),
      vars.map((v) => h('td', null, termNode(b[v])))))));
  return h('div', { class: 'table-scroll' }, table,
    rows.length > shown.length ? h('p', { class: 'muted' }, `The first ${num(shown.length)} of ${num(rows.length)} rows are shown; the downloads have all of them.`) : null);
}

// ---- the view --------------------------------------------------------------

export async function render(section, params, signal) {
  const cfg = config();
  let initial = params.get('query');
  if (!initial) {
    try {
      initial = sessionStorage.getItem(LAST_QUERY);
    } catch { /* no storage */ }
  }
  initial = initial || cfg.examples[0]?.query || FALLBACK_QUERY;

  const notices = h('div');
  const editorHost = h('div', { class: 'editor-host' });
  const runButton = h('button', { type: 'button', class: 'primary', id: 'run-query' }, 'Run query');
  const summary = h('p', { class: 'results-summary', role: 'status', 'aria-live': 'polite' });
  const downloads = h('div', { class: 'row downloads', hidden: true });
  const results = h('div', { class: 'results-host', id: 'sparql-results' });

  let examplePicker = null;
  if (cfg.examples.length) {
    examplePicker = h('select', { id: 'example-query' },
      h('option', { value: '' }, 'Choose an example…'),
      cfg.examples.map((ex, i) => h('option', { value: String(i) }, ex.title)));
  }

  section.append(
    h('h1', null, 'SPARQL'),
    h('p', { class: 'lede' }, 'Query the graph: the ontology and the building models. ',
      h('kbd', null, 'Ctrl'), '+', h('kbd', null, 'Enter'), ' runs the query; ',
      h('kbd', null, 'Ctrl'), '+', h('kbd', null, 'Space'), ' completes prefixes, classes and properties; ',
      h('kbd', null, 'Esc'), ' then ', h('kbd', null, 'Tab'), ' leaves the editor.'),
    notices,
    h('div', { class: 'row toolbar' },
      examplePicker ? h('label', { for: 'example-query' }, 'Examples ') : null, examplePicker,
      runButton),
    editorHost,
    h('div', { class: 'row results-bar' }, summary, downloads),
    results);

  let runAbort = null;
  const editor = await makeEditor(editorHost, initial, () => run(), notices);
  if (signal.aborted) {
    editor.destroy();
    return undefined;
  }
  window.__dq_editor = editor;

  examplePicker?.addEventListener('change', () => {
    const ex = cfg.examples[Number(examplePicker.value)];
    if (ex) {
      editor.set(ex.query);
      editor.focus();
    }
  });

  /** Shows a response: a results table, a yes/no, or a graph as text. */
  function show({ type, text, ms }) {
    downloads.replaceChildren();
    results.replaceChildren();
    if (type.includes('json')) {
      const data = JSON.parse(text);
      if (typeof data.boolean === 'boolean') {
        summary.textContent = `ASK: ${data.boolean ? 'yes' : 'no'} (${ms} ms)`;
        results.append(h('p', { class: 'ask-result' }, data.boolean ? 'true' : 'false'));
      } else {
        const n = data.results?.bindings?.length ?? 0;
        summary.textContent = `${num(n)} row${n === 1 ? '' : 's'} in ${ms} ms`;
        results.append(resultsTable(data));
        downloads.append(
          h('button', { type: 'button', class: 'secondary', onclick: () => download('results.csv', 'text/csv', toCsv(data)) }, 'Download CSV'));
      }
      downloads.append(h('button', { type: 'button', class: 'secondary', onclick: () => download('results.json', 'application/sparql-results+json', text) }, 'Download JSON'));
    } else {
      summary.textContent = `Graph result (${type.split(';')[0]}) in ${ms} ms`;
      results.append(h('pre', { class: 'code graph-result' }, text));
      downloads.append(h('button', { type: 'button', class: 'secondary', onclick: () => download('results.ttl', 'text/turtle', text) }, 'Download Turtle'));
    }
    downloads.hidden = false;
  }

  async function run() {
    const query = editor.get();
    if (!query.trim()) return;
    try {
      sessionStorage.setItem(LAST_QUERY, query);
    } catch { /* no storage */ }
    history.replaceState(null, '', route('sparql', { query }));
    runAbort?.abort();
    runAbort = new AbortController();
    const mine = runAbort;
    runButton.disabled = true;
    summary.textContent = 'Running…';
    downloads.hidden = true;
    downloads.replaceChildren();
    results.replaceChildren();
    lastResult = null;
    const t0 = performance.now();
    try {
      const res = await request('/sparql', {
        method: 'POST', body: query, contentType: 'application/sparql-query',
        accept: 'application/sparql-results+json, text/turtle;q=0.9', raw: true, signal: mine.signal,
      });
      const type = res.headers.get('content-type') ?? '';
      const text = await res.text();
      if (mine.signal.aborted) return;
      const shown = { query, type, text, ms: Math.round(performance.now() - t0) };
      show(shown);
      lastResult = shown;
    } catch (e) {
      if (mine.signal.aborted || e.name === 'AbortError') return;
      summary.textContent = '';
      results.append(errorBox(e, 'The query failed'));
      const pos = errorPosition(e);
      if (pos) editor.markError(pos.line, pos.column);
    } finally {
      if (mine === runAbort) runButton.disabled = false;
    }
  }

  runButton.addEventListener('click', () => run());
  if (params.get('run') === '1') run();
  // Back from a node page: the results of this query are still there.
  else if (lastResult && lastResult.query === editor.get()) show(lastResult);
  return () => {
    runAbort?.abort();
    editor.destroy();
    if (window.__dq_editor === editor) delete window.__dq_editor;
  };
}

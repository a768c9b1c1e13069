// Chat: a question (optionally with selected text) to POST /chat, the
// answer contract as a person reads it (Answer, Evidence, Timestamp,
// Limitations, Next step), an abstention with its refusal type, and "Why
// this answer": grounding, graph queries (each opens in the SPARQL view),
// retrieval mode, chunk scores before and after the rerank, stage timings.

import { postJson } from './api.js';
import { compact, shortName } from './config.js';
import { h, num, replace, route, routeLink, sha, time } from './dom.js';
import { errorBox, humanCode } from './errors.js';

// The conversation of this page session (kept across views).
const log = [];
let sessionId = null;

function newSessionId() {
  try {
    return crypto.randomUUID();
  } catch {
    return null;
  }
}

const fmt = (x, d = 3) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(d) : '–');

function table(headers, rows, cls) {
  return h('div', { class: 'table-scroll' }, h('table', { class: `compact ${cls ?? ''}` },
    h('thead', null, h('tr', null, headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', null, rows.map((r) => h('tr', null, r.map((c) => h('td', null, c)))))));
}

function labelsOf(trace) {
  const m = new Map();
  for (const e of trace?.grounding?.entities ?? []) if (e.iri && e.label) m.set(e.iri, e.label);
  return m;
}

function graphIdChip(id, labels) {
  const text = labels.get(id) || shortName(id);
  return routeLink('node', { id }, text, { class: 'chip graph-id', title: id });
}

function pagesOf(file, trace) {
  const pages = new Set();
  for (const c of trace?.chunks ?? []) {
    if (c.source_ref === file && (c.used || c.selected) && c.page_label) pages.add(c.page_label);
  }
  return [...pages];
}

function evidenceItem(ev, trace, labels) {
  return h('li', { class: 'evidence-item' },
    h('div', { class: 'chips-row' }, h('span', { class: 'field-label' }, 'Graph'), (ev.graph_ids ?? []).map((id) => graphIdChip(id, labels))),
    h('div', { class: 'files' }, h('span', { class: 'field-label' }, 'Source'),
      (ev.file_paths ?? []).map((f) => {
        const pages = pagesOf(f, trace);
        return h('span', { class: 'file' }, h('code', null, f), pages.length ? ` (page ${pages.join(', ')})` : null);
      }),
      ev.source_sha ? [' ', h('span', { class: 'muted' }, 'sha256 '), sha(ev.source_sha)] : null),
    ev.excerpt ? h('blockquote', { class: 'excerpt' }, ev.excerpt) : null);
}

function grounding(g) {
  if (!g) return h('p', { class: 'muted' }, 'No grounding (it failed or was not run).');
  return h('div', null,
    h('p', null, `Grounding confidence (gconf): ${fmt(g.gconf, 2)}`),
    (g.entities ?? []).length ? table(['Entity', 'Kind', 'Class', 'Confidence', 'As written'],
      g.entities.map((e) => [routeLink('node', { id: e.iri }, e.label || compact(e.iri)), e.kind, e.class ?? '–', fmt(e.confidence, 2), e.matched ?? ''])) : null,
    (g.equipment_types ?? []).length ? table(['Equipment type', 'Haystack kind', 'Confidence'],
      g.equipment_types.map((t) => [t.brick_class ?? '–', t.haystack_kind ?? '–', fmt(t.confidence, 2)])) : null,
    (g.point_types ?? []).length ? table(['Point type', 'Haystack tags', 'Confidence'],
      g.point_types.map((t) => [t.brick_class ?? '–', (t.haystack_tags ?? []).join(' '), fmt(t.confidence, 2)])) : null,
    (g.raw_tags ?? []).length ? h('p', null, 'Tags: ', g.raw_tags.map((t) => h('span', { class: 'chip' }, t))) : null,
    (g.unresolved ?? []).length ? h('p', null, 'Named but not in the graph: ', g.unresolved.join(', ')) : null);
}

function graphStep(gt, labels) {
  const queries = gt?.queries ?? [];
  const facts = gt?.facts ?? [];
  const ans = gt?.answer;
  return h('div', null,
    (gt?.intents ?? []).length ? h('p', null, 'Intents: ', gt.intents.join(', ')) : null,
    gt?.read_as ? h('p', null, 'Read as: ', h('q', null, gt.read_as)) : null,
    gt?.understood ? h('p', null, 'Understood: ', gt.understood) : null,
    (gt?.unread ?? []).length ? h('p', null, 'Words not accounted for: ', gt.unread.join(', ')) : null,
    ans ? h('p', null, `Graph result: ${ans.kind}`,
      ans.count != null ? `, ${num(ans.count)} node${ans.count === 1 ? '' : 's'}` : '',
      ans.boolean != null ? `, ${ans.boolean ? 'yes' : 'no'}` : '',
      (ans.values ?? []).length ? `, values ${ans.values.join(', ')}` : '') : null,
    h('h4', null, `SPARQL that ran (${queries.length})`),
    queries.length ? h('ol', { class: 'queries' }, queries.map((q, i) => h('li', null,
      h('pre', { class: 'code' }, q),
      h('a', { href: route('sparql', { query: q, run: '1' }), class: 'button-link secondary small open-sparql' }, `Open query ${i + 1} in the SPARQL view`))))
      : h('p', { class: 'muted' }, 'No graph query ran.'),
    h('h4', null, `Graph facts (${facts.length})`),
    facts.length ? h('ul', { class: 'plain facts-list' }, facts.map((f) => h('li', null,
      f.negative ? h('span', { class: 'tag' }, 'nothing found') : null, ' ', f.text, ' ',
      (f.graph_ids ?? []).map((id) => graphIdChip(id, labels)),
      f.file_path ? h('span', { class: 'muted' }, ` — ${f.file_path}`) : null))) : null);
}

function retrieval(r) {
  const filter = r?.filter;
  return h('div', null,
    h('p', null, 'Mode: ', h('strong', null, r?.mode ?? '–')),
    filter ? h('dl', { class: 'facts' }, ['graph_ids', 'equip', 'brick_equip', 'ptags'].flatMap((k) => [
      h('dt', null, k), h('dd', null, (filter[k] ?? []).length ? filter[k].map((x) => (k === 'graph_ids' ? compact(x) : x)).join(', ') : '–')])) : null,
    (r?.decisions ?? []).length ? h('ol', null, r.decisions.map((d) => h('li', null, d))) : null);
}

function chunks(list) {
  if (!list?.length) return h('p', { class: 'muted' }, 'No document chunk was retrieved.');
  return table(['#', 'Document', 'Page', 'Section', 'Cosine', 'BM25', 'Fused', 'Reranked', 'Boosts', 'Top k', 'Used'],
    list.map((c, i) => [String(i + 1), h('code', null, c.source_ref), c.page_label ?? '', c.section_title ?? '',
      fmt(c.score), fmt(c.bm25), fmt(c.fused, 4), fmt(c.reranked, 4), (c.boosts ?? []).join(', ') || '–',
      c.selected ? 'yes' : 'no', c.used ? h('strong', null, 'used') : 'no']), 'chunks');
}

function whyPanel(trace, labels) {
  const a = trace?.answerability;
  const stages = Object.entries(trace?.stages_ms ?? {});
  return h('details', { class: 'why' },
    h('summary', null, 'Why this answer'),
    h('h3', null, 'Grounding'), grounding(trace?.grounding),
    h('h3', null, 'Graph first'), graphStep(trace?.graph, labels),
    h('h3', null, 'Document retrieval'), retrieval(trace?.retrieval),
    h('h4', null, 'Chunks, before and after the rerank'), chunks(trace?.chunks),
    a ? [h('h3', null, 'Answerability'), h('p', null,
      `best ${fmt(a.best)}, coverage ${fmt(a.coverage, 2)}, confidence ${fmt(a.confidence)}`,
      (a.held ?? []).length ? `; terms held: ${a.held.join(', ')}` : '',
      (a.missing ?? []).length ? `; missing: ${a.missing.join(', ')}` : '',
      (a.document ?? []).length ? `; naming the document (not measured): ${a.document.join(', ')}` : '')] : null,
    (trace?.conflicts ?? []).length ? [h('h3', null, 'Conflicts'), h('ul', null, trace.conflicts.map((c) => h('li', null, c)))] : null,
    (trace?.warnings ?? []).length ? [h('h3', null, 'Warnings'), h('ul', null, trace.warnings.map((c) => h('li', null, c)))] : null,
    h('h3', null, 'Stage timings'),
    stages.length ? table(['Stage', 'ms'], stages.map(([k, v]) => [k, fmt(v, 1)]), 'timings') : h('p', { class: 'muted' }, '–'));
}

function answerCard(entry) {
  const { question, selected, env, error } = entry;
  const card = h('article', { class: 'answer-card', 'aria-label': `Answer to: ${question}` },
    h('header', { class: 'card-head' },
      h('p', { class: 'question' }, h('span', { class: 'visually-hidden' }, 'Question: '), question),
      selected ? h('p', { class: 'muted' }, `Answered only from ${num(selected.length)} characters of selected text.`) : null));
  if (error) {
    card.classList.add('failed');
    card.append(errorBox(error, 'The question could not be answered'));
    return card;
  }
  const ans = env.answer ?? {};
  const trace = env.trace ?? {};
  const labels = labelsOf(trace);
  const refused = env.status === 'refused';
  card.classList.add(refused ? 'abstained' : 'answered');
  card.querySelector('.card-head').append(h('span', { class: `badge ${refused ? 'badge-warn' : 'badge-ok'}` }, refused ? 'Abstained' : 'Answered'));
  if (refused && env.refusal) {
    card.append(h('div', { class: 'abstain', role: 'note' },
      h('p', null, h('strong', null, `No answer: ${humanCode(env.refusal.refusal_type)}`), ' ', h('code', { class: 'muted' }, env.refusal.refusal_type)),
      h('p', null, env.refusal.reason)));
  }
  const evidence = ans.evidence ?? [];
  card.append(
    h('section', { class: 'contract-answer' }, h('h3', null, 'Answer'), h('p', { class: 'answer-text' }, ans.answer ?? '')),
    h('section', { class: 'contract-evidence' }, h('h3', null, `Evidence (${evidence.length})`),
      evidence.length ? h('ol', { class: 'evidence' }, evidence.map((ev) => evidenceItem(ev, trace, labels)))
        : h('p', { class: 'muted' }, 'None.')),
    h('dl', { class: 'facts contract-rest' },
      h('dt', null, 'Timestamp'), h('dd', null, time(ans.timestamp)),
      h('dt', null, 'Limitations'), h('dd', null, ans.limitations || '–'),
      h('dt', null, 'Next step'), h('dd', null, ans.next_step || '–')),
    whyPanel(trace, labels),
    h('p', { class: 'meta muted' }, `Request ${env.metadata?.request_id ?? '–'} · ${num(env.metadata?.processing_time_ms)} ms · ${num(env.metadata?.chunks_retrieved)} chunks retrieved`));
  return card;
}

export async function render(section) {
  if (!sessionId) sessionId = newSessionId();
  const question = h('textarea', {
    id: 'chat-question', name: 'query', rows: '3', maxlength: '500', required: true,
    placeholder: 'Ask about the equipment, its points, how it is connected, or what the documents say',
  });
  const selected = h('textarea', { id: 'chat-selected', name: 'selected_text', rows: '5', maxlength: '5000' });
  const ask = h('button', { type: 'submit', class: 'primary', id: 'chat-ask' }, 'Ask');
  const status = h('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const answers = h('div', { class: 'answers', id: 'chat-answers' });
  const form = h('form', { class: 'chat-form stack' },
    h('label', { for: 'chat-question' }, 'Question about the building'),
    question,
    h('details', { class: 'selected-text' },
      h('summary', null, 'Answer only from a passage (selected text)'),
      h('label', { for: 'chat-selected' }, 'Passage, 10 to 5,000 characters'), selected),
    h('div', { class: 'row' }, ask, status, h('span', { class: 'muted hint' }, 'Enter asks; Shift+Enter starts a new line.')));
  section.append(
    h('h1', null, 'Chat'),
    h('p', { class: 'lede' }, 'Answers come from the graph first, then from the ingested documents, with their evidence; when the sources do not say, the answer is “unknown”.'),
    form, answers);

  const redraw = () => replace(answers, ...log.slice().reverse().map(answerCard));
  redraw();

  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const q = question.value.trim();
    if (!q) return;
    const sel = selected.value.trim();
    const body = { query: q };
    if (sel) body.selected_text = sel;
    if (sessionId) body.session_id = sessionId;
    ask.disabled = true;
    status.textContent = 'Thinking…';
    const entry = { question: q, selected: sel || null };
    try {
      entry.env = await postJson('/chat', body);
    } catch (err) {
      entry.error = err;
    }
    log.push(entry);
    ask.disabled = false;
    status.textContent = entry.error ? 'The question failed.' : (entry.env.status === 'refused' ? 'Abstained.' : 'Answered.');
    if (section.isConnected) {
      redraw();
      question.select();
    }
  });
  question.focus();
}

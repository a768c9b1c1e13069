// Documents: the ingested documents (GET /api/documents), upload with
// progress (multipart POST /ingest) and the run's report, delete with a
// confirmation (DELETE /api/documents/{source_id}).

import { getJson, request, upload } from './api.js';
import { h, num, replace, sha, time } from './dom.js';
import { errorBox } from './errors.js';
import { refreshStatus } from './status.js';

function confirmDialog(title, text, action) {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'submit', class: 'danger', value: 'yes' }, action);
    const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const form = h('form', { method: 'dialog', class: 'stack' },
      h('h2', { id: 'confirm-title' }, title), h('p', null, text), h('div', { class: 'row' }, yes, no));
    const dialog = h('dialog', { class: 'modal', 'aria-labelledby': 'confirm-title' }, form);
    const done = (v) => {
      dialog.close();
      dialog.remove();
      resolve(v);
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      done(true);
    });
    no.addEventListener('click', () => done(false));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

function reportView(r) {
  const rep = r.report ?? {};
  const c = rep.counts ?? {};
  const errors = r.errors ?? [];
  return h('section', { class: 'ingest-report', 'aria-labelledby': 'report-title' },
    h('h2', { id: 'report-title' }, 'Ingest report'),
    h('p', null,
      `${num(c.documents)} document${c.documents === 1 ? '' : 's'}: ${num(c.indexed)} indexed, ${num(c.replaced)} replaced, `,
      `${num(c.unchanged)} unchanged, ${num(c.failed)} failed. ${num(c.chunks_written)} chunks written, `,
      `${num(c.chunks_skipped)} left out, ${num(c.duplicates)} duplicates; the index holds ${num(c.index_points)} points.`),
    rep.model ? h('p', { class: 'muted' }, `Model ${rep.model.id} (${rep.model.dimension} dimensions), ${rep.vector_backend ?? ''}, ${num(Math.round(rep.elapsed_ms ?? 0))} ms.`) : null,
    (rep.documents ?? []).length ? h('div', { class: 'table-scroll' }, h('table', { class: 'compact' },
      h('thead', null, h('tr', null, ['Document', 'Status', 'Chunks', 'Cut', 'Left out', 'Duplicates', 'sha256'].map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', null, rep.documents.map((d) => h('tr', { class: `status-${d.status}` },
        h('td', null, h('code', null, d.source_ref)),
        h('td', null, d.status),
        h('td', null, num(d.chunks)),
        h('td', null, num(d.chunks_cut)),
        h('td', null, num(d.chunks_skipped)),
        h('td', null, num((d.duplicates ?? []).length)),
        h('td', null, sha(d.source_sha))))))) : null,
    h('h3', null, `Not indexed (${errors.length})`),
    errors.length ? h('div', { class: 'table-scroll' }, h('table', { class: 'compact index-errors' },
      h('thead', null, h('tr', null, ['File', 'Chunk', 'Why'].map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', null, errors.map((e) => h('tr', null,
        h('td', null, h('code', null, e.file)),
        h('td', null, e.chunk == null ? 'whole file' : String(e.chunk)),
        h('td', null, e.reason))))))
      : h('p', { class: 'muted' }, 'Every chunk was linked to the graph and indexed.'));
}

export async function render(section, _params, signal) {
  const files = h('input', { type: 'file', id: 'doc-files', name: 'file', multiple: true, accept: '.pdf,.html,.htm,.md,.markdown,.txt' });
  const domain = h('input', { type: 'text', id: 'doc-domain', name: 'domain', placeholder: 'the server default' });
  const sourceType = h('input', { type: 'text', id: 'doc-source-type', name: 'source_type', placeholder: 'from the file' });
  const version = h('input', { type: 'text', id: 'doc-version', name: 'doc_version' });
  const submit = h('button', { type: 'submit', class: 'primary', id: 'doc-upload' }, 'Upload and ingest');
  const progress = h('progress', { id: 'upload-progress', max: '100', value: '0', hidden: true, 'aria-label': 'Upload progress' });
  const progressText = h('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
  const report = h('div', { id: 'ingest-report' });
  const listHost = h('div', { id: 'doc-list' });
  const form = h('form', { class: 'upload-form stack', 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Upload'),
    h('label', { for: 'doc-files' }, 'Files (PDF, HTML, Markdown, text)'), files,
    h('details', null, h('summary', null, 'Options'),
      h('div', { class: 'grid-3' },
        h('div', { class: 'field' }, h('label', { for: 'doc-domain' }, 'Domain'), domain),
        h('div', { class: 'field' }, h('label', { for: 'doc-source-type' }, 'Source type'), sourceType),
        h('div', { class: 'field' }, h('label', { for: 'doc-version' }, 'Version'), version))),
    h('div', { class: 'row' }, submit, progress, progressText));

  section.append(
    h('h1', null, 'Documents'),
    h('p', { class: 'lede' }, 'Manuals, sequences of operation and service logs: each chunk is linked to the graph nodes it names and indexed; a chunk that links to nothing is reported and left out.'),
    form, report,
    h('h2', { id: 'doc-list-title' }, 'Ingested documents'),
    listHost);

  async function loadList() {
    replace(listHost, h('p', { class: 'loading', role: 'status' }, 'Loading…'));
    try {
      const r = await getJson('/api/documents', null, { signal });
      const docs = r.documents ?? [];
      if (!docs.length) {
        replace(listHost, h('p', { class: 'muted' }, 'No documents yet.'));
        return;
      }
      replace(listHost, h('div', { class: 'table-scroll' }, h('table', { class: 'documents', 'aria-labelledby': 'doc-list-title' },
        h('thead', null, h('tr', null, ['Document', 'Title', 'Chunks', 'Points', 'sha256', 'Updated', 'Kind', ''].map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', null, docs.map((d) => {
          const del = h('button', { type: 'button', class: 'danger small', 'aria-label': `Delete ${d.source_ref}` }, 'Delete');
          del.addEventListener('click', () => remove(d));
          return h('tr', { dataset: { sourceId: d.source_id } },
            h('td', { 'data-label': 'Document' }, h('code', null, d.source_ref)),
            h('td', { 'data-label': 'Title' }, d.title || h('span', { class: 'muted' }, '–')),
            h('td', { class: 'num', 'data-label': 'Chunks' }, num(d.chunks)),
            h('td', { class: 'num', 'data-label': 'Points' }, num(d.points)),
            h('td', { 'data-label': 'sha256' }, sha(d.source_sha)),
            h('td', { 'data-label': 'Updated' }, time(d.updated_at)),
            h('td', { 'data-label': 'Kind' }, [d.domain, d.source_type, d.doc_version].filter(Boolean).join(' · ')),
            h('td', null, del));
        })))));
    } catch (e) {
      if (e.name !== 'AbortError') replace(listHost, errorBox(e, 'Cannot list the documents'));
    }
  }

  async function remove(d) {
    const ok = await confirmDialog('Delete this document?',
      `${d.source_ref}: its ${num(d.points)} vector points and ${num(d.chunks)} chunk nodes are removed from the index and the graph. The file itself is not touched.`,
      'Delete');
    if (!ok) return;
    progressText.textContent = `Deleting ${d.source_ref}…`;
    try {
      await request(`/api/documents/${encodeURIComponent(d.source_id)}`, { method: 'DELETE' });
      progressText.textContent = `Deleted ${d.source_ref}.`;
      refreshStatus();
    } catch (e) {
      progressText.textContent = '';
      replace(report, errorBox(e, `Cannot delete ${d.source_ref}`));
    }
    loadList();
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!files.files.length) {
      progressText.textContent = 'Choose one or more files first.';
      files.focus();
      return;
    }
    const body = new FormData();
    for (const f of files.files) body.append('file', f, f.name);
    for (const [k, input] of [['domain', domain], ['source_type', sourceType], ['doc_version', version]]) {
      if (input.value.trim()) body.append(k, input.value.trim());
    }
    submit.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    progressText.textContent = 'Uploading…';
    report.replaceChildren();
    try {
      const r = await upload('/ingest', body, (loaded, total) => {
        const pct = total ? Math.round((loaded / total) * 100) : 0;
        progress.value = pct;
        progressText.textContent = pct < 100 ? `Uploading… ${pct}%` : 'Uploaded; chunking, linking and embedding…';
      });
      progress.value = 100;
      progressText.textContent = 'Done.';
      replace(report, reportView(r));
      form.reset();
      refreshStatus();
    } catch (err) {
      progressText.textContent = 'The upload failed.';
      replace(report, errorBox(err, 'Ingest failed'));
    } finally {
      submit.disabled = false;
      progress.hidden = true;
    }
    loadList();
  });

  await loadList();
}

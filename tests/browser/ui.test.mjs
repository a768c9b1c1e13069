// Browser tests of the DaemonIQ web UI, against a real `daemoniq serve`
// (demo campus + demo corpus + the fixtures beside this file), in Debian's
// headless Chromium driven by playwright-core. Run by
// scripts/browser-test.sh, which starts the server and sets:
//   DAEMONIQ_BASE_URL        the server (http://127.0.0.1:PORT)
//   DAEMONIQ_BROWSER_REPORT  where screenshots and measurements go
//   DAEMONIQ_BROWSER_DEPS    the directory playwright-core is installed in
//   DAEMONIQ_CHROMIUM        the browser (default /usr/bin/chromium)
//
// Every test fails when a request leaves 127.0.0.1, when the page logs a
// console error or throws, or when `window.__pwned` (which the fixtures'
// HTML and script would set if they ran) is set; each saves screenshots.

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BASE = process.env.DAEMONIQ_BASE_URL;
if (!BASE) throw new Error('DAEMONIQ_BASE_URL is not set: run the tests with scripts/browser-test.sh');
const REPORT = process.env.DAEMONIQ_BROWSER_REPORT
  ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'daemoniq', 'browser-report');
const CHROMIUM = process.env.DAEMONIQ_CHROMIUM ?? '/usr/bin/chromium';
const require = createRequire(path.join(process.env.DAEMONIQ_BROWSER_DEPS ?? here, 'package.json'));
const { chromium } = require('playwright-core');

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const DESKTOP = { width: 1280, height: 800 };
const NARROW = { width: 400, height: 800 };
const SLOW = 120_000;
const XSS = 'urn:daemoniq:browser-test:xss#';

let browser;

before(async () => {
  mkdirSync(REPORT, { recursive: true });
  // launch() gives every run a fresh, temporary user-data-dir.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
});

after(async () => {
  await browser?.close();
});

/** A screenshot into the report directory. */
async function shot(page, name, fullPage = false) {
  await page.screenshot({ path: path.join(REPORT, `${name}.png`), fullPage });
}

/**
 * Runs `fn(page, context)` in a fresh context with the guards: requests to
 * any host but 127.0.0.1 are recorded and refused, console errors and page
 * errors are recorded, and `window.__pwned` must stay unset. `allowHttpErrors`:
 * URL patterns whose error statuses the test provokes on purpose (Chromium
 * logs "Failed to load resource" for them).
 */
async function session(name, fn, opts = {}) {
  const context = await browser.newContext({ viewport: opts.viewport ?? DESKTOP, serviceWorkers: 'block' });
  const offsite = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    let host = '';
    try {
      host = new URL(url).hostname;
    } catch { /* not a URL with a host */ }
    if (/^(https?|wss?|ftp):/i.test(url) && host !== '127.0.0.1') {
      offsite.push(url);
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
  context.on('request', (req) => {
    const url = req.url();
    if (/^(https?|wss?|ftp):/i.test(url) && new URL(url).hostname !== '127.0.0.1' && !offsite.includes(url)) offsite.push(url);
  });
  const page = await context.newPage();
  page.setDefaultTimeout(opts.timeout ?? 30_000);
  const errors = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const where = m.location()?.url ?? '';
    if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text())
      && (opts.allowHttpErrors ?? []).some((re) => re.test(where))) return;
    errors.push(`${m.text()} [${where}]`);
  });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  let failure = null;
  try {
    await fn(page, context);
  } catch (e) {
    failure = e;
  }
  await shot(page, failure ? `${name}-FAILED` : `${name}-end`).catch(() => {});
  const pwned = await page.evaluate(() => window.__pwned).catch(() => undefined);
  await context.close();
  if (failure) throw failure;
  assert.deepEqual(offsite, [], 'requests left 127.0.0.1');
  assert.deepEqual(errors, [], 'console errors');
  assert.equal(pwned, undefined, 'text from the data ran as script');
}

function ui(hash) {
  return `${BASE}/ui/${hash}`;
}

async function heading(page) {
  return (await page.locator('main h1').first().innerText()).trim();
}

/** Waits until the topology view has drawn (layout done). */
async function drawn(page) {
  await page.locator('section.view-topology[data-state="drawn"]').waitFor({ timeout: 60_000 });
}

// ---------------------------------------------------------------------------

test('SPARQL: a query renders its rows, IRIs link to node pages, examples run', { timeout: SLOW }, () => session('sparql-rows', async (page) => {
  const query = [
    'PREFIX brick: <https://brickschema.org/schema/Brick#>',
    'PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>',
    'SELECT ?ahu ?label ?class WHERE {',
    '  ?ahu a brick:Air_Handling_Unit ; rdfs:label ?label ; a ?class .',
    '} ORDER BY ?label',
  ].join('\n');
  await page.goto(ui(`#/sparql?${new URLSearchParams({ query, run: '1' })}`));
  await page.locator('#sparql-results tbody tr').first().waitFor();
  const rows = await page.locator('#sparql-results tbody tr').allInnerTexts();
  assert.ok(rows.length >= 3, `rows: ${rows.length}`);
  assert.ok(rows.some((r) => r.includes('AHU-1')), rows.join('\n'));
  // Classes come out as prefixed names.
  assert.ok(rows.some((r) => r.includes('brick:Air_Handling_Unit')), rows.join('\n'));
  assert.match(await page.locator('.results-summary').innerText(), /\d+ rows? in \d+ ms/);
  assert.equal(await page.locator('.downloads button', { hasText: 'Download CSV' }).count(), 1);
  assert.equal(await page.locator('.yasqe .CodeMirror').count(), 1, 'Yasqe is the editor');
  await shot(page, 'sparql-rows');

  // An example from /api/ui/config runs too.
  await page.selectOption('#example-query', { index: 1 });
  await page.click('#run-query');
  await page.waitForFunction(() => /rows? in/.test(document.querySelector('.results-summary')?.textContent ?? ''));
  assert.ok(await page.locator('#sparql-results tbody tr').count() > 0);

  // An IRI opens the node page.
  await page.goto(ui(`#/sparql?${new URLSearchParams({ query, run: '1' })}`));
  await page.locator('#sparql-results a.iri', { hasText: /#AHU-1$/ }).first().click();
  await page.locator('section.view-node .node-details').waitFor();
  assert.equal(await heading(page), 'AHU-1');
  assert.match(await page.locator('section.view-node').innerText(), /northfield_campus\.ttl/);
  await shot(page, 'node-page');
  // Back: the results are still there.
  await page.goBack();
  await page.locator('section.view-sparql #sparql-results tbody tr').first().waitFor();
}));

test('SPARQL: a malformed query shows the parser\'s message; an update is refused', { timeout: SLOW }, () => session('sparql-malformed', async (page) => {
  await page.goto(ui('#/sparql'));
  await page.waitForFunction(() => window.__dq_editor);
  await page.evaluate(() => window.__dq_editor.set('SELEC ?s WHERE {\n  ?s ?p ?o\n}'));
  await page.click('#run-query');
  const box = page.locator('#sparql-results .error');
  await box.waitFor();
  const text = await box.innerText();
  assert.match(text, /MALFORMED_QUERY/);
  assert.match(text, /HTTP 400/);
  assert.match(text, /expected/i, text);
  assert.match(text, /line 1, column \d+/i, text);
  assert.ok(await page.locator('.dq-error-mark').count() > 0, 'the error position is marked in the editor');
  await shot(page, 'sparql-malformed');

  await page.evaluate(() => window.__dq_editor.set('INSERT DATA { <urn:a> <urn:b> <urn:c> }'));
  await page.click('#run-query');
  await page.locator('#sparql-results .error', { hasText: 'UPDATE_FORBIDDEN' }).waitFor();
  await shot(page, 'sparql-update-refused');
}, { allowHttpErrors: [/\/sparql$/] }));

test('Classes: the filter finds VAV anywhere in the tree and its page lists instances', { timeout: SLOW }, () => session('classes', async (page) => {
  await page.goto(ui('#/classes'));
  await page.locator('.tree-item').first().waitFor();
  await page.fill('#class-filter', 'VAV');
  await page.locator('#class-search-results .search-result').first().waitFor();
  const results = page.locator('#class-search-results .search-result');
  const curies = await results.locator('.curie').allInnerTexts();
  const i = curies.indexOf('brick:VAV') >= 0 ? curies.indexOf('brick:VAV') : curies.indexOf('brick:Variable_Air_Volume_Box');
  assert.ok(i >= 0, `no VAV class in ${curies.join(', ')}`);
  const hit = results.nth(i);
  // Show it in the tree: the tree expands down to it.
  await hit.locator('button', { hasText: 'Show in tree' }).click();
  await page.waitForFunction(() => document.querySelector('.tree-item.highlight') || /not in the tree/.test(document.querySelector('.view-classes [role=status]')?.textContent ?? ''));
  await shot(page, 'classes-filter');
  await hit.locator('a.result-link').click();
  await page.locator('ul.instances li').first().waitFor();
  const instances = await page.locator('ul.instances li a.iri').allInnerTexts();
  assert.ok(instances.length >= 12, `instances: ${instances.length}`);
  assert.ok(instances.includes('VAV-1-01'), instances.slice(0, 20).join(', '));
  assert.match(await page.locator('h2#instances').innerText(), /Instances in this building \(\d+\)/);
  await shot(page, 'class-page');
  await page.locator('ul.instances li a.iri', { hasText: /^VAV-1-01$/ }).click();
  await page.locator('section.view-node .node-details').waitFor();
  assert.equal(await heading(page), 'VAV-1-01');
}));

test('Topology: an AHU\'s VAVs are drawn to its right; a click opens the node panel with provenance', { timeout: SLOW }, () => session('topology', async (page) => {
  await page.goto(ui('#/topology?id=AHU-1&depth=1'));
  await drawn(page);
  const layout = await page.evaluate(() => {
    const cy = window.__dq_cy;
    const root = cy.nodes('[root = 1]');
    return {
      root: { label: root.data('full'), x: root.position('x') },
      vavs: cy.nodes().filter((n) => /^VAV-/.test(n.data('full'))).map((n) => ({ label: n.data('full'), x: n.position('x') })),
    };
  });
  assert.equal(layout.root.label, 'AHU-1');
  assert.ok(layout.vavs.length >= 12, `VAVs drawn: ${layout.vavs.length}`);
  for (const v of layout.vavs) assert.ok(v.x > layout.root.x, `${v.label} (x ${v.x}) is not right of AHU-1 (x ${layout.root.x})`);
  // The text beside the drawing lists the same nodes, AHU-1 before its VAVs.
  const listed = await page.locator('.topo-nodes > li > a').allInnerTexts();
  const at = listed.indexOf('AHU-1');
  assert.ok(at >= 0, listed.join(', '));
  assert.ok(listed.filter((l) => /^VAV-/.test(l)).every((l) => listed.indexOf(l) > at));
  const relations = await page.locator('.topo-edges li').allInnerTexts();
  assert.ok(relations.some((r) => /^AHU-1 feeds VAV-1-01$/.test(r.trim())), relations.slice(0, 5).join(' | '));
  await shot(page, 'topology-ahu');

  // A click on a VAV in the drawing opens its panel (panned into view
  // first, as a person would, when the first view does not show it).
  const at2 = await page.evaluate(() => {
    const cy = window.__dq_cy;
    const n = cy.nodes().filter((x) => x.data('full') === 'VAV-1-01')[0];
    const ext = cy.extent();
    const q = n.position();
    if (q.x < ext.x1 || q.x > ext.x2 || q.y < ext.y1 || q.y > ext.y2) cy.center(n);
    const p = n.renderedPosition();
    const r = cy.container().getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  });
  await page.mouse.click(at2.x, at2.y);
  const panel = page.locator('#node-panel');
  await panel.locator('.node-details').waitFor();
  const text = await panel.innerText();
  assert.match(text, /VAV-1-01/);
  assert.match(text, /Provenance/);
  assert.match(text, /northfield_campus\.ttl/);
  assert.match(text, /Source sha256/);
  assert.match(text, /Points \(\d+\)/);
  await shot(page, 'topology-panel');

  // Points on demand: more nodes, still laid out once per change.
  const before = await page.evaluate(() => window.__dq_cy.nodes().length);
  await page.check('#show-point');
  await drawn(page);
  const afterCount = await page.evaluate(() => window.__dq_cy.nodes().length);
  assert.ok(afterCount > before, `${afterCount} nodes with points, ${before} without`);
  assert.match(page.url(), /show=point/);
  await shot(page, 'topology-points');
}));

test('Chat: an answer with evidence; an evidence chip opens the node page', { timeout: SLOW }, () => session('chat-answer', async (page) => {
  await page.goto(ui('#/chat'));
  await page.fill('#chat-question', 'What feeds VAV-1-01?');
  await page.click('#chat-ask');
  const card = page.locator('.answer-card').first();
  await card.waitFor({ timeout: 90_000 });
  assert.ok(await card.evaluate((el) => el.classList.contains('answered')), await card.innerText());
  assert.match(await card.locator('.answer-text').innerText(), /AHU-1/);
  assert.ok(await card.locator('.evidence-item').count() >= 1);
  await card.locator('details.why > summary').click();
  assert.match(await card.locator('details.why').innerText(), /Stage timings/);
  const queries = await card.locator('a.open-sparql').count();
  await shot(page, 'chat-answer', true);
  if (queries > 0) {
    const href = await card.locator('a.open-sparql').first().getAttribute('href');
    assert.match(href, /^#\/sparql\?query=/);
  }
  const chip = card.locator('a.chip.graph-id').first();
  const chipText = (await chip.innerText()).trim();
  await chip.click();
  await page.locator('section.view-node .node-details').waitFor();
  assert.ok((await heading(page)).length > 0);
  await shot(page, 'chat-chip-node');
  // Back: the conversation is still there.
  await page.goBack();
  await page.locator('.answer-card').first().waitFor();
  assert.ok(chipText.length > 0);
}));

test('Chat: an out-of-scope question shows the abstention', { timeout: SLOW }, () => session('chat-abstain', async (page) => {
  await page.goto(ui('#/chat'));
  await page.fill('#chat-question', 'What is the capital of France?');
  await page.press('#chat-question', 'Enter');
  const card = page.locator('.answer-card').first();
  await card.waitFor({ timeout: 90_000 });
  assert.ok(await card.evaluate((el) => el.classList.contains('abstained')), await card.innerText());
  const abstain = await card.locator('.abstain').innerText();
  assert.match(abstain, /empty_retrieval|low_relevance|insufficient_grounding|selected_text_missing/);
  assert.match(await card.locator('.answer-text').innerText(), /^unknown$/);
  await shot(page, 'chat-abstain');
}));

test('Documents: a document is uploaded with progress, listed, and deleted after confirmation', { timeout: 300_000 }, () => session('documents', async (page) => {
  await page.goto(ui('#/documents'));
  await page.locator('table.documents').waitFor();
  await page.setInputFiles('#doc-files', path.join(here, 'fixtures', 'upload_note.md'));
  await page.click('#doc-upload');
  await page.locator('#ingest-report .ingest-report').waitFor({ timeout: 240_000 });
  const report = await page.locator('#ingest-report').innerText();
  assert.match(report, /uploads\/upload_note\.md/);
  assert.match(report, /indexed|replaced|unchanged/);
  const row = page.locator('table.documents tr', { hasText: 'uploads/upload_note.md' });
  await row.waitFor();
  await shot(page, 'documents-uploaded', true);
  await row.locator('button', { hasText: 'Delete' }).click();
  const dialog = page.locator('dialog.modal[open]');
  await dialog.waitFor();
  await shot(page, 'documents-confirm');
  await dialog.locator('button[type=submit]').click();
  await page.waitForFunction(() => ![...document.querySelectorAll('table.documents tr')].some((tr) => tr.textContent.includes('uploads/upload_note.md')));
  assert.match(await page.locator('.upload-form [role=status]').innerText(), /Deleted uploads\/upload_note\.md/);
  await shot(page, 'documents-deleted');
}));

test('Untrusted text stays text: a document and model labels carrying <script> and <img onerror>', { timeout: 300_000 }, () => session('xss', async (page) => {
  const noImages = async (where) => {
    const found = await page.evaluate(() => ({
      imgs: document.querySelectorAll('img').length,
      scripts: [...document.querySelectorAll('script')].filter((s) => s.textContent.includes('__pwned')).length,
      bold: document.querySelectorAll('main b').length,
      pwned: window.__pwned,
    }));
    assert.deepEqual(found, { imgs: 0, scripts: 0, bold: 0, pwned: undefined }, where);
  };

  // The document: title and name as text in the list.
  await page.goto(ui('#/documents'));
  const docRow = page.locator('table.documents tr', { hasText: 'xss_document.md' });
  await docRow.waitFor();
  assert.match(await docRow.innerText(), /<img src=x onerror=/);
  await noImages('documents list');
  // A file whose name is markup, uploaded through the page.
  await page.setInputFiles('#doc-files', {
    name: '<img src=x onerror=window.__pwned=9>.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from('# AHU-2 note\n\nAHU-2 <script>window.__pwned = 10</script> supply fan belt was checked.\n'),
  });
  await page.click('#doc-upload');
  await page.locator('#ingest-report .ingest-report').waitFor({ timeout: 240_000 });
  assert.match(await page.locator('#ingest-report').innerText(), /uploads\/<img src=x onerror=window.__pwned=9>\.md/);
  await noImages('upload report');
  await shot(page, 'xss-documents', true);
  const evilRow = page.locator('table.documents tr', { hasText: 'onerror=window.__pwned=9' });
  await evilRow.waitFor();
  await evilRow.locator('button', { hasText: 'Delete' }).click();
  await page.locator('dialog.modal[open] button[type=submit]').click();
  await page.waitForFunction(() => ![...document.querySelectorAll('table.documents tr')].some((tr) => tr.textContent.includes('__pwned=9')));

  // The model: labels in the drawing's text, the panel, the node page, SPARQL.
  await page.goto(ui('#/topology?id=XSS-AHU&depth=2'));
  await drawn(page);
  const listText = await page.locator('.topo-text').innerText();
  assert.match(listText, /<img src=x onerror="window.__pwned='model label'"> VAV-XSS/);
  await page.locator('.topo-nodes li', { hasText: 'VAV-XSS' }).locator('button').click();
  await page.locator('#node-panel .node-details').waitFor();
  const panel = await page.locator('#node-panel').innerText();
  assert.match(panel, /<script>window.__pwned = 'point label'<\/script>/);
  await noImages('topology');
  await shot(page, 'xss-topology');

  await page.goto(ui(`#/node?${new URLSearchParams({ id: `${XSS}Evil-VAV` })}`));
  await page.locator('section.view-node .node-details').waitFor();
  assert.match(await heading(page), /^<img src=x onerror=/);
  assert.match(await page.locator('section.view-node').innerText(), /<b>bold\?<\/b> <script>/);
  await noImages('node page');
  await shot(page, 'xss-node');

  const query = `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nSELECT ?s ?text WHERE {\n  { ?s rdfs:label ?text } UNION { ?s rdfs:comment ?text }\n  FILTER(STRSTARTS(STR(?s), "${XSS}"))\n}`;
  await page.goto(ui(`#/sparql?${new URLSearchParams({ query, run: '1' })}`));
  await page.locator('#sparql-results tbody tr').first().waitFor();
  const cells = await page.locator('#sparql-results tbody').innerText();
  assert.match(cells, /<script>window.__pwned = 'model comment'<\/script>/);
  await noImages('sparql results');
  await shot(page, 'xss-sparql');

  // A question whose evidence quotes the document.
  await page.goto(ui('#/chat'));
  await page.fill('#chat-question', 'What was replaced on the AHU-1 filter bank during the spring service?');
  await page.click('#chat-ask');
  await page.locator('.answer-card').first().waitFor({ timeout: 90_000 });
  await page.locator('.answer-card details.why > summary').first().click();
  await noImages('chat');
  await shot(page, 'xss-chat', true);
}));

test('API keys: a 401 asks for a key, which is kept for the session only and sent on the retry', { timeout: SLOW }, () => session('auth', async (page) => {
  let calls = 0;
  let sent = null;
  await page.route('**/api/ui/config', (route) => {
    calls += 1;
    if (calls === 1) {
      return route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ code: 'UNAUTHORIZED', message: 'an API key is needed', details: null, retry_after: null }),
      });
    }
    sent = route.request().headers().authorization ?? null;
    return route.fallback();
  });
  await page.goto(ui('#/classes'));
  const dialog = page.locator('dialog.modal[open]');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /API key needed/);
  await shot(page, 'auth-dialog');
  await page.fill('#api-key-input', 'browser-test-key');
  await page.press('#api-key-input', 'Enter');
  await page.locator('.tree-item').first().waitFor();
  assert.equal(sent, 'Bearer browser-test-key');
  const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('daemoniq.apiKey'), local: localStorage.length }));
  assert.deepEqual(stored, { session: 'browser-test-key', local: 0 });
  // The status strip offers to forget it.
  await page.locator('#status button', { hasText: 'Forget API key' }).waitFor();
}, { allowHttpErrors: [/\/api\/ui\/config$/] }));

test('Keyboard: views, the search and the node panel work without a mouse; focus is visible', { timeout: SLOW }, () => session('keyboard', async (page) => {
  await page.goto(ui('#/sparql'));
  await page.locator('section.view-sparql').waitFor();
  let found = false;
  for (let i = 0; i < 20 && !found; i += 1) {
    await page.keyboard.press('Tab');
    found = await page.evaluate(() => document.activeElement?.textContent?.trim() === 'Topology');
  }
  assert.ok(found, 'the Topology link is reachable with Tab');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'focus is visible');
  await page.keyboard.press('Enter');
  await page.locator('#topo-search').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'topo-search');
  await page.keyboard.type('AHU-2');
  await page.keyboard.press('Enter');
  await drawn(page);
  const details = page.locator('.topo-nodes li button').first();
  await details.focus();
  await page.keyboard.press('Enter');
  await page.locator('#node-panel .node-details').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'node-panel-title');
  await shot(page, 'keyboard-topology');
}));

test('Narrow window: every view fits 400 px without sideways scrolling', { timeout: SLOW }, () => session('narrow', async (page) => {
  const views = [
    ['sparql', '#/sparql?run=1&query=' + encodeURIComponent('SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 5'), '#sparql-results tbody tr'],
    ['classes', '#/classes?q=VAV', '#class-search-results .search-result'],
    ['class', '#/class?iri=brick:Air_Handling_Unit', 'dl.facts'],
    ['topology', '#/topology?id=AHU-1&depth=1', 'section.view-topology[data-state="drawn"]'],
    ['node', '#/node?id=AHU-1', 'section.view-node .node-details'],
    ['chat', '#/chat', '#chat-question'],
    ['documents', '#/documents', 'table.documents'],
  ];
  for (const [name, hash, ready] of views) {
    await page.goto(ui(hash));
    await page.locator(ready).first().waitFor({ timeout: 60_000 });
    const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: document.documentElement.clientWidth }));
    await shot(page, `narrow-${name}`);
    assert.ok(scroll <= width + 1, `${name}: the page is ${scroll} px wide in a ${width} px window`);
  }
}, { viewport: NARROW }));

test('Measure: the largest AHU neighbourhood draws, and what the page loads', { timeout: 300_000 }, () => session('measure-big-ahu', async (page) => {
  const responses = [];
  page.on('response', (r) => responses.push(r));
  await page.goto(ui('#/topology?id=BIG-AHU&depth=2'));
  await drawn(page);
  const first = await page.evaluate(() => ({
    drawnMs: window.__dq_topology_drawn_ms,
    nodes: window.__dq_cy.nodes().length,
    edges: window.__dq_cy.edges().length,
  }));
  const vavsRight = await page.evaluate(() => {
    const cy = window.__dq_cy;
    const x = cy.nodes('[root = 1]').position('x');
    return cy.nodes().filter((n) => /^BIG-VAV-/.test(n.data('full'))).every((n) => n.position('x') > x);
  });
  assert.ok(vavsRight, 'the VAVs of BIG-AHU are drawn to its right');
  await shot(page, 'measure-big-ahu');
  const t0 = await page.evaluate(() => performance.now());
  await page.check('#show-point');
  await drawn(page);
  const withPoints = await page.evaluate((start) => ({
    redrawMs: window.__dq_topology_drawn_ms - start,
    nodes: window.__dq_cy.nodes().length,
    edges: window.__dq_cy.edges().length,
  }), t0);
  await shot(page, 'measure-big-ahu-points');

  const bytes = { own: 0, vendor: 0, api: 0 };
  const files = [];
  for (const r of responses) {
    const url = new URL(r.url());
    const sizes = await r.request().sizes().catch(() => null);
    if (!sizes) continue;
    const kind = url.pathname.startsWith('/ui/vendor/') ? 'vendor' : url.pathname.startsWith('/ui/') ? 'own' : 'api';
    bytes[kind] += sizes.responseBodySize;
    files.push({ path: url.pathname, kind, bytes: sizes.responseBodySize });
  }
  const result = {
    what: 'BIG-AHU (60 VAV boxes, 4 points and a room each), depth 2, cold page load in a fresh browser context',
    navigation_to_drawn_ms: Math.round(first.drawnMs),
    drawn: { nodes: first.nodes, edges: first.edges },
    points_on: { redraw_ms: Math.round(withPoints.redrawMs), nodes: withPoints.nodes, edges: withPoints.edges },
    bytes_over_the_wire: bytes,
    files,
  };
  const file = path.join(REPORT, 'measurements.json');
  const previous = (() => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return {};
    }
  })();
  writeFileSync(file, `${JSON.stringify({ ...previous, topology: result }, null, 2)}\n`);
  console.log(`measure: ${JSON.stringify({ ...result, files: undefined })}`);
  assert.ok(first.nodes > 60);
}));

test('Measure: bytes each view loads on a cold start (own files against vendor libraries)', { timeout: SLOW }, async () => {
  const views = [
    ['sparql', '#/sparql', 'section.view-sparql .yasqe'],
    ['topology', '#/topology?id=AHU-1&depth=1', 'section.view-topology[data-state="drawn"]'],
    ['chat', '#/chat', '#chat-question'],
  ];
  const out = {};
  for (const [name, hash, ready] of views) {
    // A fresh context per view: nothing cached.
    await session(`measure-bytes-${name}`, async (page) => {
      const responses = [];
      page.on('response', (r) => responses.push(r));
      await page.goto(ui(hash));
      await page.locator(ready).first().waitFor({ timeout: 60_000 });
      const bytes = { own: 0, vendor: 0, api: 0 };
      for (const r of responses) {
        const sizes = await r.request().sizes().catch(() => null);
        if (!sizes) continue;
        const u = new URL(r.url()).pathname;
        bytes[u.startsWith('/ui/vendor/') ? 'vendor' : u.startsWith('/ui/') ? 'own' : 'api'] += sizes.responseBodySize;
      }
      out[name] = bytes;
    });
  }
  const file = path.join(REPORT, 'measurements.json');
  let previous = {};
  try {
    previous = JSON.parse(readFileSync(file, 'utf8'));
  } catch { /* the first measurement */ }
  writeFileSync(file, `${JSON.stringify({ ...previous, bytes_per_view: out }, null, 2)}\n`);
  console.log(`bytes per view: ${JSON.stringify(out)}`);
});

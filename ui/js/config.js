// What the page knows about this server, all from `GET /api/ui/config`:
// prefixes (for Yasqe and for showing IRIs as prefixed names), example
// queries, the relation names of the topology and their kinds, and whether
// the vendor libraries were fetched. Nothing here is hard-coded ontology.

import { getJson } from './api.js';
import { h } from './dom.js';

let configPromise = null;
let loaded = {
  prefixes: {},
  examples: [],
  relations: [],
  vendor: { available: true, missing: [], fetch_command: 'bash scripts/setup.sh' },
};
let sortedPrefixes = [];

/** Loads the configuration once; later calls return the same promise. */
export function loadConfig() {
  if (!configPromise) {
    configPromise = getJson('/api/ui/config').then((c) => {
      loaded = {
        prefixes: c?.prefixes ?? {},
        examples: Array.isArray(c?.examples) ? c.examples : [],
        relations: Array.isArray(c?.relations) ? c.relations : [],
        vendor: c?.vendor ?? loaded.vendor,
      };
      sortedPrefixes = Object.entries(loaded.prefixes).sort((a, b) => b[1].length - a[1].length);
      return loaded;
    }, (e) => {
      // The page still works without it: IRIs are shown in full.
      configPromise = null;
      throw e;
    });
  }
  return configPromise;
}

/** The configuration loaded so far (defaults before `loadConfig` resolves). */
export function config() {
  return loaded;
}

const LOCAL = /^[A-Za-z0-9_][A-Za-z0-9_.\-]*$/;

/** An IRI as a prefixed name when a prefix covers it, else the IRI. */
export function compact(iri) {
  if (typeof iri !== 'string') return String(iri ?? '');
  for (const [p, ns] of sortedPrefixes) {
    if (iri.startsWith(ns)) {
      const local = iri.slice(ns.length);
      if (local === '' || (LOCAL.test(local) && !local.endsWith('.'))) return `${p}:${local}`;
    }
  }
  return iri;
}

/** A short name for display: the prefixed name, else the IRI's local name. */
export function shortName(iri) {
  const c = compact(iri);
  if (c !== iri) return c;
  const m = /[#/]([^#/]+)$/.exec(String(iri ?? ''));
  return m ? m[1] : String(iri ?? '');
}

/** A prefixed name as an IRI when its prefix is known, else the input. */
export function expand(name) {
  const m = /^([A-Za-z][\w\-.]*)?:(.*)$/.exec(name ?? '');
  if (m && !name.includes('://')) {
    const ns = loaded.prefixes[m[1] ?? ''];
    if (ns) return ns + m[2];
  }
  return name;
}

/** The relation description (`{name, kind, label}`) of a relation name. */
export function relation(name) {
  return loaded.relations.find((r) => r.name === name) ?? { name, kind: 'other', label: name };
}

// ---- vendor libraries -------------------------------------------------

const VENDOR_BASE = '/ui/vendor/';
const scriptPromises = new Map();

/** Why a vendor library is not there, and the command that fetches it. */
export class VendorMissing extends Error {
  constructor(files) {
    super(`Missing browser libraries: ${files.join(', ')}`);
    this.name = 'VendorMissing';
    this.files = files;
  }
}

function loadScript(file) {
  if (!scriptPromises.has(file)) {
    scriptPromises.set(file, new Promise((resolve, reject) => {
      const s = h('script', { src: VENDOR_BASE + file });
      s.addEventListener('load', () => resolve());
      s.addEventListener('error', () => {
        scriptPromises.delete(file);
        s.remove();
        reject(new VendorMissing([file]));
      });
      document.head.append(s);
    }));
  }
  return scriptPromises.get(file);
}

function loadStyle(file) {
  if (!document.querySelector(`link[data-vendor="${file}"]`)) {
    document.head.append(h('link', { rel: 'stylesheet', href: VENDOR_BASE + file, dataset: { vendor: file } }));
  }
}

/**
 * Loads vendor scripts (classic scripts from this server, in order) when
 * the configuration says they are there; rejects with VendorMissing
 * otherwise. They are loaded when a view first needs them, so a page that
 * never draws a topology never downloads cytoscape.
 */
export async function vendor(files, styles = []) {
  const listed = Array.isArray(loaded.vendor?.missing) ? loaded.vendor.missing : [];
  let missing = files.concat(styles).filter((f) => listed.includes(f));
  if (loaded.vendor?.available === false && listed.length === 0) missing = files.concat(styles);
  if (missing.length) throw new VendorMissing(missing);
  styles.forEach(loadStyle);
  for (const f of files) await loadScript(f);
}

/** The notice shown where a vendor library is missing. */
export function vendorNotice(err, what) {
  const cmd = loaded.vendor?.fetch_command || 'bash scripts/setup.sh';
  return h('div', { class: 'notice', role: 'note' },
    h('strong', null, `${what}: not available. `),
    `The browser libraries (${(err?.files ?? []).join(', ') || 'vendor files'}) were not fetched. Run `,
    h('code', null, cmd),
    ' on the server and restart it. Everything else on this page works without them.');
}

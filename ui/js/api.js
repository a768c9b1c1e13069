// The HTTP client: JSON requests, the server's error body as an ApiError,
// and API keys. When the server answers 401, the page asks for a key once
// (a form, not prompt()), keeps it in sessionStorage only and retries.

import { h } from './dom.js';

const KEY_STORAGE = 'daemoniq.apiKey';

/** An error as the server reports it: `{code, message, details, retry_after}`. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = body?.code || (status ? `HTTP_${status}` : 'NETWORK_ERROR');
    this.details = body?.details ?? null;
    this.retryAfter = body?.retry_after ?? null;
  }
}

function storedKey() {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null;
  }
}

function storeKey(key) {
  try {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  } catch {
    // Storage refused (private mode): the key lives until the page closes.
  }
  memoryKey = key || null;
  window.dispatchEvent(new Event('daemoniq:apikey'));
}

let memoryKey = null;

/** The API key of this session, if one was given. */
export function apiKey() {
  return storedKey() ?? memoryKey;
}

/** Forgets the key (the "Sign out" button of the status strip). */
export function forgetKey() {
  storeKey(null);
}

let pendingKey = null;

/**
 * Asks for an API key; resolves when one is entered, rejects when the
 * reader cancels. Concurrent 401s share one form.
 */
function askForKey(refused) {
  if (pendingKey) return pendingKey;
  pendingKey = new Promise((resolve, reject) => {
    const input = h('input', {
      type: 'password', id: 'api-key-input', name: 'api-key', autocomplete: 'current-password',
      required: true, minlength: 1, spellcheck: 'false',
    });
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const form = h('form', { method: 'dialog', class: 'stack' },
      h('h2', { id: 'api-key-title' }, 'API key needed'),
      h('p', null, refused
        ? 'The server refused the key. Enter another one.'
        : 'This server needs an API key. It is kept for this browser tab only (session storage).'),
      h('label', { for: 'api-key-input' }, 'API key'),
      input,
      h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Use key'), cancel));
    const dialog = h('dialog', { class: 'modal', 'aria-labelledby': 'api-key-title' }, form);
    let done = false;
    const finish = (key) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      pendingKey = null;
      if (key) {
        storeKey(key);
        resolve(key);
      } else {
        reject(new ApiError(401, { code: 'UNAUTHORIZED', message: 'No API key was given; this server needs one.' }));
      }
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      finish(input.value.trim());
    });
    cancel.addEventListener('click', () => finish(null));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(null);
    });
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
  return pendingKey;
}

async function errorFrom(res) {
  const text = await res.text().catch(() => '');
  return errorFromText(res.status, res.statusText, text);
}

function errorFromText(status, statusText, text) {
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = { message: text.trim() || `${status} ${statusText}` };
  }
  // `/chat` keeps its envelope on a server fault: the error body is inside.
  if (body && body.status === 'error' && body.error && typeof body.error === 'object') {
    body = body.error;
  }
  if (!body || typeof body !== 'object' || typeof body.message !== 'string') {
    body = { message: `${status} ${statusText}` };
  }
  return new ApiError(status, body);
}

/**
 * Sends a request; returns the parsed JSON (or the Response when `raw`).
 * Throws an ApiError with the server's code and message on failure.
 */
export async function request(path, opts = {}) {
  const { method = 'GET', body, accept = 'application/json', contentType, signal, raw = false } = opts;
  let refused = false;
  for (;;) {
    const headers = new Headers();
    if (accept) headers.set('Accept', accept);
    if (contentType) headers.set('Content-Type', contentType);
    const key = apiKey();
    if (key) headers.set('Authorization', `Bearer ${key}`);
    let res;
    try {
      res = await fetch(path, { method, headers, body, signal, credentials: 'same-origin' });
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, { code: 'NETWORK_ERROR', message: `The server could not be reached (${e.message}).` });
    }
    if (res.status === 401) {
      if (key) storeKey(null);
      await askForKey(refused || Boolean(key));
      refused = true;
      continue;
    }
    if (!res.ok) throw await errorFrom(res);
    if (raw) return res;
    if (res.status === 204) return null;
    return res.json();
  }
}

/** GET a JSON resource with query parameters. */
export function getJson(path, params, opts) {
  const qs = params ? new URLSearchParams(
    Object.entries(params).filter(([, v]) => v != null && v !== ''),
  ).toString() : '';
  return request(qs ? `${path}?${qs}` : path, opts);
}

/** POST a JSON body. */
export function postJson(path, body, opts) {
  return request(path, { ...opts, method: 'POST', body: JSON.stringify(body), contentType: 'application/json' });
}

/**
 * POST a FormData with upload progress (XMLHttpRequest: fetch has no upload
 * progress). `onProgress(loaded, total)`; resolves to the parsed JSON.
 */
export function upload(path, form, onProgress) {
  const attempt = (refused) => new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('Accept', 'application/json');
    const key = apiKey();
    if (key) xhr.setRequestHeader('Authorization', `Bearer ${key}`);
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onProgress?.(e.loaded, e.total);
    });
    xhr.addEventListener('load', () => {
      if (xhr.status === 401) {
        if (key) storeKey(null);
        askForKey(refused || Boolean(key)).then(() => attempt(true)).then(resolve, reject);
        return;
      }
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorFromText(xhr.status, xhr.statusText, xhr.responseText));
        return;
      }
      try {
        resolve(JSON.parse(xhr.responseText));
      } catch {
        reject(new ApiError(xhr.status, { message: 'The server answered with something that is not JSON.' }));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, {
      code: 'NETWORK_ERROR', message: 'The upload failed: the server could not be reached.',
    })));
    xhr.send(form);
  });
  return attempt(false);
}

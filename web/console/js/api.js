/*
 * api.js: the console's only way to the xborder API.  The credentials live
 * in sessionStorage for the tab's life (never localStorage, a cookie or a
 * URL); every call sends them as Basic auth with credentials: 'omit', so
 * the browser neither adds cookies nor raises its own login dialog on 401.
 */

const KEY = 'xborder.console.credentials';

/* The API's base: the console is served at <base>/console/. */
const BASE = new URL('../../', import.meta.url).pathname;

/* ApiError: an answer in the API's error envelope (or a network failure). */
export class ApiError extends Error {
  constructor(status, body) {
    const b = body && typeof body === 'object' ? body : {};
    super(typeof b.message === 'string' ? b.message : `HTTP ${status}`);
    this.status = status;
    this.code = typeof b.code === 'string' ? b.code : (status ? `HTTP_${status}` : 'NETWORK_ERROR');
    this.details = b.details && typeof b.details === 'object' ? b.details : {};
  }
}

export function credentials() {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return null;
  try {
    const c = JSON.parse(raw);
    return c && typeof c.clientId === 'string' && typeof c.clientSecret === 'string' ? c : null;
  } catch {
    return null;
  }
}

export function setCredentials(clientId, clientSecret) {
  sessionStorage.setItem(KEY, JSON.stringify({ clientId, clientSecret }));
}

export function clearCredentials() {
  sessionStorage.removeItem(KEY);
}

/* Called on every 401, so the page can show the sign-in form again. */
let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

function basic(c) {
  /* btoa takes Latin-1 only: encode UTF-8 first. */
  const bytes = new TextEncoder().encode(`${c.clientId}:${c.clientSecret}`);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return `Basic ${btoa(s)}`;
}

/* path: API path without the leading slash; query: object of non-empty values. */
export function url(path, query) {
  const u = new URL(BASE + path.replace(/^\//, ''), location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
  }
  return u;
}

/*
 * call(method, path, {query, body}): the parsed JSON answer of a 2xx, or
 * throws ApiError.  A 401 also clears the credentials and calls the
 * unauthorized handler.
 */
export async function call(method, path, opts = {}) {
  const c = credentials();
  if (!c) {
    onUnauthorized();
    throw new ApiError(401, { code: 'UNAUTHORIZED', message: 'Sign in first.' });
  }
  const headers = { Authorization: basic(c), Accept: 'application/json' };
  const init = { method, headers, credentials: 'omit', cache: 'no-store', redirect: 'error', referrerPolicy: 'no-referrer' };
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(opts.body);
  }
  let res;
  try {
    res = await fetch(url(path, opts.query), init);
  } catch (e) {
    throw new ApiError(0, { code: 'NETWORK_ERROR', message: `The API could not be reached (${e.message}).` });
  }
  let body = null;
  const text = await res.text();
  if (text) {
    try { body = JSON.parse(text); } catch { body = null; }
  }
  if (res.status === 401) {
    clearCredentials();
    onUnauthorized();
  }
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

export const get = (path, query) => call('GET', path, { query });
export const post = (path, body) => call('POST', path, { body });
export const patch = (path, body) => call('PATCH', path, { body });

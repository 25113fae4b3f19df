// Who is signed in, and the JSON API calls every page makes (the session cookie authenticates
// them; state-changing calls always send `application/json`, which the server requires).
//
// `session()` answers one of:
//   {auth: 'off', user: {id, name}}      the server runs without access control: local identity
//   {auth: 'on', user: {id, name, kind}} signed in
//   {auth: 'on', user: null}             signed out (the page shows how to sign in)

import { el } from './util.js';
import { identity } from './identity.js';

/** An API error: HTTP status, the server's stable code and its message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/** Calls the JSON API; resolves the parsed body (null for 204), rejects with an ApiError. */
export async function api(method, path, body) {
  const init = { method, headers: { accept: 'application/json' }, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'network', 'the server cannot be reached');
  }
  if (res.status === 204) return null;
  let data = null;
  try {
    data = await res.json();
  } catch {
    // Not JSON: keep the status.
  }
  if (!res.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(res.status, e.code, e.message);
  }
  return data;
}

/** The current session (see the top of this file). */
export async function session() {
  try {
    const me = await api('GET', '/api/me');
    if (me && me.auth === 'off') return { auth: 'off', user: identity() };
    return { auth: 'on', user: me && me.user ? me.user : null };
  } catch (e) {
    if (e.status === 401) return { auth: 'on', user: null };
    throw e;
  }
}

/** Signs out and goes back to the board list (which then explains how to sign in). */
export async function signOut() {
  try {
    await api('POST', '/api/logout', {});
  } finally {
    location.href = '/';
  }
}

/**
 * The calm page a signed-out visitor sees instead of a board or the list: what happened and
 * how to get a sign-in link.
 */
export function signedOutPanel({ expired = false } = {}) {
  return el(
    'section',
    { class: 'card notice', 'data-testid': 'signed-out', role: 'region', 'aria-labelledby': 'signed-out-title' },
    el('h2', { id: 'signed-out-title' }, expired ? 'Please sign in again' : 'Sign in to see your boards'),
    el(
      'p',
      {},
      expired
        ? 'Your session has ended. Open a fresh sign-in link to continue where you were.'
        : 'This server keeps its boards private. Open the sign-in link you were given, or a share link for one board.',
    ),
    el('p', { class: 'muted' }, 'Running the server yourself? It printed a sign-in link when it first started; for a fresh one run:'),
    el('pre', { class: 'command' }, 'server login-link'),
    el('p', { class: 'muted' }, 'To add a teammate with their own account: server login-link --name "Their name"'),
  );
}

/** A short relative time for unix seconds or milliseconds. */
export function ago(t) {
  if (!t) return '';
  const ms = t < 1e12 ? t * 1000 : t;
  const s = Math.max(0, (Date.now() - ms) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

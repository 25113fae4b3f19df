// Who this browser is: a stable user id and a display name, kept in localStorage.
// `?user=ID&name=NAME` in the page URL overrides both (handy for demos and tests).

import { ID_RE, uid } from './util.js';

const KEY = 'wb.user';

function load() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || 'null');
    if (v && typeof v.id === 'string' && ID_RE.test(v.id)) return v;
  } catch {
    // Corrupt or unavailable storage: start over.
  }
  return null;
}

function save(user) {
  try {
    localStorage.setItem(KEY, JSON.stringify(user));
  } catch {
    // Private mode: the identity lasts for this page only.
  }
}

/** The current user: {id, name}. */
export function identity() {
  let user = load();
  if (!user) {
    user = { id: uid('u-').slice(0, 40), name: `Guest ${Math.floor(100 + Math.random() * 900)}` };
    save(user);
  }
  const q = new URLSearchParams(location.search);
  const qid = q.get('user');
  const qname = q.get('name');
  if (qid && ID_RE.test(qid)) user = { ...user, id: qid };
  if (qname) user = { ...user, name: qname.slice(0, 64) };
  return user;
}

/** Changes the stored display name. */
export function rename(name) {
  const user = load() || identity();
  const next = { ...user, name: String(name).trim().slice(0, 64) || user.name };
  save(next);
  return next;
}

// Who is here: the user list, others' live cursors (names and colors), their selections and
// the object each one is editing ("Ann is editing" over it).

import { el, svg } from './util.js';

export class Presence {
  /**
   * @param {object} app the board app (renderer, me)
   * @param {HTMLElement} cursorLayer absolutely positioned layer over the stage
   * @param {HTMLElement} list the <ul> of users
   */
  constructor(app, cursorLayer, list) {
    this.app = app;
    this.layer = cursorLayer;
    this.list = list;
    /** userId -> {user, cursor, selection, viewport, editing, node, badge} */
    this.users = new Map();
    /** objectId -> name of the last other person seen editing it. */
    this.editors = new Map();
    app.renderer.onCamera(() => this.repositionAll());
    app.doc.onChange(() => this.repositionAll());
  }

  /** From `welcome`: the others present (the list is replaced). */
  reset(users) {
    for (const id of [...this.users.keys()]) this.remove(id);
    for (const p of users || []) this.update(p);
    this.renderList();
  }

  joined(user) {
    if (!user || user.id === this.app.me.id) return;
    this.upsert(user);
    this.renderList();
  }

  left(user) {
    if (!user) return;
    this.remove(user.id);
    this.renderList();
  }

  /** A `presence` message (flat: user, cursor?, selection?, viewport?). */
  update(p) {
    if (!p || !p.user || p.user.id === this.app.me.id) return;
    const known = this.users.has(p.user.id);
    const u = this.upsert(p.user);
    if (p.cursor && typeof p.cursor.x === 'number') {
      u.cursor = p.cursor;
      this.position(u);
    }
    if (Array.isArray(p.selection)) {
      u.selection = p.selection;
      this.app.renderer.setRemoteSelection(u.user.id, u.user.color, p.selection);
    }
    if (p.viewport) u.viewport = p.viewport;
    const following = typeof p.following === 'string' ? p.following : null;
    const followChanged = (u.following || null) !== following;
    u.following = following;
    // Presence from the server is the sender's whole state: no `editing` means not editing.
    this.setEditing(u, typeof p.editing === 'string' ? p.editing : null);
    if (!known || followChanged) this.renderList();
    this.app.following?.presenceChanged();
  }

  upsert(user) {
    let u = this.users.get(user.id);
    if (!u) {
      const node = el(
        'div',
        {
          class: 'remote-cursor',
          'data-testid': 'remote-cursor',
          'data-user-id': user.id,
          'aria-hidden': 'true',
          hidden: true,
        },
        svg(
          'svg',
          { width: 18, height: 22, viewBox: '0 0 18 22', class: 'cursor-arrow' },
          svg('path', { d: 'M1 1L1 18L5.5 13.5L9 21L12 19.6L8.6 12.3L15 12.3Z' }),
        ),
        el('span', { class: 'cursor-name' }),
      );
      this.layer.append(node);
      u = { user, cursor: null, selection: [], viewport: null, node };
      this.users.set(user.id, u);
    }
    u.user = { ...u.user, ...user };
    u.node.style.setProperty('--user-color', u.user.color || '#607d8b');
    u.node.querySelector('.cursor-name').textContent = u.user.name || u.user.id;
    return u;
  }

  setEditing(u, objectId) {
    u.editing = objectId;
    if (objectId) this.editors.set(objectId, u.user.name || u.user.id);
    if (!objectId) {
      u.badge?.remove();
      u.badge = null;
      return;
    }
    if (!u.badge) {
      u.badge = el('div', { class: 'editing-badge', 'data-testid': 'editing-badge', 'data-user-id': u.user.id });
      this.layer.append(u.badge);
    }
    u.badge.dataset.objectId = objectId;
    u.badge.style.setProperty('--user-color', u.user.color || '#607d8b');
    u.badge.textContent = `${u.user.name || u.user.id} is editing`;
    this.position(u);
  }

  /** The name of whoever else edits (or last edited) object `id`, or null. */
  lastEditorOf(id) {
    for (const u of this.users.values()) if (u.editing === id) return u.user.name || u.user.id;
    return this.editors.get(id) || null;
  }

  remove(id) {
    const u = this.users.get(id);
    if (!u) return;
    u.badge?.remove();
    u.node.remove();
    this.users.delete(id);
    this.app.renderer.setRemoteSelection(id, null, []);
  }

  position(u) {
    if (u.badge) {
      const o = this.app.renderer.display(u.editing);
      u.badge.hidden = !o || o.kind === 'connector';
      if (o) {
        const s = this.app.renderer.worldToScreen(o.x, o.y);
        u.badge.style.transform = `translate(${Math.round(s.x)}px, ${Math.round(s.y) - 22}px)`;
      }
    }
    if (!u.cursor) return;
    const s = this.app.renderer.worldToScreen(u.cursor.x, u.cursor.y);
    u.node.hidden = false;
    u.node.style.transform = `translate(${Math.round(s.x)}px, ${Math.round(s.y)}px)`;
  }

  repositionAll() {
    for (const u of this.users.values()) this.position(u);
  }

  renderList() {
    const me = this.app.me;
    const items = [{ ...me, isMe: true }, ...[...this.users.values()].map((u) => u.user)];
    const leader = this.app.following?.leader ?? null;
    this.list.textContent = '';
    for (const u of items) this.list.append(this.avatar(u, leader));
    this.list.setAttribute('data-count', String(items.length));
  }

  /** One person's avatar: a button that follows them (a second click stops), not for oneself. */
  avatar(u, leader) {
    const name = u.name || u.id;
    const followed = !u.isMe && u.id === leader;
    const label = u.isMe ? `${name} (you)` : `${name}: ${followed ? 'stop following' : 'follow their view'}`;
    const attrs = {
      class: 'avatar' + (u.isMe ? ' me' : '') + (followed ? ' followed' : ''),
      'data-user-id': u.id,
      'data-testid': 'user',
      title: label,
      'aria-label': label,
      style: `--user-color: ${u.color || '#607d8b'}`,
    };
    if (!u.isMe) {
      Object.assign(attrs, { role: 'button', tabindex: '0', 'aria-pressed': String(followed) });
      const toggle = () => (followed ? this.app.following.stop() : this.app.following.start(u.id));
      attrs.onclick = toggle;
      attrs.onkeydown = (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          toggle();
        }
      };
    }
    return el('li', attrs, initials(name));
  }
}

function initials(name) {
  const parts = String(name).trim().split(/\s+/).filter(Boolean);
  if (!parts.length) return '?';
  if (parts.length === 1) return parts[0].slice(0, 2).toUpperCase();
  return (parts[0][0] + parts[parts.length - 1][0]).toUpperCase();
}

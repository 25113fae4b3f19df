// Comment threads on the board (COMMENT-n; docs/CLIENT.md UI-COMMENT-n): the threads the server
// sent (welcome, comments_changed), their pins over the canvas (a pin on an object moves with
// it), the Comment tool's click that starts a thread, and the requests (each `ack`ed or
// `rejected` by its id). Bodies are shown as text only, never as HTML. The popover is
// commentview.js; the panel and notifications are commentpanel.js.

import { el, uid } from './util.js';
import { api } from './auth.js';
import { visibleRect } from './follow.js';
import { ThreadPopover } from './commentview.js';

export class Comments {
  constructor(app) {
    this.app = app;
    this.r = app.renderer;
    /** thread id -> the thread as the server last sent it. */
    this.threads = new Map();
    this.cseq = 0;
    /** Whether every open / resolved thread is here (the welcome carries only some, COMMENT-6). */
    this.complete = { open: true, resolved: false };
    /** Loads of a status under way, and whether the last one failed. */
    this.loading = {};
    this.loadFailed = {};
    /** request id -> {resolve} for requests waiting for `ack` / `rejected`. */
    this.waiting = new Map();
    /** user id -> name of the board's members (known to an owner's page only). */
    this.members = new Map();
    this.listeners = new Set();
    this.layer = el('div', { class: 'comment-pins', 'data-testid': 'comment-pins' });
    app.stage.append(this.layer);
    this.popover = new ThreadPopover(this);
    this.r.onCamera(() => this.position());
    app.doc.onChange(() => this.position());
  }

  /** True when this person may comment (commenter, editor, owner). */
  get canComment() {
    return ['commenter', 'editor', 'owner'].includes(this.app.access.role);
  }

  onChange(fn) {
    this.listeners.add(fn);
  }

  // ---- from the server ----

  /** `welcome`: its open threads (the first time: the whole set; after that: merged). */
  welcome(msg, first) {
    if (first) {
      this.threads.clear();
      this.complete = { open: !msg.threads_cut, resolved: false };
    }
    for (const t of Array.isArray(msg.threads) ? msg.threads : []) this.put(t);
    if (typeof msg.cseq === 'number') this.cseq = Math.max(first ? 0 : this.cseq, msg.cseq);
    this.changed();
  }

  /** `comments_changed {cseq, threads}`: each thread whole. */
  applyChanges(msg) {
    for (const t of Array.isArray(msg.threads) ? msg.threads : []) this.put(t);
    if (typeof msg.cseq === 'number' && msg.cseq > this.cseq) this.cseq = msg.cseq;
    this.changed();
  }

  /**
   * Loads the threads of `status` ('open' or 'resolved') that the welcome did not carry
   * (`GET /api/boards/{id}/threads`, COMMENT-7). A thread already here stays: the socket keeps it
   * as new as the list's copy, or newer.
   */
  loadAll(status) {
    if (this.complete[status] || this.loading[status]) return;
    const path = `/api/boards/${encodeURIComponent(this.app.boardId)}/threads?status=${status}`;
    this.loading[status] = api('GET', path)
      .then((r) => {
        for (const t of Array.isArray(r?.threads) ? r.threads : []) if (!this.threads.has(t.id)) this.put(t);
        this.complete[status] = true;
        this.loadFailed[status] = false;
      })
      .catch(() => {
        this.loadFailed[status] = true;
      })
      .finally(() => {
        this.loading[status] = null;
        this.changed();
      });
  }

  put(t) {
    if (t && typeof t.id === 'string' && t.anchor && Array.isArray(t.comments)) this.threads.set(t.id, t);
  }

  /** `ack` / `rejected` of a comment request: true when it was one. */
  answer(msg) {
    const w = this.waiting.get(msg.id);
    if (!w) return false;
    this.waiting.delete(msg.id);
    if (msg.type === 'rejected') {
      const e = msg.error || {};
      this.app.toast(`Comment refused: ${e.message || e.code || 'invalid'}`, 'error');
    }
    w.resolve(msg);
    return true;
  }

  changed() {
    this.renderPins();
    this.popover.refresh();
    for (const fn of this.listeners) fn();
  }

  // ---- requests ----

  /** Sends a comment request (`type` and fields); resolves its `ack` or `rejected`. */
  request(type, fields) {
    const id = uid('k-');
    return new Promise((resolve) => {
      if (!this.app.send({ type, id, ...fields })) {
        this.app.toast('Offline: comments are sent when the board is back online', 'error');
        resolve({ type: 'rejected', id, error: { code: 'offline' } });
        return;
      }
      this.waiting.set(id, { resolve });
    });
  }

  // ---- the Comment tool ----

  /** A click of the Comment tool at stage point `p`: a draft thread there (on the object hit). */
  place(p, objectId) {
    if (!this.canComment) return;
    this.popover.openDraft(this.anchorAt(p, objectId));
  }

  /** The anchor at stage point `p`: on object `objectId` (fractions of its box) or the point. */
  anchorAt(p, objectId) {
    const w = this.r.screenToWorld(p.x, p.y);
    const o = objectId ? this.r.display(objectId) : null;
    if (o && o.kind !== 'connector' && o.w > 0 && o.h > 0) {
      const f = (v) => Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000;
      return { type: 'object', object: objectId, fx: f((w.x - o.x) / o.w), fy: f((w.y - o.y) / o.h) };
    }
    return { type: 'point', x: Math.round(w.x * 100) / 100, y: Math.round(w.y * 100) / 100 };
  }

  // ---- pins ----

  /** World point of an anchor (an object's pin follows the object as shown, drags included). */
  anchorPoint(a) {
    if (a.type === 'object') {
      const o = this.r.display(a.object);
      if (!o) return null;
      return { x: o.x + a.fx * o.w, y: o.y + a.fy * o.h };
    }
    return { x: a.x, y: a.y };
  }

  /** Open threads get a pin; resolved ones only while their popover is open. */
  renderPins() {
    const keep = new Set();
    for (const t of this.threads.values()) {
      if (t.resolved && this.popover.threadId !== t.id) continue;
      keep.add(t.id);
      let pin = this.layer.querySelector(`[data-thread-id="${CSS.escape(t.id)}"]`);
      if (!pin) {
        pin = el('button', {
          type: 'button',
          class: 'comment-pin stage-ui',
          'data-testid': 'comment-pin',
          'data-thread-id': t.id,
          onclick: () => {
            if (!pin.dragged) this.popover.open(pin.dataset.threadId);
            pin.dragged = false;
          },
        });
        this.dragPins(pin);
        this.layer.append(pin);
      }
      const n = t.comments.filter((c) => !c.deleted).length;
      pin.textContent = String(n);
      pin.classList.toggle('resolved', !!t.resolved);
      pin.setAttribute('aria-label', `Comment thread, ${n} comment${n === 1 ? '' : 's'}`);
    }
    for (const pin of [...this.layer.children]) if (!keep.has(pin.dataset.threadId)) pin.remove();
    this.position();
  }

  /** Who may move a thread's pin: editors and owners, and the thread's author (COMMENT-4). */
  canMove(t) {
    return !this.app.readOnly || (this.canComment && t.comments[0]?.author === this.app.me.id);
  }

  /** A pin dragged (past a few pixels) and dropped moves its thread to where it lands. */
  dragPins(pin) {
    let drag = null;
    pin.addEventListener('pointerdown', (e) => {
      const t = this.threads.get(pin.dataset.threadId);
      if (e.button !== 0 || !t || !this.canMove(t)) return;
      drag = { id: e.pointerId, sx: e.clientX, sy: e.clientY, moved: false };
      pin.setPointerCapture(e.pointerId);
    });
    pin.addEventListener('pointermove', (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.sx;
      const dy = e.clientY - drag.sy;
      if (!drag.moved && Math.hypot(dx, dy) < 5) return;
      drag.moved = true;
      pin.style.translate = `${dx}px ${dy}px`;
    });
    const end = (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const moved = drag.moved;
      drag = null;
      pin.style.translate = '';
      if (!moved) return;
      pin.dragged = true;
      this.dropPin(pin.dataset.threadId, e.clientX, e.clientY);
    };
    pin.addEventListener('pointerup', end);
    pin.addEventListener('pointercancel', () => {
      drag = null;
      pin.style.translate = '';
    });
  }

  /** Sends `comment_move` with the anchor at page point (cx, cy): the object there, or the point. */
  dropPin(thread, cx, cy) {
    const st = this.app.stage.getBoundingClientRect();
    const p = { x: cx - st.left, y: cy - st.top };
    const under = document.elementsFromPoint(cx, cy).find((n) => n.closest?.('.stage [data-id]'));
    const objectId = under ? under.closest('[data-id]').getAttribute('data-id') : null;
    this.request('comment_move', { thread, anchor: this.anchorAt(p, objectId) });
  }

  position() {
    for (const pin of this.layer.children) {
      const t = this.threads.get(pin.dataset.threadId);
      const w = t && this.anchorPoint(t.anchor);
      pin.hidden = !w;
      if (!w) continue;
      const s = this.r.worldToScreen(w.x, w.y);
      pin.style.transform = `translate(${Math.round(s.x)}px, ${Math.round(s.y)}px)`;
    }
    this.popover.position();
  }

  /** Centres the view on a thread's pin and opens it (the panel's and notifications' jump). */
  jumpTo(threadId) {
    const t = this.threads.get(threadId);
    const w = t && this.anchorPoint(t.anchor);
    if (!w) return false;
    this.app.following?.stop();
    const s = this.r.worldToScreen(w.x, w.y);
    const v = visibleRect(this.app.stage);
    this.r.panBy(v.x + v.w / 2 - s.x, v.y + v.h / 2 - s.y);
    this.popover.open(threadId);
    return true;
  }

  /** A display name for a user id: the people here, then the id itself. */
  nameOf(id) {
    if (id === this.app.me.id) return this.app.me.name || id;
    const u = this.app.presence.users.get(id);
    return (u && u.user.name) || this.members.get(id) || id;
  }

  /** An owner's page also knows the board's members (`GET …/members` is the owner's). */
  async loadMembers() {
    if (!this.app.access.isOwner || this.membersLoaded) return;
    this.membersLoaded = true;
    try {
      const r = await api('GET', `/api/boards/${encodeURIComponent(this.app.boardId)}/members`);
      for (const m of (r && r.members) || []) if (m.user) this.members.set(m.user, m.name || m.user);
    } catch {
      this.membersLoaded = false;
    }
  }

  /** People who may be mentioned, as far as this page knows: here now, or writing in threads. */
  people() {
    const out = new Map();
    out.set(this.app.me.id, this.app.me.name || this.app.me.id);
    for (const [id, name] of this.members) out.set(id, name);
    for (const u of this.app.presence.users.values()) out.set(u.user.id, u.user.name || u.user.id);
    for (const t of this.threads.values()) for (const c of t.comments) if (!out.has(c.author)) out.set(c.author, this.nameOf(c.author));
    return out;
  }
}

// The comments panel (open / resolved threads, a click jumps to the pin and opens the thread)
// and the notifications list with its unread badge (`GET /api/me/notifications`, `POST
// /api/me/notifications/read`; COMMENT-8). Text only, never HTML.

import { el } from './util.js';
import { api } from './auth.js';

const $ = (id) => document.getElementById(id);
const POLL_MS = 30000;

export class CommentsPanel {
  constructor(app) {
    this.app = app;
    this.c = app.comments;
    this.status = 'open';
    this.notes = [];
    this.panel = this.build('comments-panel', 'Comments');
    this.notePanel = this.build('notifications-panel', 'Notifications');
    this.tabs();
    $('comments-toggle').addEventListener('click', () => this.toggle(this.panel, 'comments-toggle'));
    $('notifications-toggle').addEventListener('click', () => {
      if (this.toggle(this.notePanel, 'notifications-toggle')) this.loadNotes();
    });
    this.render();
    this.c.onChange(() => {
      this.render();
      this.loadNotesSoon();
    });
    this.loadNotes();
    setInterval(() => this.loadNotes(), POLL_MS);
  }

  build(id, title) {
    const list = el('ol', { class: 'thread-list', 'data-testid': `${id}-list` });
    const close = el('button', { type: 'button', class: 'icon-button', 'aria-label': `Close ${title.toLowerCase()}` }, '✕');
    const panel = el('aside', { id, class: 'side-panel', 'data-testid': id, 'data-keys': 'own', 'aria-label': title, hidden: true },
      el('header', { class: 'chat-head' }, el('h2', {}, title), close), list);
    close.addEventListener('click', () => this.toggle(panel, id.replace('-panel', '-toggle'), false));
    this.app.stage.parentElement.append(panel);
    return panel;
  }

  tabs() {
    const row = el('div', { class: 'thread-tabs', role: 'radiogroup', 'aria-label': 'Which threads' });
    for (const [s, label] of [['open', 'Open'], ['resolved', 'Resolved']]) {
      row.append(el('button', {
        type: 'button',
        role: 'radio',
        'data-status': s,
        'data-testid': `threads-${s}`,
        'aria-checked': String(s === this.status),
        onclick: () => {
          this.status = s;
          for (const b of row.children) b.setAttribute('aria-checked', String(b.dataset.status === s));
          this.render();
        },
      }, label));
    }
    this.panel.querySelector('header').after(row);
  }

  /** Opens or closes a panel; returns whether it is open. */
  toggle(panel, buttonId, open = panel.hidden) {
    for (const p of [this.panel, this.notePanel]) if (p !== panel) p.hidden = true;
    panel.hidden = !open;
    $('comments-toggle').setAttribute('aria-expanded', String(!this.panel.hidden));
    $('notifications-toggle').setAttribute('aria-expanded', String(!this.notePanel.hidden));
    if (open) this.render();
    return open;
  }

  render() {
    const list = this.panel.querySelector('.thread-list');
    list.textContent = '';
    const want = this.status === 'resolved';
    const threads = [...this.c.threads.values()].filter((t) => !!t.resolved === want);
    if (!this.c.complete[this.status] && !this.panel.hidden) {
      if (!this.c.loadFailed[this.status]) this.c.loadAll(this.status);
      list.append(this.partial(want));
    }
    for (const t of threads) list.append(this.threadItem(t));
    if (!threads.length && this.c.complete[this.status]) {
      list.append(el('li', { class: 'muted small empty' }, want ? 'No resolved threads' : 'No open threads'));
    }
    const n = this.openCount();
    const more = this.c.complete.open ? '' : '+';
    $('comment-count').textContent = n ? ` ${n}${more}` : '';
    $('comments-toggle').setAttribute('aria-label', `Comments, ${n}${more} open`);
  }

  /** The line saying the list is not whole yet (loading, or the load failed). */
  partial(resolved) {
    const failed = this.c.loadFailed[this.status];
    let text = 'Loading threads…';
    if (failed) {
      text = resolved
        ? 'Could not load the resolved threads; showing those resolved while this page was open'
        : 'Could not load every open thread; showing the most recently changed';
    }
    const retry = failed ? el('button', { type: 'button', class: 'link-button', onclick: () => this.c.loadAll(this.status) }, 'Retry') : null;
    return el('li', { class: 'muted small', 'data-testid': 'threads-partial' }, text, retry);
  }

  openCount() {
    let n = 0;
    for (const t of this.c.threads.values()) if (!t.resolved) n++;
    return n;
  }

  threadItem(t) {
    const first = t.comments.find((c) => !c.deleted) || t.comments[0];
    const n = t.comments.filter((c) => !c.deleted).length;
    const text = first && !first.deleted ? first.body : 'Comment deleted';
    return el('li', {},
      el('button', {
        type: 'button',
        class: 'thread-item',
        'data-testid': 'thread-item',
        'data-thread-id': t.id,
        onclick: () => this.jump(t.id),
      },
      el('strong', {}, first ? this.c.nameOf(first.author) : ''),
      el('span', { class: 'thread-snippet' }, text.length > 140 ? `${text.slice(0, 140)}…` : text),
      el('span', { class: 'muted small' }, `${n} comment${n === 1 ? '' : 's'}`)));
  }

  jump(threadId) {
    if (window.matchMedia('(max-width: 720px)').matches) this.toggle(this.panel, 'comments-toggle', false);
    this.c.jumpTo(threadId);
  }

  // ---- notifications ----

  loadNotesSoon() {
    clearTimeout(this.noteTimer);
    this.noteTimer = setTimeout(() => this.loadNotes(), 1000);
  }

  async loadNotes() {
    let r;
    try {
      r = await api('GET', '/api/me/notifications');
    } catch {
      return;
    }
    if (!r || !Array.isArray(r.notifications)) return;
    this.notes = r.notifications;
    this.renderNotes();
  }

  renderNotes() {
    const unread = this.notes.filter((n) => !n.read_at).length;
    const badge = $('unread-badge');
    badge.hidden = unread === 0;
    badge.textContent = unread > 99 ? '99+' : String(unread);
    $('notifications-toggle').setAttribute('aria-label', `Notifications, ${unread} unread`);
    const list = this.notePanel.querySelector('.thread-list');
    list.textContent = '';
    for (const n of this.notes) list.append(this.noteItem(n));
    if (!this.notes.length) list.append(el('li', { class: 'muted small empty' }, 'No notifications'));
  }

  noteItem(n) {
    const here = n.board === this.app.boardId;
    const what = n.reason === 'mention' ? 'You were mentioned' : 'A reply in your thread';
    const where = here ? 'on this board' : 'on another board';
    return el('li', {},
      el('button', {
        type: 'button',
        class: 'thread-item' + (n.read_at ? '' : ' unread'),
        'data-testid': 'notification',
        'data-thread-id': n.thread,
        onclick: () => this.openNote(n),
      },
      el('strong', {}, what),
      el('span', { class: 'muted small' }, `${where} · ${new Date(n.at_ms).toLocaleString()}`)));
  }

  async openNote(n) {
    try {
      await api('POST', '/api/me/notifications/read', { threads: [n.thread] });
    } catch {
      // Marked read next time.
    }
    if (n.board !== this.app.boardId) {
      location.href = `/b/${encodeURIComponent(n.board)}#thread=${encodeURIComponent(n.thread)}`;
      return;
    }
    this.toggle(this.notePanel, 'notifications-toggle', false);
    if (!this.c.jumpTo(n.thread)) this.app.toast('That thread is resolved or gone');
    this.loadNotes();
  }
}

// The comment thread popover (UI-COMMENT-n): a draft's first comment, or a thread's comments
// with reply, edit, delete, reactions, resolve/reopen and `@` completion of the people the page
// knows. Every body is put in the page as text nodes (mentions as their own spans), never as
// HTML. On phones the popover is a bottom sheet (app.css).

import { el } from './util.js';

const REACTIONS = ['👍', '❤️', '🎉'];
const MENTION_RE = /(^|[^\p{L}\p{N}_])@([A-Za-z0-9_-]{1,64})/gu;

/** A comment body as DOM nodes: text, with `@id` shown as `@Name` spans. Never parsed as HTML. */
export function bodyNodes(body, nameOf) {
  const out = [];
  let last = 0;
  for (const m of body.matchAll(MENTION_RE)) {
    const at = m.index + m[1].length;
    if (at > last) out.push(document.createTextNode(body.slice(last, at)));
    out.push(el('span', { class: 'mention', 'data-user-id': m[2], title: `@${m[2]}` }, `@${nameOf(m[2])}`));
    last = at + 1 + m[2].length;
  }
  if (last < body.length) out.push(document.createTextNode(body.slice(last)));
  return out;
}

function timeText(ms) {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toLocaleString([], { dateStyle: 'short', timeStyle: 'short' }) : '';
}

export class ThreadPopover {
  constructor(comments) {
    this.c = comments;
    this.app = comments.app;
    this.threadId = null;
    this.draft = null;
    this.node = el('div', {
      class: 'comment-popover',
      'data-testid': 'comment-popover',
      'data-keys': 'own',
      role: 'dialog',
      'aria-label': 'Comment thread',
      hidden: true,
    });
    this.node.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.suggest?.node.childElementCount) {
        e.preventDefault();
        e.stopPropagation();
        this.close();
      }
    });
    this.app.stage.parentElement.append(this.node);
  }

  get isOpen() {
    return !this.node.hidden;
  }

  openDraft(anchor) {
    this.c.loadMembers();
    this.threadId = null;
    this.draft = anchor;
    this.render();
  }

  open(threadId) {
    if (!this.c.threads.has(threadId)) return;
    this.c.loadMembers();
    this.threadId = threadId;
    this.draft = null;
    this.render();
    this.c.renderPins();
  }

  close() {
    const had = this.threadId;
    this.threadId = null;
    this.draft = null;
    this.node.hidden = true;
    this.node.textContent = '';
    if (had) this.c.renderPins();
    this.app.stage.focus({ preventScroll: true });
  }

  /** The threads changed: redraw the comments of the open one (a reply being typed is kept). */
  refresh() {
    if (!this.threadId) return;
    if (!this.c.threads.has(this.threadId)) {
      this.close();
      return;
    }
    const list = this.node.querySelector('.comment-list');
    if (list) list.replaceWith(this.commentList(this.c.threads.get(this.threadId)));
    this.renderHead();
  }

  render() {
    this.node.textContent = '';
    this.node.hidden = false;
    this.node.append(el('header', { class: 'comment-head' }));
    if (this.threadId) this.node.append(this.commentList(this.c.threads.get(this.threadId)));
    if (this.c.canComment) this.node.append(this.form());
    this.renderHead();
    this.position();
    const area = this.node.querySelector('textarea');
    if (area) setTimeout(() => area.focus({ preventScroll: true }), 0);
  }

  renderHead() {
    const head = this.node.querySelector('.comment-head');
    head.textContent = '';
    const t = this.threadId && this.c.threads.get(this.threadId);
    head.append(el('h2', {}, t ? (t.resolved ? 'Resolved thread' : 'Comments') : 'New comment'));
    if (t && this.c.canComment) {
      const on = !t.resolved;
      head.append(
        el('button', {
          type: 'button',
          class: 'btn small',
          'data-testid': on ? 'comment-resolve' : 'comment-reopen',
          onclick: () => this.c.request('comment_resolve', { thread: t.id, resolved: on }),
        }, on ? 'Resolve' : 'Reopen'),
      );
    }
    head.append(el('button', { type: 'button', class: 'icon-button', 'aria-label': 'Close', 'data-testid': 'comment-close', onclick: () => this.close() }, '✕'));
  }

  commentList(t) {
    const list = el('ol', { class: 'comment-list', 'data-testid': 'comment-list' });
    for (const c of t.comments) list.append(this.commentItem(c));
    return list;
  }

  commentItem(c) {
    const mine = c.author === this.app.me.id;
    const li = el('li', { class: 'comment', 'data-testid': 'comment', 'data-comment-id': c.id });
    li.append(
      el('div', { class: 'comment-meta' },
        el('strong', {}, this.c.nameOf(c.author)),
        el('span', { class: 'muted small' }, ` ${timeText(c.created_at_ms)}${c.edited_at_ms ? ' (edited)' : ''}`)),
    );
    if (c.deleted) {
      li.append(el('p', { class: 'comment-body deleted muted' }, 'Comment deleted'));
      return li;
    }
    li.append(el('p', { class: 'comment-body', 'data-testid': 'comment-body' }, ...bodyNodes(c.body, (id) => this.c.nameOf(id))));
    li.append(this.reactionRow(c));
    if (this.c.canComment && (mine || this.app.access.isOwner)) li.append(this.ownActions(c, li, mine));
    return li;
  }

  reactionRow(c) {
    const row = el('div', { class: 'reactions' });
    const emojis = [...new Set([...Object.keys(c.reactions || {}), ...REACTIONS])];
    for (const e of emojis) {
      const who = (c.reactions || {})[e] || [];
      const on = who.includes(this.app.me.id);
      if (!who.length && !this.c.canComment) continue;
      row.append(
        el('button', {
          type: 'button',
          class: 'reaction' + (who.length ? ' used' : ''),
          'aria-pressed': String(on),
          'data-testid': 'reaction',
          'data-emoji': e,
          title: who.map((id) => this.c.nameOf(id)).join(', '),
          disabled: !this.c.canComment,
          onclick: () => this.c.request('comment_react', { comment: c.id, emoji: e, on: !on }),
        }, who.length ? `${e} ${who.length}` : e),
      );
    }
    return row;
  }

  ownActions(c, li, mine) {
    const box = el('div', { class: 'comment-actions' });
    if (mine) box.append(el('button', { type: 'button', class: 'link-button', 'data-testid': 'comment-edit', onclick: () => this.edit(c, li) }, 'Edit'));
    box.append(
      el('button', {
        type: 'button',
        class: 'link-button',
        'data-testid': 'comment-delete',
        onclick: () => {
          if (confirm('Delete this comment?')) this.c.request('comment_delete', { comment: c.id });
        },
      }, 'Delete'),
    );
    return box;
  }

  /** Edits a comment in place (its body becomes a field; Save sends `comment_edit`). */
  edit(c, li) {
    const area = el('textarea', { class: 'comment-input', rows: 3, maxlength: 5000, 'aria-label': 'Edit the comment', 'data-testid': 'comment-edit-input' });
    area.value = c.body;
    const form = el('form', { class: 'comment-form' }, area,
      el('div', { class: 'comment-form-row' },
        el('button', { type: 'button', class: 'btn small', onclick: () => this.refresh() }, 'Cancel'),
        el('button', { type: 'submit', class: 'btn primary small' }, 'Save')));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const body = area.value.trim();
      if (body && body !== c.body) await this.c.request('comment_edit', { comment: c.id, body });
      this.refresh();
    });
    li.querySelector('.comment-body').replaceWith(form);
    area.focus();
  }

  /** The reply (or first comment) field with `@` completion; Enter sends, Shift+Enter a new line. */
  form() {
    const area = el('textarea', {
      class: 'comment-input',
      rows: 2,
      maxlength: 5000,
      'data-testid': 'comment-input',
      'aria-label': this.threadId ? 'Reply' : 'Comment',
      placeholder: this.threadId ? 'Reply… (@ to mention)' : 'Add a comment… (@ to mention)',
    });
    const send = el('button', { type: 'submit', class: 'btn primary small', 'data-testid': 'comment-send' }, this.threadId ? 'Reply' : 'Comment');
    this.suggest = new MentionSuggest(area, () => this.c.people());
    const form = el('form', { class: 'comment-form' }, area, this.suggest.node, el('div', { class: 'comment-form-row' }, send));
    area.addEventListener('keydown', (e) => {
      if (this.suggest.onKey(e)) return;
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.submit(area);
    });
    return form;
  }

  async submit(area) {
    const body = area.value.trim();
    if (!body) return;
    area.disabled = true;
    const ans = this.threadId
      ? await this.c.request('comment_reply', { thread: this.threadId, body })
      : await this.c.request('comment_thread', { anchor: this.draft, body });
    area.disabled = false;
    if (ans.type !== 'ack') return;
    area.value = '';
    if (!this.threadId && ans.thread) {
      // The thread's `comments_changed` follows the ack; show it once it is here.
      this.threadId = ans.thread;
      this.draft = null;
      if (this.c.threads.has(ans.thread)) this.render();
      else this.pendingOpen = ans.thread;
    }
    area.focus();
  }

  /** Places the popover beside its pin (the draft's point), inside the workspace. */
  position() {
    if (!this.isOpen) return;
    if (this.pendingOpen && this.c.threads.has(this.pendingOpen)) {
      this.pendingOpen = null;
      this.render();
      return;
    }
    const a = this.threadId ? this.c.threads.get(this.threadId)?.anchor : this.draft;
    const w = a && this.c.anchorPoint(a);
    if (!w) return;
    const s = this.app.renderer.worldToScreen(w.x, w.y);
    const host = this.node.parentElement.getBoundingClientRect();
    const st = this.app.stage.getBoundingClientRect();
    const pw = this.node.offsetWidth || 300;
    const ph = this.node.offsetHeight || 200;
    const x = Math.min(Math.max(8, st.left - host.left + s.x + 18), host.width - pw - 8);
    const y = Math.min(Math.max(8, st.top - host.top + s.y - 10), host.height - ph - 8);
    this.node.style.left = `${Math.round(x)}px`;
    this.node.style.top = `${Math.round(y)}px`;
  }
}

/** `@` completion under a textarea: the people who match what follows the `@`. */
class MentionSuggest {
  constructor(area, people) {
    this.area = area;
    this.people = people;
    this.node = el('ul', { class: 'mention-list', 'data-testid': 'mention-list', role: 'listbox' });
    this.active = 0;
    area.addEventListener('input', () => this.update());
  }

  /** The `@word` being typed before the caret, or null. */
  query() {
    const before = this.area.value.slice(0, this.area.selectionStart);
    const m = /(^|[^\p{L}\p{N}_])@([A-Za-z0-9_-]*)$/u.exec(before);
    return m ? { q: m[2].toLowerCase(), at: before.length - m[2].length - 1 } : null;
  }

  update() {
    this.node.textContent = '';
    const q = this.query();
    if (!q) return;
    const hits = [...this.people()].filter(([id, name]) => id.toLowerCase().startsWith(q.q) || name.toLowerCase().includes(q.q)).slice(0, 6);
    this.active = 0;
    hits.forEach(([id, name], i) => {
      this.node.append(
        el('li', {
          role: 'option',
          'data-user-id': id,
          'data-testid': 'mention-option',
          'aria-selected': String(i === 0),
          onpointerdown: (e) => {
            e.preventDefault();
            this.pick(id);
          },
        }, `${name} `, el('span', { class: 'muted small' }, `@${id}`)),
      );
    });
  }

  /** Arrow keys, Enter/Tab and Escape while the list is open; true when the key was used. */
  onKey(e) {
    const items = [...this.node.children];
    if (!items.length) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      this.active = (this.active + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      items.forEach((li, i) => li.setAttribute('aria-selected', String(i === this.active)));
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      this.pick(items[this.active].dataset.userId);
    } else if (e.key === 'Escape') {
      this.node.textContent = '';
    } else {
      return false;
    }
    e.preventDefault();
    e.stopPropagation();
    return true;
  }

  pick(id) {
    const q = this.query();
    if (!q) return;
    const v = this.area.value;
    const end = this.area.selectionStart;
    this.area.value = `${v.slice(0, q.at)}@${id} ${v.slice(end)}`;
    const caret = q.at + id.length + 2;
    this.area.setSelectionRange(caret, caret);
    this.node.textContent = '';
    this.area.focus();
  }
}

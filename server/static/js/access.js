// Access on the board page: the role (from `welcome.role`, changed live by `role_changed`), the
// read-only mode of viewers, the board's title and its renaming, and the calm full-page notices
// when the page cannot show the board (signed out, no access, access removed, deleted).

import { el } from './util.js';
import { api, signedOutPanel } from './auth.js';

const $ = (id) => document.getElementById(id);
const CAN_EDIT = new Set(['editor', 'owner']);

export class Access {
  /**
   * @param {object} app the board app (boardId, ix, ai, toast)
   * @param {'on'|'off'} auth whether the server checks access
   */
  constructor(app, auth) {
    this.app = app;
    this.auth = auth;
    /** viewer | editor | owner; with access control off everyone edits. */
    this.role = auth === 'off' ? 'editor' : null;
    this.title = '';
    this.listeners = new Set();
    $('rename').addEventListener('click', () => this.startRename());
    $('board-name').addEventListener('dblclick', () => this.startRename());
    $('rename-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.finishRename(true);
    });
    const input = $('rename-input');
    input.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Escape') {
        e.preventDefault();
        this.finishRename(false);
      }
    });
    input.addEventListener('blur', () => this.finishRename(true));
    if (auth === 'off') this.setRole('editor');
  }

  get readOnly() {
    return !CAN_EDIT.has(this.role);
  }

  get isOwner() {
    return this.role === 'owner';
  }

  onRole(fn) {
    this.listeners.add(fn);
  }

  /** The role from a `welcome` or a `role_changed`; turns the page read-only or back in place. */
  setRole(role, { live = false } = {}) {
    if (this.auth === 'off') role = role || 'editor';
    if (!['viewer', 'commenter', 'editor', 'owner'].includes(role)) return;
    const before = this.role;
    this.role = role;
    const ro = this.readOnly;
    document.body.classList.toggle('read-only', ro);
    document.body.dataset.role = role;
    $('view-only').hidden = !ro;
    $('view-only').textContent = role === 'commenter' ? 'Can comment' : 'View only';
    $('view-only').title =
      role === 'commenter' ? 'You can look and comment, but not change this board' : 'You can look, point and select, but not change this board';
    $('rename').hidden = ro;
    $('share-open').hidden = !(this.isOwner && this.auth === 'on');
    if (ro) this.finishRename(false);
    for (const fn of this.listeners) fn(role, before);
    if (live && before && before !== role) {
      if (ro) this.app.toast('You can now only view this board');
      else if (!CAN_EDIT.has(before)) this.app.toast('You can now edit this board');
    }
  }

  /** The board's title in the top bar and the tab (its id when it has none). */
  setTitle(title) {
    this.title = typeof title === 'string' ? title.trim() : '';
    // An untitled board reads as such (its id is in the tooltip), never as a bare id.
    const shown = this.title || 'Untitled board';
    $('board-name').textContent = shown;
    $('board-name').title = this.title ? `${this.title} (${this.app.boardId})` : this.app.boardId;
    document.title = `${shown} · Board`;
  }

  startRename() {
    if (this.readOnly) return;
    const input = $('rename-input');
    input.value = this.title;
    $('board-name').hidden = true;
    $('rename').hidden = true;
    $('rename-form').hidden = false;
    input.focus();
    input.select();
  }

  async finishRename(save) {
    const form = $('rename-form');
    if (form.hidden) return;
    const title = $('rename-input').value.trim();
    form.hidden = true;
    $('board-name').hidden = false;
    $('rename').hidden = this.readOnly;
    if (!save || !title || title === this.title) return;
    if (title.length > 100) {
      this.app.toast('A title has at most 100 characters', 'error');
      return;
    }
    const previous = this.title;
    this.setTitle(title);
    try {
      const body = await api('PATCH', `/api/boards/${encodeURIComponent(this.app.boardId)}`, { title });
      if (body && typeof body.title === 'string') this.setTitle(body.title);
    } catch (e) {
      this.setTitle(previous);
      this.app.toast(`Not renamed: ${e.message}`, 'error');
    }
  }

  /**
   * Covers the board with a notice: `reason` is signed-out | expired | no-access | revoked |
   * deleted. The connection has stopped by then (no reconnect loop).
   */
  block(reason) {
    const box = $('blocker');
    box.textContent = '';
    box.dataset.reason = reason;
    let card;
    if (reason === 'signed-out' || reason === 'expired') {
      card = signedOutPanel({ expired: reason === 'expired' });
    } else {
      const text = {
        'no-access': [
          'This board is not available',
          'It does not exist, or you have not been given access to it. Ask its owner for a share link.',
        ],
        revoked: [
          'Your access to this board was removed',
          'The link you came with was revoked or expired, or the owner removed you from the board. Ask them for a new link if you still need it.',
        ],
        deleted: ['This board was deleted', 'Its owner deleted it. Nothing more can be done here.'],
      }[reason] || ['This board cannot be shown', 'Reload the page to try again.'];
      card = el(
        'section',
        { class: 'card notice', role: 'alert' },
        el('h2', {}, text[0]),
        el('p', {}, text[1]),
      );
    }
    card.append(el('p', {}, el('a', { href: '/', 'data-testid': 'back-to-list' }, 'All boards')));
    box.append(card);
    box.hidden = false;
    document.body.classList.add('blocked');
  }
}

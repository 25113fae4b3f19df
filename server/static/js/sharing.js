// The owner's Share dialog: create view and edit links (with an optional expiry), copy the full
// URL of a new link (the server shows it once), list and revoke links; list the board's members,
// change their role or remove them. Every change takes effect on open connections at once.

import { el } from './util.js';
import { api, ago } from './auth.js';

const $ = (id) => document.getElementById(id);
const ROLE_TEXT = { viewer: 'can view', commenter: 'can comment', editor: 'can edit', owner: 'owner' };

export class ShareDialog {
  constructor(app) {
    this.app = app;
    this.dialog = $('share-dialog');
    this.base = `/api/boards/${encodeURIComponent(app.boardId)}`;
    $('share-open').addEventListener('click', () => this.open());
    $('share-close').addEventListener('click', () => this.dialog.close());
    $('link-form').addEventListener('submit', (e) => {
      e.preventDefault();
      this.createLink();
    });
    $('link-copy').addEventListener('click', () => this.copy());
    // Keys typed in the dialog are the dialog's, not the board's shortcuts.
    this.dialog.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') e.stopPropagation();
    });
    this.dialog.addEventListener('click', (e) => {
      // A click on the backdrop closes.
      if (e.target === this.dialog) this.dialog.close();
    });
  }

  error(text) {
    $('share-error').textContent = text || '';
  }

  async open() {
    if (!this.app.access.isOwner) return;
    this.error('');
    $('link-new').hidden = true;
    if (!this.dialog.open) this.dialog.showModal();
    await this.refresh();
  }

  async refresh() {
    try {
      const [links, members] = await Promise.all([api('GET', `${this.base}/links`), api('GET', `${this.base}/members`)]);
      this.renderLinks((links && links.links) || []);
      this.renderMembers((members && members.members) || []);
    } catch (e) {
      this.error(`Could not load the sharing settings: ${e.message}`);
    }
  }

  async createLink() {
    this.error('');
    const role = $('link-role').value;
    const expiry = Number($('link-expiry').value);
    const body = { role };
    if (expiry > 0) body.expires_in_secs = expiry;
    try {
      const link = await api('POST', `${this.base}/links`, body);
      const url = new URL(link.url, location.origin).href;
      $('link-url').value = url;
      $('link-new').hidden = false;
      $('link-new').dataset.role = link.role;
      $('link-copy').textContent = 'Copy';
      $('link-url').focus();
      $('link-url').select();
      await this.refresh();
    } catch (e) {
      this.error(`Could not create the link: ${e.message}`);
    }
  }

  async copy() {
    const input = $('link-url');
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      // No clipboard permission (plain http, or denied): select it for Ctrl/Cmd+C instead.
      input.focus();
      input.select();
      $('link-copy').textContent = 'Press Ctrl+C';
      return;
    }
    $('link-copy').textContent = 'Copied';
  }

  renderLinks(links) {
    const list = $('link-list');
    list.textContent = '';
    if (!links.length) {
      list.append(el('li', { class: 'muted empty' }, 'No links yet.'));
      return;
    }
    for (const l of links) {
      const expires = l.expires_at ? `expires ${new Date(l.expires_at < 1e12 ? l.expires_at * 1000 : l.expires_at).toLocaleString()}` : 'never expires';
      list.append(
        el(
          'li',
          { 'data-testid': 'link-item', 'data-link-id': l.id, 'data-role': l.role },
          el('span', { class: `role-pill ${l.role}` }, ROLE_TEXT[l.role] || l.role),
          el('span', { class: 'muted grow' }, `created ${ago(l.created_at)} · ${expires}`),
          el(
            'button',
            {
              type: 'button',
              class: 'btn danger-text',
              'data-testid': 'link-revoke',
              'aria-label': `Revoke the ${ROLE_TEXT[l.role] || l.role} link`,
              onclick: () => this.revoke(l.id),
            },
            'Revoke',
          ),
        ),
      );
    }
  }

  async revoke(id) {
    this.error('');
    try {
      await api('DELETE', `${this.base}/links/${encodeURIComponent(id)}`);
      this.app.toast('Link revoked: whoever came with it has lost access');
    } catch (e) {
      this.error(`Could not revoke the link: ${e.message}`);
    }
    await this.refresh();
  }

  renderMembers(members) {
    const list = $('member-list');
    list.textContent = '';
    if (!members.length) {
      list.append(el('li', { class: 'muted empty' }, 'Nobody else yet.'));
      return;
    }
    for (const m of members) {
      const self = m.user === this.app.me.id;
      const name = `${m.name || m.user}${self ? ' (you)' : ''}`;
      const row = el(
        'li',
        { 'data-testid': 'member-item', 'data-user-id': m.user },
        el('span', { class: 'grow' }, name, m.via_link ? el('span', { class: 'muted small' }, ' · via link') : null),
      );
      if (self || m.role === 'owner') {
        row.append(el('span', { class: `role-pill ${m.role}` }, ROLE_TEXT[m.role] || m.role));
      } else {
        const select = el(
          'select',
          { 'aria-label': `Role of ${m.name || m.user}`, 'data-testid': 'member-role' },
          el('option', { value: 'viewer' }, 'can view'),
          el('option', { value: 'commenter' }, 'can comment'),
          el('option', { value: 'editor' }, 'can edit'),
        );
        select.value = m.role;
        select.addEventListener('change', () => this.setRole(m.user, select.value));
        row.append(
          select,
          el(
            'button',
            {
              type: 'button',
              class: 'btn danger-text',
              'data-testid': 'member-remove',
              'aria-label': `Remove ${m.name || m.user} from the board`,
              onclick: () => this.remove(m.user),
            },
            'Remove',
          ),
        );
      }
      list.append(row);
    }
  }

  async setRole(user, role) {
    this.error('');
    try {
      await api('PATCH', `${this.base}/members/${encodeURIComponent(user)}`, { role });
    } catch (e) {
      this.error(`Could not change the role: ${e.message}`);
    }
    await this.refresh();
  }

  async remove(user) {
    this.error('');
    try {
      await api('DELETE', `${this.base}/members/${encodeURIComponent(user)}`);
    } catch (e) {
      this.error(`Could not remove them: ${e.message}`);
    }
    await this.refresh();
  }
}

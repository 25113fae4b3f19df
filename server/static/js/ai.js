// The AI side of the page: the command bar (Cmd/Ctrl+K), the chat panel with suggestion chips,
// the question bar (buttons or a form generated from each question's JSON Schema), the
// PLAN/BUILD toggle, and the queued/running spinner.
//
// Every `ai` carries the current selection and the visible part of the view in board
// coordinates. Replies are matched to requests by id; unknown fields in any message are ignored.
// What a command made or changed is brought into view (the requester's only); a plan is rendered
// in the chat and its batch previewed on the board as ghosts until it is answered.

import { el, uid, modKey, IS_MAC } from './util.js';
import { field, ValidationError } from './schemaform.js';
import { renderMarkdown } from './markdown.js';
import { visibleViewport } from './follow.js';
import { Ghosts } from './ghost.js';

const REPLY_FADE_MS = 3000;
/** A reply that offers something to click (Show, Undo, suggestions) stays longer. */
const REPLY_ACTIONS_FADE_MS = 6000;
const EXAMPLES = [
  'create a SWOT analysis for a coffee shop',
  'make a kanban board with To do, Doing and Done',
  'flowchart: idea -> prototype -> test -> launch',
];

export class Ai {
  constructor(app) {
    this.app = app;
    /** id -> {text, state} of commands not answered yet. */
    this.jobs = new Map();
    this.mode = 'build';
    this.confirmedMode = 'build';
    this.question = null;
    this.fadeTimer = null;
    this.hideTimer = null;
    /** The outstanding AI-family requests, oldest first: what an `error` may refer to. */
    this.awaiting = [];
    this.ghosts = new Ghosts(app.renderer);

    const $ = (id) => document.getElementById(id);
    this.bar = $('command-bar');
    this.barForm = $('command-form');
    this.barInput = $('command-input');
    this.reply = $('command-reply');
    this.spinners = [...document.querySelectorAll('[data-role="ai-spinner"]')];
    this.panel = $('chat-panel');
    this.log = $('chat-log');
    this.chatForm = $('chat-form');
    this.chatInput = $('chat-input');
    this.questionBar = $('question-bar');
    this.modeButtons = [...document.querySelectorAll('[data-mode]')];
    this.chatToggle = $('chat-toggle');

    this.barForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = this.barInput.value.trim();
      if (!text) return;
      this.barInput.value = '';
      this.ask(text);
    });
    this.barInput.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.closeBar();
      }
    });
    $('command-close').addEventListener('click', () => this.closeBar());
    // A reply being read (pointer over it or focus in it) does not fade.
    this.reply.addEventListener('pointerenter', () => this.holdReply());
    this.reply.addEventListener('focusin', () => this.holdReply());
    this.reply.addEventListener('pointerleave', () => this.fadeReplyLater());
    $('command-open').addEventListener('click', () => this.openBar());
    this.chatForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = this.chatInput.value.trim();
      if (!text) return;
      this.chatInput.value = '';
      this.ask(text);
    });
    this.chatInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        this.chatForm.requestSubmit();
      }
    });
    this.chatToggle.addEventListener('click', () => this.togglePanel());
    $('chat-close').addEventListener('click', () => this.togglePanel(false));
    for (const b of this.modeButtons) {
      b.addEventListener('click', () => this.requestMode(b.dataset.mode));
    }
    document.addEventListener('keydown', (e) => {
      if (modKey(e) && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        if (this.isBarOpen() && document.activeElement === this.barInput) this.closeBar();
        else this.openBar();
      } else if (e.key === 'Escape' && this.isBarOpen()) {
        e.preventDefault();
        this.closeBar();
      }
    });
    this.renderMode();
    this.showExamples();
    if (IS_MAC) {
      for (const k of document.querySelectorAll('[data-shortcut="command"]')) k.textContent = '⌘K';
    }
  }

  /** An empty chat offers a few things to try. */
  showExamples() {
    const li = el('li', { class: 'msg system examples', 'data-testid': 'chat-examples' }, el('p', {}, 'Try:'));
    const row = el('div', { class: 'chips' });
    for (const text of EXAMPLES) {
      row.append(
        el('button', { type: 'button', class: 'chip', 'data-testid': 'example-chip', onclick: () => this.ask(text) }, text),
      );
    }
    li.append(row);
    this.log.append(li);
  }

  // ---- command bar ----

  isBarOpen() {
    return !this.bar.hidden;
  }

  openBar() {
    if (this.app.readOnly) return;
    this.returnFocus = document.activeElement;
    this.bar.hidden = false;
    this.bar.dataset.state = 'open';
    this.barInput.focus();
    this.barInput.select();
  }

  closeBar() {
    this.bar.hidden = true;
    this.bar.dataset.state = 'closed';
    const back = this.returnFocus;
    this.returnFocus = null;
    if (back && back !== document.body && document.contains(back) && back !== this.barInput) {
      back.focus({ preventScroll: true });
    } else {
      this.app.stage.focus({ preventScroll: true });
    }
  }

  /**
   * The reply toast: the text, then `actions` ([{label, testid, run}]) and `suggestions`
   * (clickable, each sent as a new command).
   */
  showReply(text, kind, { actions = [], suggestions = [] } = {}) {
    const r = this.reply;
    r.textContent = '';
    r.append(el('span', { class: 'reply-text', 'data-testid': 'reply-text' }, text));
    if (actions.length) {
      const row = el('span', { class: 'reply-actions' });
      for (const a of actions) {
        row.append(
          el('button', { type: 'button', class: 'reply-action', 'data-testid': a.testid, onclick: () => a.run() }, a.label),
        );
      }
      r.append(row);
    }
    if (suggestions.length) {
      const row = el('div', { class: 'chips', role: 'group', 'aria-label': 'Suggestions' });
      for (const s of suggestions) {
        row.append(
          el('button', { type: 'button', class: 'chip', 'data-testid': 'reply-suggestion', onclick: () => this.ask(s) }, s),
        );
      }
      r.append(row);
    }
    r.dataset.kind = kind || 'info';
    r.hidden = false;
    this.replyMs = actions.length || suggestions.length ? REPLY_ACTIONS_FADE_MS : REPLY_FADE_MS;
    this.fadeReplyLater();
  }

  holdReply() {
    clearTimeout(this.fadeTimer);
    clearTimeout(this.hideTimer);
    if (this.reply.hidden) return;
    this.reply.classList.remove('fading');
    this.reply.dataset.state = 'shown';
  }

  fadeReplyLater() {
    const r = this.reply;
    if (r.hidden) return;
    this.holdReply();
    this.fadeTimer = setTimeout(() => {
      r.classList.add('fading');
      r.dataset.state = 'fading';
      this.hideTimer = setTimeout(() => {
        r.hidden = true;
        r.dataset.state = 'faded';
      }, 400);
    }, this.replyMs || REPLY_FADE_MS);
  }

  // ---- chat panel ----

  togglePanel(open) {
    const show = open === undefined ? this.panel.hidden : open;
    this.panel.hidden = !show;
    this.chatToggle.setAttribute('aria-expanded', String(show));
    document.body.classList.toggle('chat-open', show);
    this.app.layoutChanged();
    if (show && open === undefined) this.chatInput.focus();
  }

  addMessage(role, text, extra = {}) {
    this.log.querySelector('.examples')?.remove();
    const li = el('li', {
      class: `msg ${role}`,
      'data-testid': role === 'user' ? 'chat-user' : 'chat-ai',
      'data-outcome': extra.outcome,
      'data-request-id': extra.id,
    });
    li.append(el('p', { class: 'msg-text' }, text));
    this.log.append(li);
    this.log.scrollTop = this.log.scrollHeight;
    return li;
  }

  // ---- requests ----

  /** Sends an AI command with the current selection and viewport. */
  ask(text) {
    if (this.app.readOnly) return;
    const id = uid('ai-');
    const msg = {
      type: 'ai',
      id,
      text,
      selection: [...this.app.renderer.selection],
      viewport: visibleViewport(this.app.renderer),
    };
    this.addMessage('user', text, { id });
    if (!this.app.send(msg)) {
      this.addMessage('ai', 'Not connected to the server; try again when the board is back online.', {
        outcome: 'error',
      });
      this.showReply('Not connected', 'error');
      return null;
    }
    this.jobs.set(id, { text, state: 'sent' });
    // A new command makes an open plan's question stale: its preview goes.
    this.ghosts.clear();
    this.awaiting.push({ kind: 'ai', id });
    this.renderSpinner();
    return id;
  }

  requestMode(mode) {
    if (this.app.readOnly) return;
    if (mode !== 'plan' && mode !== 'build') return;
    if (!this.app.send({ type: 'set_mode', mode })) {
      this.app.toast('Not connected');
      return;
    }
    this.awaiting.push({ kind: 'set_mode', mode });
    // Shown at once; `mode_changed` (or an error) settles it.
    this.mode = mode;
    this.renderMode();
  }

  /** welcome.mode / mode_changed. */
  setMode(mode, planFile) {
    if (mode !== 'plan' && mode !== 'build') return;
    this.awaiting = this.awaiting.filter((a) => a.kind !== 'set_mode');
    this.mode = mode;
    this.confirmedMode = mode;
    this.planFile = planFile || this.planFile;
    this.renderMode();
  }

  renderMode() {
    for (const b of this.modeButtons) {
      const on = b.dataset.mode === this.mode;
      b.setAttribute('aria-checked', String(on));
      b.classList.toggle('active', on);
    }
    document.body.dataset.aiMode = this.mode;
    const badge = document.getElementById('mode-badge');
    if (badge) badge.textContent = this.mode === 'plan' ? 'PLAN' : 'BUILD';
  }

  renderSpinner() {
    let state = '';
    for (const j of this.jobs.values()) {
      if (j.state === 'running') state = 'running';
      else if (!state) state = j.state === 'queued' ? 'queued' : 'sent';
    }
    for (const s of this.spinners) {
      s.hidden = !state;
      s.dataset.state = state || 'idle';
      const label = s.querySelector('.spinner-label');
      if (label) label.textContent = state === 'queued' ? 'Queued…' : state ? 'Thinking…' : '';
    }
  }

  // ---- server messages ----

  handle(msg) {
    if (['ai_status', 'ai_result', 'question', 'mode_changed'].includes(msg.type)) {
      // The agent is answering: an earlier `answer` went through.
      this.awaiting = this.awaiting.filter((a) => a.kind !== 'answer');
    }
    switch (msg.type) {
      case 'ai_status':
        this.onStatus(msg);
        return true;
      case 'ai_result':
        this.onResult(msg);
        return true;
      case 'question':
        this.onQuestion(msg);
        return true;
      case 'mode_changed':
        this.setMode(msg.mode, msg.plan_file);
        this.addMessage('system', `Mode: ${String(msg.mode).toUpperCase()}`);
        return true;
      default:
        return false;
    }
  }

  onStatus(msg) {
    const job = this.jobs.get(msg.id);
    if (!job) return;
    job.state = msg.state;
    this.awaiting = this.awaiting.filter((a) => a.id !== msg.id);
    this.renderSpinner();
  }

  onResult(msg) {
    this.jobs.delete(msg.id);
    this.awaiting = this.awaiting.filter((a) => a.id !== msg.id);
    this.renderSpinner();
    const outcome = msg.outcome || 'executed';
    const text = msg.message || (outcome === 'error' ? 'Something went wrong.' : 'Done.');
    const li = this.addMessage('ai', text, { outcome, id: msg.id });
    if (outcome === 'planned') li.prepend(el('span', { class: 'badge plan-badge' }, 'Planned'));
    const plan = msg.plan;
    const markdown = plan && typeof plan === 'object' ? plan.markdown : typeof plan === 'string' ? plan : null;
    if (typeof markdown === 'string' && markdown) {
      const box = renderMarkdown(markdown);
      box.classList.add('plan');
      box.dataset.testid = 'plan-preview';
      li.append(box);
    }
    if (outcome === 'planned') {
      this.ghosts.show(plan && plan.objects);
      this.app.follow.showBounds(this.ghosts.bounds());
    }
    if (msg.error && msg.error.message && msg.error.message !== text) {
      li.append(el('p', { class: 'msg-error' }, msg.error.message));
    }
    const chips = Array.isArray(msg.suggestions) ? msg.suggestions.filter((s) => typeof s === 'string') : [];
    if (chips.length) {
      const row = el('div', { class: 'chips', role: 'group', 'aria-label': 'Suggestions' });
      for (const s of chips) {
        row.append(
          el('button', { type: 'button', class: 'chip', 'data-testid': 'suggestion-chip', onclick: () => this.ask(s) }, s),
        );
      }
      li.append(row);
    }
    if (msg.meta && msg.meta.route) {
      const ms = typeof msg.meta.latency_ms === 'number' ? ` · ${Math.round(msg.meta.latency_ms)} ms` : '';
      li.append(el('small', { class: 'meta' }, `${msg.meta.route}${ms}`));
    }
    // What the command made or changed: brought into view, with Show and Undo on the reply.
    const ids = outcome === 'executed' ? this.app.resultIds(msg) : [];
    const actions = [];
    if (ids.length) {
      this.app.follow.show(this.app.doc, ids);
      actions.push({ label: 'Show', testid: 'reply-show', run: () => this.app.follow.show(this.app.doc, ids, { force: true }) });
      actions.push({ label: 'Undo', testid: 'reply-undo', run: () => this.undoResult() });
    }
    this.showReply(text, outcome === 'error' ? 'error' : outcome, { actions, suggestions: chips });
  }

  /** Undo from the reply: one undo reverts the whole command; the reply goes. */
  undoResult() {
    this.app.undo();
    this.reply.hidden = true;
    this.reply.dataset.state = 'faded';
  }

  /** An `error` from the server that may answer an AI-family request. */
  onError(msg) {
    if (msg.code !== 'not_implemented') return false;
    const a = this.awaiting.shift();
    if (a && a.kind === 'set_mode') {
      this.mode = this.confirmedMode;
      this.renderMode();
    }
    if (a && a.kind === 'ai') this.jobs.delete(a.id);
    if (!a) this.jobs.clear();
    this.renderSpinner();
    const text = `AI unavailable: ${msg.message || 'not implemented on this server'}`;
    this.addMessage('ai', text, { outcome: 'error' });
    this.showReply(text, 'error');
    this.lastError = msg;
    return true;
  }

  onQuestion(msg) {
    const questions = Array.isArray(msg.questions) ? msg.questions : [];
    if (!msg.question_id || !questions.length) return;
    this.question = msg;
    const bar = this.questionBar;
    bar.textContent = '';
    bar.dataset.questionId = msg.question_id;
    const answers = {};
    const readers = [];
    const form = el('form', { class: 'question-form', novalidate: true });
    const onlyButtons = questions.every((q) => Array.isArray(q.buttons) && q.buttons.length);
    for (const q of questions) {
      const block = el('div', { class: 'question', 'data-name': q.name, 'data-testid': 'question' });
      if (Array.isArray(q.buttons) && q.buttons.length) {
        block.append(el('p', { class: 'question-text' }, q.question || q.name));
        const row = el('div', { class: 'question-buttons', role: 'group', 'aria-label': q.question || q.name });
        q.buttons.forEach((b, i) => {
          const label = typeof b === 'string' ? b : b && (b.label ?? String(b.value));
          const value = typeof b === 'string' ? b : b && (b.value !== undefined ? b.value : b.label);
          const variant = (b && b.variant) || (i === 0 ? 'primary' : 'secondary');
          const btn = el(
            'button',
            {
              type: 'button',
              class: `qbtn ${variant}`,
              'data-testid': 'question-button',
              'aria-pressed': 'false',
            },
            label,
          );
          btn.addEventListener('click', () => {
            answers[q.name] = value;
            for (const other of row.querySelectorAll('button')) other.setAttribute('aria-pressed', String(other === btn));
            if (questions.length === 1 || questions.every((x) => x.name in answers || !x.buttons)) {
              if (onlyButtons) this.submitAnswer(msg.question_id, answers, readers);
            }
          });
          row.append(btn);
        });
        block.append(row);
        readers.push([q.name, () => {
          if (!(q.name in answers)) throw new ValidationError(`Answer “${q.question || q.name}”`, row.querySelector('button'));
          return answers[q.name];
        }]);
      } else {
        // The question is the label (or legend) of its control.
        const f = field(q.schema, q.question || q.name);
        f.node.classList.add('q-top');
        block.append(f.node);
        readers.push([q.name, f.read]);
      }
      form.append(block);
    }
    if (!onlyButtons) {
      form.append(
        el(
          'div',
          { class: 'question-actions' },
          el('button', { type: 'submit', class: 'qbtn primary', 'data-testid': 'question-submit' }, 'Submit'),
          el('span', { class: 'question-error', 'data-testid': 'question-error', role: 'alert' }),
        ),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        this.submitAnswer(msg.question_id, answers, readers);
      });
    }
    bar.append(form);
    bar.hidden = false;
    if (this.panel.hidden) this.togglePanel(true);
    const first = bar.querySelector('button, input, select, textarea');
    if (first && document.activeElement !== this.barInput) first.focus({ preventScroll: true });
  }

  submitAnswer(questionId, answers, readers) {
    if (this.app.readOnly) return;
    const out = {};
    const errorBox = this.questionBar.querySelector('.question-error');
    try {
      for (const [name, read] of readers) out[name] = read();
    } catch (e) {
      if (e instanceof ValidationError) {
        if (errorBox) errorBox.textContent = e.message;
        if (e.control && e.control.reportValidity) e.control.reportValidity();
        if (e.control) e.control.focus();
        return;
      }
      throw e;
    }
    if (!this.app.send({ type: 'answer', question_id: questionId, answers: out })) {
      if (errorBox) errorBox.textContent = 'Not connected';
      this.app.toast('Not connected');
      return;
    }
    this.awaiting.push({ kind: 'answer', id: questionId });
    this.ghosts.clear();
    const shown = Object.values(out)
      .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
      .join(', ');
    this.addMessage('user', `[Answered: ${shown}]`);
    this.question = null;
    this.questionBar.hidden = true;
    this.questionBar.textContent = '';
  }
}

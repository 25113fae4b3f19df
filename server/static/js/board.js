// The board page: wires the document, the renderer, interactions, presence, the AI panels and
// the connection together, and speaks wire protocol v1.

import { Doc } from './model.js';
import { Connection } from './net.js';
import { Renderer } from './render.js';
import { Interaction } from './interact.js';
import { Presence } from './presence.js';
import { Ai } from './ai.js';
import { Access } from './access.js';
import { ShareDialog } from './sharing.js';
import { History } from './history.js';
import { installBoardExport } from './export.js';
import { session } from './auth.js';
import { Follower, boundsOf, cameraFor, visibleViewport } from './follow.js';
import { Following } from './following.js';
import { Comments } from './comments.js';
import { CommentsPanel } from './commentpanel.js';
import { wireShell } from './shell.js';
import { pickPictures, wirePicker } from './pictures.js';
import { el, uid, throttle, PALETTE, defaultColor, colorName, ID_RE } from './util.js';

const CURSOR_EVERY_MS = 33;
const VIEWPORT_EVERY_MS = 150;
/** Commands whose touched ids are kept, to show what an AI command changed. */
const RECENT_SEQS = 64;

const $ = (id) => document.getElementById(id);

const boardId = decodeURIComponent(location.pathname.split('/')[2] || '');
if (!ID_RE.test(boardId)) {
  document.body.textContent = 'Not a board id.';
  throw new Error('bad board id');
}

// Who this page is: the signed-in user (the session cookie authenticates the socket too), or
// the local identity when the server runs without access control.
let who;
try {
  who = await session();
} catch {
  who = null;
}

const stage = $('stage');
const doc = new Doc();
const renderer = new Renderer(stage, doc);
const me = { id: who?.user?.id ?? '', name: who?.user?.name ?? '', color: '#607d8b' };

const app = {
  boardId,
  me,
  doc,
  renderer,
  stage,
  conn: null,
  ix: null,
  ai: null,
  presence: null,
  firstWelcome: true,
  lastColor: {},
  errors: [],
  /** seq -> ids of the objects that command touched (the last few). */
  touched: new Map(),
  follow: new Follower(renderer),

  /** True when this person may only look (a viewer). */
  get readOnly() {
    return this.access.readOnly;
  },

  /** Sends a commit: shown at once, confirmed or rolled back by the server. */
  commit(ops) {
    if (!ops.length) return null;
    if (this.readOnly) {
      this.toast('View only: you cannot change this board');
      return null;
    }
    const id = uid('c-');
    const entry = doc.addPending(id, ops);
    entry.sent = this.conn.send({ type: 'commit', id, ops });
    updateStatus();
    return id;
  },

  undo() {
    if (this.readOnly) return;
    if (!this.conn.send({ type: 'undo' })) this.toast('Offline: undo works when the board is back online');
  },

  redo() {
    if (this.readOnly) return;
    if (!this.conn.send({ type: 'redo' })) this.toast('Offline: redo works when the board is back online');
  },

  send(msg) {
    return this.conn.send(msg);
  },

  setSelection(ids) {
    const next = [...new Set(ids)].filter((id) => doc.view.has(id));
    const cur = renderer.selection;
    if (next.length === cur.size && next.every((id) => cur.has(id))) return;
    renderer.setSelection(next);
    sendSelection();
    renderStyleBar();
  },

  presenceCursor(w) {
    if (w) sendCursor({ x: Math.round(w.x * 10) / 10, y: Math.round(w.y * 10) / 10 });
  },

  viewportChanged() {
    sendViewport();
  },

  layoutChanged() {
    // The stage was resized (chat panel): keep the camera (or fit the followed view again),
    // re-send the viewport.
    requestAnimationFrame(() => {
      renderer.cameraDirty = true;
      renderer.schedule();
      app.following.refit();
      sendViewport();
    });
  },

  colorFor(kind) {
    return this.lastColor[kind] || defaultColor(kind);
  },

  /** Zoom to content: every object in the visible part of the canvas (at most 200 %). */
  zoomToFit() {
    this.follow.cancel();
    const b = boundsOf(doc, doc.view.keys());
    if (b) {
      const c = cameraFor(renderer, b, 2);
      renderer.setCamera(c.x, c.y, c.k);
    } else {
      renderer.setCamera(renderer.stage.clientWidth / 2, renderer.stage.clientHeight / 2, 1);
    }
    sendViewport();
  },

  /** Ids an `ai_result` names: what it created and what its command touched. */
  resultIds(msg) {
    const ids = new Set(Array.isArray(msg.created) ? msg.created.filter((id) => typeof id === 'string') : []);
    for (const id of this.touched.get(msg.seq) || []) ids.add(id);
    return [...ids].filter((id) => doc.view.has(id));
  },

  /** A notice; `actions` ([{label, run}]) become buttons and keep it up longer. */
  toast(text, kind = 'info', actions = []) {
    const box = $('toasts');
    const t = el('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
    for (const a of actions) {
      t.append(el('button', { type: 'button', class: 'toast-action', onclick: () => a.run() }, a.label));
    }
    box.append(t);
    while (box.children.length > 3) box.firstElementChild.remove();
    const ms = actions.length ? 7000 : 3500;
    setTimeout(() => t.classList.add('fading'), ms);
    setTimeout(() => t.remove(), ms + 500);
  },
};

// ---- presence sending ----

const sendCursor = throttle((cursor) => app.conn.send({ type: 'presence', cursor }), CURSOR_EVERY_MS);
const sendViewport = throttle(() => app.conn.send({ type: 'presence', viewport: renderer.viewport() }), VIEWPORT_EVERY_MS);
function sendSelection() {
  app.conn.send({ type: 'presence', selection: [...renderer.selection] });
}

// ---- the connection ----

const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/boards/${encodeURIComponent(boardId)}`;
app.conn = new Connection({
  url: wsUrl,
  hello: () => {
    const m = { type: 'hello', user: { id: me.id, name: me.name } };
    if (!app.firstWelcome) {
      m.since = doc.seq;
      m.comments_since = app.comments.cseq;
    }
    return m;
  },
  onMessage: (msg) => onMessage(msg),
  onStatus: (state, detail, code) => {
    updateStatus();
    if (state === 'closed') onFinalClose(code);
  },
});

/** The server ended the connection for good: say why instead of a broken board. */
function onFinalClose(code) {
  if (code === 4001) app.access.block('expired');
  else if (code === 4003) app.access.block(app.everJoined ? 'revoked' : 'no-access');
  else if (code === 4004) app.access.block('deleted');
}

function onMessage(msg) {
  switch (msg.type) {
    case 'welcome':
      onWelcome(msg);
      break;
    case 'applied': {
      if (typeof msg.seq !== 'number' || !msg.command) break;
      if (msg.seq <= doc.seq) break; // already seen
      if (msg.seq > doc.seq + 1) {
        // A gap should never happen; resume from what we have.
        app.conn.restart('gap');
        break;
      }
      doc.applyServer(msg.seq, msg.command, me.id);
      rememberTouched(msg.seq, msg.command);
      updateStatus();
      break;
    }
    case 'ack':
      if (app.comments.answer(msg)) break;
      doc.settle(msg.id);
      updateStatus();
      break;
    case 'rejected': {
      if (app.comments.answer(msg)) break;
      const entry = doc.settle(msg.id);
      updateStatus();
      if (entry) app.toast(`Edit refused: ${(msg.error && msg.error.message) || 'invalid'}`, 'error');
      break;
    }
    case 'presence':
      app.presence.update(msg);
      break;
    case 'joined':
      app.presence.joined(msg.user);
      break;
    case 'left':
      app.presence.left(msg.user);
      if (msg.user) app.following.left(msg.user.id);
      break;
    case 'comments_changed':
      app.comments.applyChanges(msg);
      break;
    case 'summoned':
      app.following.summoned(msg);
      break;
    case 'presentation_changed':
      app.following.setPresenter(msg.presenter);
      break;
    case 'error':
      onServerError(msg);
      break;
    case 'pong':
      break;
    case 'role_changed':
      app.access.setRole(msg.role, { live: true });
      break;
    default:
      app.ai.handle(msg);
  }
}

function onWelcome(msg) {
  app.everJoined = true;
  const first = app.firstWelcome;
  if (typeof msg.role === 'string') app.access.setRole(msg.role, { live: !app.firstWelcome });
  app.access.setTitle(typeof msg.title === 'string' ? msg.title : '');
  if (msg.you) {
    me.color = msg.you.color || me.color;
    me.name = msg.you.name || me.name;
  }
  if (Array.isArray(msg.objects)) {
    doc.reset(msg.objects, msg.seq);
  } else if (app.firstWelcome) {
    doc.seq = msg.seq;
  }
  app.presence.reset(msg.users);
  if (msg.mode) app.ai.setMode(msg.mode);
  // A viewer's page keeps no edits to re-send (the server would refuse them).
  if (app.readOnly) for (const p of [...doc.pending]) doc.settle(p.id);
  if (app.firstWelcome) {
    app.firstWelcome = false;
    // The camera first: pictures are fetched for what the first drawing shows.
    app.zoomToFit();
    renderer.flush();
  }
  // Commits not confirmed yet go again, with the same ids: the server applies each once.
  for (const p of doc.pending) {
    p.sent = app.conn.send({ type: 'commit', id: p.id, ops: p.ops });
  }
  sendSelection();
  sendViewport();
  app.following.resend();
  app.comments.welcome(msg, first);
  // A notification from another board opens its thread here (`#thread=ID`).
  const hashThread = /^#thread=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (first && hashThread) app.comments.jumpTo(hashThread[1]);
  app.following.setPresenter(typeof msg.presenter === 'string' ? msg.presenter : null);
  updateStatus();
}

function onServerError(msg) {
  app.errors.push(msg);
  // Access errors come with a close (shown on the page) or answer what a viewer may not do.
  if (msg.code === 'unauthorized' || msg.code === 'forbidden') return;
  if (app.ai.onError(msg)) return;
  if (msg.code === 'nothing_to_undo') app.toast('Nothing to undo');
  else if (msg.code === 'nothing_to_redo') app.toast('Nothing to redo');
  else app.toast(msg.message || msg.code, 'error');
}

function rememberTouched(seq, command) {
  const ids = (command.ops || []).map((op) => op.id || (op.object && op.object.id)).filter(Boolean);
  app.touched.set(seq, ids);
  for (const k of app.touched.keys()) {
    if (app.touched.size <= RECENT_SEQS) break;
    app.touched.delete(k);
  }
}

// ---- status ----

function updateStatus() {
  const box = $('conn-status');
  const state = app.conn.state;
  const pending = doc.pending.length;
  box.dataset.state = state;
  box.dataset.pending = String(pending);
  const text = {
    connecting: 'Connecting…',
    online: 'Online',
    reconnecting: 'Reconnecting…',
    offline: 'Offline, retrying…',
    closed: 'Disconnected',
  }[state];
  box.querySelector('.label').textContent = pending && state === 'online' ? `Saving ${pending}…` : text;
  box.title = pending ? `${pending} edit(s) waiting for the server` : text;
  $('retry').hidden = !(state === 'offline');
}

// ---- toolbar, style bar, zoom ----

function wireToolbar() {
  for (const b of document.querySelectorAll('[data-tool]')) {
    b.addEventListener('click', (e) => {
      const tool = b.dataset.tool;
      // A keyboard activation creates the object at once, in the middle of the view.
      if (e.detail === 0 && tool === 'comment') {
        app.comments.place({ x: stage.clientWidth / 2, y: stage.clientHeight / 2 }, null);
        return;
      }
      if (e.detail === 0 && ['note', 'shape', 'text', 'frame'].includes(tool)) {
        app.ix.createAtCenter(tool);
        return;
      }
      // A tool stays armed when clicked again (after picking a shape outline, say); Esc disarms.
      app.ix.setTool(tool);
    });
  }
  const geo = $('geo-select');
  geo.addEventListener('change', () => app.ix.setTool('shape', geo.value));
  app.ix.onToolChange((tool, g) => {
    for (const b of document.querySelectorAll('[data-tool]')) {
      b.setAttribute('aria-pressed', String(b.dataset.tool === tool));
    }
    geo.value = g;
  });
  $('btn-image').addEventListener('click', () => pickPictures(app));
  wirePicker(app);
  $('btn-undo').addEventListener('click', () => app.undo());
  $('btn-redo').addEventListener('click', () => app.redo());
  $('btn-duplicate').addEventListener('click', () => app.ix.duplicateSelection());
  $('btn-delete').addEventListener('click', () => app.ix.deleteSelection());
  $('zoom-in').addEventListener('click', () => {
    renderer.zoomCenter(1.25);
    sendViewport();
  });
  $('zoom-out').addEventListener('click', () => {
    renderer.zoomCenter(0.8);
    sendViewport();
  });
  $('zoom-fit').addEventListener('click', () => app.zoomToFit());
  $('zoom-reset').addEventListener('click', () => {
    renderer.zoomCenter(1 / renderer.camera.k);
    sendViewport();
  });
  renderer.onCamera((cam) => {
    $('zoom-reset').textContent = `${Math.round(cam.k * 100)}%`;
  });
  $('retry').addEventListener('click', () => app.conn.retryNow());

  const swatches = $('swatches');
  for (const [name, hex] of PALETTE) {
    swatches.append(
      el('button', {
        type: 'button',
        class: 'swatch',
        style: `--swatch: ${hex}`,
        'data-color': hex,
        'aria-label': `Color ${name}`,
        title: name,
        onclick: () => {
          for (const id of renderer.selection) {
            const o = doc.get(id);
            if (o) app.lastColor[o.kind] = hex;
          }
          app.ix.setColor(hex);
          renderStyleBar();
        },
      }),
    );
  }
}

function renderStyleBar() {
  const bar = $('style-bar');
  const sel = [...renderer.selection].map((id) => doc.get(id)).filter(Boolean);
  bar.hidden = sel.length === 0;
  if (!sel.length) return;
  const colors = new Set(sel.map((o) => o.color));
  for (const b of bar.querySelectorAll('.swatch')) {
    b.setAttribute('aria-pressed', String(colors.size === 1 && colors.has(b.dataset.color)));
  }
  $('selection-count').textContent =
    sel.length === 1 ? `${sel[0].kind} · ${colorName(sel[0].color)}` : `${sel.length} selected`;
}

// ---- the people menu: following, bringing everyone along, presenting ----

function wirePeopleMenu() {
  const f = app.following;
  const open = $('people-open');
  const actions = $('people-actions');
  const show = (on) => {
    actions.hidden = !on;
    open.setAttribute('aria-expanded', String(on));
  };
  open.addEventListener('click', () => show(actions.hidden));
  document.addEventListener('pointerdown', (e) => {
    if (!actions.hidden && !e.target.closest('.people-menu')) show(false);
  });
  $('summon').addEventListener('click', () => {
    show(false);
    f.summon();
  });
  $('present').addEventListener('click', () => {
    show(false);
    f.togglePresent();
  });
  $('follow-stop').addEventListener('click', () => f.stop());
  f.onChange(() => {
    const n = f.followers();
    $('follower-count').hidden = n === 0;
    $('follower-count').textContent = `${n} following`;
    const presenting = f.presenter === me.id;
    $('present').textContent = presenting ? 'Stop presenting' : 'Present';
    $('present').setAttribute('aria-pressed', String(presenting));
    $('present').disabled = !!f.presenter && !presenting && !app.access.isOwner;
    $('follow-status').hidden = !f.leader;
    if (f.leader) $('follow-status').querySelector('.follow-label').textContent = `Following ${f.nameOf(f.leader)}`;
    document.body.classList.toggle('following', !!f.leader);
    app.presence.renderList();
  });
}

// ---- start ----

app.ix = new Interaction(app);
app.presence = new Presence(app, $('cursors'), $('user-list'));
app.following = new Following(app);
wirePeopleMenu();
app.ai = new Ai(app);
app.access = new Access(app, who?.auth ?? 'on');
app.share = new ShareDialog(app);
app.comments = new Comments(app);
app.commentsPanel = new CommentsPanel(app);
app.history = new History(app);
installBoardExport(app);
app.access.onRole(() => {
  if (!app.readOnly) return;
  // Turning read-only in place: drop what was being made or edited, close the AI.
  app.ix.setTool('select');
  app.ix.editor.cancel();
  if (app.ai.isBarOpen()) app.ai.closeBar();
  if (!app.ai.panel.hidden) app.ai.togglePanel(false);
  renderStyleBar();
});
wireToolbar();
wireShell();
app.ix.setTool('select');

doc.onChange((ids) => {
  // Keep the selection to objects that still exist.
  let drop = false;
  for (const id of renderer.selection) if (!doc.view.has(id)) drop = true;
  if (drop) app.setSelection([...renderer.selection].filter((id) => doc.view.has(id)));
  else if ([...ids].some((id) => renderer.selection.has(id))) renderStyleBar();
  $('object-count').textContent = `${doc.view.size} object${doc.view.size === 1 ? '' : 's'}`;
});
renderer.onCamera(() => sendViewport());
window.addEventListener('resize', () => app.layoutChanged());
window.addEventListener('pagehide', () => app.conn.stop());
app.presence.renderList();
updateStatus();
if (!who) {
  app.access.block('unreachable');
} else if (!who.user) {
  app.access.block('signed-out');
} else {
  app.conn.start();
}

/**
 * A read-mostly handle for debugging and the browser tests: state to assert on, and a way to feed
 * a server message to the client as if it came over the socket.
 */
window.__wb = {
  app,
  get seq() {
    return doc.seq;
  },
  get pending() {
    return doc.pending.length;
  },
  get status() {
    return app.conn.state;
  },
  objects: () => [...doc.view.values()],
  sent: () => app.conn.sentLog.slice(),
  receive: (msg) => onMessage(msg),
  flush: () => renderer.flush(),
  camera: () => ({ ...renderer.camera }),
  visibleViewport: () => visibleViewport(renderer),
  setCamera: (x, y, k) => renderer.setCamera(x, y, k),
  /** This page's presence viewport (the whole stage, in board coordinates). */
  viewport: () => renderer.viewport(),
  following: () => app.following.leader,
  threads: () => [...app.comments.threads.values()],
};

// Following a collaborator (docs/CLIENT.md, FOLLOW-n): clicking someone's avatar makes this
// view track theirs (their view fitted, centred, inside the visible part of ours); any pan, zoom
// or Escape of our own stops it. Chains resolve to the last leader (A follows B follows C: A
// sees C's view); a cycle stops. The leader sees "N following". "Bring everyone to me" (summon)
// and "Present" bring the others along, each with a "Stop following" toast.

import { visibleRect } from './follow.js';
import { MIN_ZOOM, MAX_ZOOM } from './render.js';
import { clamp } from './util.js';

const MARGIN = 8;

export class Following {
  constructor(app) {
    this.app = app;
    this.r = app.renderer;
    /** The user id this page follows (as sent in presence), or null. */
    this.leader = null;
    /** The board's presenter (from welcome / presentation_changed), or null. */
    this.presenter = null;
    /** The camera this module last set: any other camera is the person's own move. */
    this.expected = null;
    this.listeners = new Set();
    this.r.onCamera((cam) => this.onCamera(cam));
    window.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.leader && !e.defaultPrevented) this.stop();
    });
  }

  onChange(fn) {
    this.listeners.add(fn);
  }

  changed() {
    for (const fn of this.listeners) fn();
  }

  /** Starts following `userId` (a person on the board, not oneself). */
  start(userId, { toast = null } = {}) {
    if (!userId || userId === this.app.me.id) return;
    this.leader = userId;
    this.app.send({ type: 'presence', following: userId });
    if (toast) this.app.toast(toast, 'info', [{ label: 'Stop following', run: () => this.stop() }]);
    this.refit();
    this.changed();
  }

  /** Stops following (sends `following: null`). */
  stop(reason = null) {
    if (!this.leader) return;
    this.leader = null;
    this.expected = null;
    this.app.send({ type: 'presence', following: null });
    if (reason) this.app.toast(reason);
    this.changed();
  }

  /** After a reconnect: the server forgot what this connection followed. */
  resend() {
    if (this.leader) this.app.send({ type: 'presence', following: this.leader });
  }

  /**
   * The user whose view this page shows: the leader, or whom they follow, and so on. Null when
   * the chain comes back to us or loops (a cycle), or the leader is gone.
   */
  target() {
    const users = this.app.presence.users;
    let id = this.leader;
    const seen = new Set([this.app.me.id]);
    while (id) {
      if (seen.has(id)) return null;
      seen.add(id);
      const u = users.get(id);
      if (!u) return null;
      if (u.following === this.app.me.id) return null;
      if (!u.following || !users.has(u.following)) return u;
      id = u.following;
    }
    return null;
  }

  /** Moves the view to the target's viewport (called on their presence and on resizes). */
  refit() {
    if (!this.leader) return;
    const users = this.app.presence.users;
    if (!users.has(this.leader)) {
      this.stop('Stopped following: they left the board');
      return;
    }
    const t = this.target();
    if (!t) {
      this.stop('Stopped following: you follow each other in a circle');
      return;
    }
    const vp = t.viewport;
    if (!vp || !(vp.w > 0) || !(vp.h > 0)) return;
    this.showRect(vp);
  }

  /** Sets the camera so the world rectangle `b` sits centred inside the visible part. */
  showRect(b) {
    const v = visibleRect(this.r.stage);
    const fit = Math.min((v.w - 2 * MARGIN) / b.w, (v.h - 2 * MARGIN) / b.h);
    const k = clamp(fit, MIN_ZOOM, MAX_ZOOM);
    const x = v.x + v.w / 2 - (b.x + b.w / 2) * k;
    const y = v.y + v.h / 2 - (b.y + b.h / 2) * k;
    this.app.follow.cancel();
    this.r.setCamera(x, y, k);
    this.expected = { ...this.r.camera };
  }

  onCamera(cam) {
    if (!this.leader || !this.expected) return;
    const e = this.expected;
    if (cam.x === e.x && cam.y === e.y && cam.k === e.k) return;
    // The person panned or zoomed: their move wins.
    this.stop();
  }

  /** Someone's presence changed: follow their view if we show it; say who follows us. */
  presenceChanged() {
    if (this.leader) this.refit();
    const n = this.followers();
    if (n !== this.shownFollowers) {
      this.shownFollowers = n;
      this.changed();
    }
  }

  /** How many people follow this page's user. */
  followers() {
    let n = 0;
    for (const u of this.app.presence.users.values()) if (u.following === this.app.me.id) n++;
    return n;
  }

  nameOf(id) {
    const u = this.app.presence.users.get(id);
    return (u && (u.user.name || u.user.id)) || id;
  }

  /** "Bring everyone to me": our viewport first (the server sends it along), then `summon`. */
  summon() {
    this.app.send({ type: 'presence', viewport: this.r.viewport() });
    if (this.app.send({ type: 'summon' })) this.app.toast('Bringing everyone to your view');
  }

  /** `summoned {by, viewport}`: go there and follow the summoner. */
  summoned(msg) {
    if (!msg.by || msg.by === this.app.me.id) return;
    if (msg.viewport && msg.viewport.w > 0 && msg.viewport.h > 0) this.showRect(msg.viewport);
    this.start(msg.by, { toast: `${this.nameOf(msg.by)} brought you to their view` });
  }

  togglePresent() {
    this.app.send({ type: 'present', on: this.presenter !== this.app.me.id });
  }

  /** The presenter from `welcome` or `presentation_changed` (null: the presentation ended). */
  setPresenter(id) {
    const before = this.presenter;
    this.presenter = id || null;
    if (this.presenter && this.presenter !== this.app.me.id && this.presenter !== before) {
      this.start(this.presenter, { toast: `${this.nameOf(this.presenter)} is presenting` });
    } else if (!this.presenter && before && this.leader === before) {
      this.stop('The presentation ended');
    }
    this.changed();
  }

  /** Someone left the board for good. */
  left(id) {
    if (this.leader === id) this.stop('Stopped following: they left the board');
    else if (this.leader) this.refit();
    this.changed();
  }
}

// The WebSocket to the board: hello (with `since` on resume), automatic reconnect with jittered
// exponential backoff, a liveness ping, and an outgoing log for tests.

const BASE_DELAY_MS = 400;
const MAX_DELAY_MS = 8000;
const PING_EVERY_MS = 10000;
const SILENCE_LIMIT_MS = 25000;

/**
 * Close codes after which reconnecting would not help: 4001 no valid credential (sign in
 * again), 4003 no access to this board (or access revoked), 4004 board deleted.
 */
const FINAL_CLOSE = new Set([4001, 4003, 4004]);

export class Connection {
  /**
   * @param {object} o
   * @param {string} o.url ws:// URL of the board
   * @param {() => object} o.hello builds the hello message (called on every connect)
   * @param {(msg: object) => void} o.onMessage
   * @param {(state: string, detail?: string, code?: number) => void} o.onStatus
   *   connecting | online | reconnecting | offline | closed (with the close code when final)
   */
  constructor({ url, hello, onMessage, onStatus }) {
    this.url = url;
    this.hello = hello;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.joined = false;
    this.stopped = false;
    this.state = 'connecting';
    /** Messages sent, newest last (bounded): for tests and debugging. */
    this.sentLog = [];
  }

  start() {
    this.stopped = false;
    this.open();
  }

  /** Stops for good (page leaving). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000, 'bye');
  }

  /** Drops the socket and reconnects (used when the client detects a gap). */
  restart(reason) {
    if (this.ws) {
      try {
        this.ws.close(4000, reason.slice(0, 100));
      } catch {
        // Already closing.
      }
    }
  }

  setStatus(state, detail, code) {
    this.state = state;
    this.closeCode = code;
    this.onStatus(state, detail, code);
  }

  open() {
    clearTimeout(this.timer);
    this.joined = false;
    this.setStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (e) {
      this.scheduleReconnect(String(e));
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => {
      if (this.ws !== ws) return;
      this.lastHeard = performance.now();
      this.rawSend(this.hello());
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.keepAlive(ws), PING_EVERY_MS);
    });
    ws.addEventListener('message', (ev) => {
      if (this.ws !== ws) return;
      this.lastHeard = performance.now();
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (!msg || typeof msg !== 'object') return;
      if (msg.type === 'welcome') {
        this.joined = true;
        this.attempt = 0;
        this.setStatus('online');
      }
      this.onMessage(msg);
    });
    ws.addEventListener('close', (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.joined = false;
      clearInterval(this.pingTimer);
      if (this.stopped) {
        this.setStatus('closed');
        return;
      }
      if (FINAL_CLOSE.has(ev.code)) {
        this.stopped = true;
        this.setStatus('closed', ev.reason || 'closed by the server', ev.code);
        return;
      }
      this.scheduleReconnect(ev.reason);
    });
    // Errors are followed by `close`; nothing to do here (and nothing to log: a refused
    // connection while the server restarts is expected).
    ws.addEventListener('error', () => {});
  }

  keepAlive(ws) {
    if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) return;
    if (performance.now() - this.lastHeard > SILENCE_LIMIT_MS) {
      // A half-open socket: nothing heard for too long.
      ws.close(4000, 'silent');
      return;
    }
    this.rawSend({ type: 'ping', t: Date.now() });
  }

  scheduleReconnect(detail) {
    if (this.stopped) return;
    const exp = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.attempt);
    // Jitter: anywhere between half and all of the exponential delay.
    const delay = exp / 2 + Math.random() * (exp / 2);
    this.attempt += 1;
    this.setStatus('offline', detail);
    this.nextRetryAt = Date.now() + delay;
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** Reconnects now instead of waiting for the backoff timer. */
  retryNow() {
    if (this.ws || this.stopped) return;
    clearTimeout(this.timer);
    this.open();
  }

  /** True when messages can be sent (socket open and welcome received). */
  get ready() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && this.joined;
  }

  /** Sends a message if joined; returns whether it went out. */
  send(msg) {
    if (!this.ready) return false;
    return this.rawSend(msg);
  }

  rawSend(msg) {
    try {
      this.ws.send(JSON.stringify(msg));
    } catch {
      return false;
    }
    if (msg.type !== 'ping' && msg.type !== 'presence') {
      this.sentLog.push(msg);
      if (this.sentLog.length > 500) this.sentLog.splice(0, 100);
    }
    return true;
  }
}

// Test harness: the real server binary on a free port with its own data dir, Debian's Chromium
// through playwright-core, and helpers to open boards and wait for state.
//
// The server runs with access control on, as deployed. Each server gets an admin token; the
// harness uses it the way an operator's tooling would (`POST /api/login-links`, board links),
// while every browser context signs in through a sign-in link page like a person does.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { before, after } from 'node:test';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..');
export const ARTIFACTS = path.resolve(here, '..', 'artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export function serverBinary() {
  if (process.env.SERVER_BIN) return process.env.SERVER_BIN;
  const target = process.env.CARGO_TARGET_DIR
    ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR)
    : path.join(ROOT, 'target');
  const release = path.join(target, 'release', 'server');
  return existsSync(release) ? release : path.join(target, 'debug', 'server');
}

/**
 * What the harness knows per data dir (kept across restarts on the same dir): the admin token,
 * the boards made for test names, and the edit/view links of each board.
 */
const known = new Map();
function stateFor(dataDir) {
  let st = known.get(dataDir);
  if (!st) {
    st = { admin: randomBytes(24).toString('hex'), boards: new Map(), links: new Map() };
    known.set(dataDir, st);
  }
  return st;
}

export function chromiumPath() {
  return process.env.CHROMIUM || '/usr/bin/chromium';
}

/** A TCP port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * The server binary on 127.0.0.1:port with `dataDir`; resolves once it prints
 * `listening on ADDR`. `args` are extra command-line arguments (e.g. `['--auth', 'off']`).
 */
export async function startServer({ port, dataDir, env = {}, args = [] } = {}) {
  port = port ?? (await freePort());
  dataDir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'board-bt-'));
  const st = stateFor(dataDir);
  env = { BOARD_ADMIN_TOKEN: st.admin, ...env };
  const bin = serverBinary();
  if (!existsSync(bin)) throw new Error(`server binary not found at ${bin}: build it first (cargo build --release -p server)`);
  // Binding right after a previous process on the same port died can briefly fail: retry.
  for (let attempt = 0; ; attempt++) {
    try {
      return await spawnOnce(bin, port, dataDir, env, args);
    } catch (e) {
      if (attempt >= 20) throw e;
      await sleep(250);
    }
  }
}

function spawnOnce(bin, port, dataDir, env, args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ['--listen', `127.0.0.1:${port}`, '--data-dir', dataDir, ...args], {
      // Every browser context signs in and opens a share link from 127.0.0.1: the per-address
      // limit on those (30 a minute by default) is raised so a test file is not throttled.
      env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn', BOARD_SIGN_IN_RATE_PER_MIN: '6000', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start in 20 s\n${out}\n${err}`));
    }, 20000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m && timer) {
        clearTimeout(timer);
        const url = `http://${m[1]}`;
        const admin = env.BOARD_ADMIN_TOKEN;
        resolve({
          proc,
          port,
          dataDir,
          addr: m[1],
          url,
          admin,
          logs: () => err,
          stdout: () => out,
          /** The `sign in: URL` line the server printed on its first start (else null). */
          signInLink: () => (/sign in: (\S+)/.exec(out) || [])[1] ?? null,
          /** A JSON API call with the admin token: {status, body}. */
          api: (method, p, body) => adminApi(url, admin, method, p, body),
          stop: (signal = 'SIGTERM') => stopProc(proc, signal),
        });
      }
    });
    proc.stderr.on('data', (d) => {
      err += d;
      if (err.length > 200000) err = err.slice(-100000);
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening\n${err}`));
    });
  });
}

async function adminApi(url, token, method, p, body) {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

/** Like `server.api`, but throws unless the status is 2xx; returns the body. */
export async function adminOk(server, method, p, body) {
  const r = await server.api(method, p, body);
  if (r.status < 200 || r.status > 299) throw new Error(`${method} ${p} -> ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * The real id of the board a test calls `name`: an existing board id (32 hex) as is; otherwise a
 * board created once with the admin token (owned by the server's owner), titled `name`.
 */
export async function boardId(server, name) {
  if (/^[0-9a-f]{32}$/.test(name)) return name;
  const st = stateFor(server.dataDir);
  if (!st.boards.has(name)) {
    const made = await adminOk(server, 'POST', '/api/boards', { title: name, objects: [] });
    st.boards.set(name, made.board);
  }
  return st.boards.get(name);
}

/** A share link (`/s/TOKEN`) of `board` with `role`, made once by the admin. */
export async function shareLink(server, board, role = 'editor') {
  const st = stateFor(server.dataDir);
  const key = `${board}:${role}`;
  if (!st.links.has(key)) {
    const link = await adminOk(server, 'POST', `/api/boards/${board}/links`, { role });
    st.links.set(key, link.url);
  }
  return st.links.get(key);
}

/**
 * Signs `page`'s browser context in through a sign-in link page (`/login#CODE`): as the member
 * called `name` (created if new), or as the server's owner without a name. Resolves the user
 * `{id, name, kind}` from `/api/me`.
 */
export async function signIn(page, server, name) {
  const made = await adminOk(server, 'POST', '/api/login-links', name ? { name } : {});
  return signInWith(page, server, made.url);
}

/** Opens a sign-in link (`/login#CODE`, relative or full) in `page` and waits for the list. */
export async function signInWith(page, server, link) {
  const url = new URL(link, server.url).href;
  await page.goto(url);
  // The page says whom the link signs in as and waits for a click (AUTH-22).
  await page.click('[data-testid="login-confirm"]', { timeout: 15000 });
  await page.waitForURL((u) => u.pathname === '/', { timeout: 15000 });
  return page.evaluate(async () => (await (await fetch('/api/me')).json()).user);
}

/**
 * Gives the signed-in context of `page` a role on `board` the way a person gets one: by
 * opening a share link (here through the API the `/s/` page calls, from the page's origin).
 */
export async function joinBoard(page, server, board, role = 'editor', name = 'Guest') {
  const link = await shareLink(server, board, role);
  const token = link.split('/').pop();
  const r = await page.evaluate(
    async ({ token, name }) => {
      const res = await fetch(`/api/links/${token}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      return { status: res.status, body: await res.json() };
    },
    { token, name },
  );
  if (r.status !== 200) throw new Error(`joining ${board} as ${role}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

function stopProc(proc, signal) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      resolve();
      return;
    }
    const t = setTimeout(() => proc.kill('SIGKILL'), 10000);
    proc.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    proc.kill(signal);
  });
}

export function removeDir(dir) {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // Best effort.
  }
}

export function launchBrowser() {
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'];
  // Pages answered by a test route count as public to Chromium, which then blocks their
  // WebSocket to 127.0.0.1: allow it in the development mode that serves files from disk.
  if (process.env.STATIC_FROM_DISK === '1') args.push('--disable-features=LocalNetworkAccessChecks');
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args });
}

const STATIC_DIR = path.join(ROOT, 'server', 'static');
const TYPES = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.svg': 'image/svg+xml' };

/**
 * A fresh browser context at 1280x800. With STATIC_FROM_DISK=1 the client's files come from
 * server/static on disk instead of the binary (edit, re-run, no rebuild: for development only).
 */
export async function newContext(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (process.env.STATIC_FROM_DISK === '1') {
    await context.route(/^http:\/\/[^/]+\/(static\/.*|[bs]\/[^/?]+(\?.*)?|login|(\?.*)?)$/, (route) => {
      const url = new URL(route.request().url());
      let file;
      if (url.pathname.startsWith('/static/')) file = url.pathname.slice('/static/'.length);
      else if (url.pathname.startsWith('/b/')) file = 'board.html';
      else if (url.pathname.startsWith('/s/')) file = 'share.html';
      else if (url.pathname === '/login') file = 'login.html';
      else file = 'index.html';
      const full = path.join(STATIC_DIR, file);
      if (!full.startsWith(STATIC_DIR) || !existsSync(full)) return route.continue();
      return route.fulfill({
        status: 200,
        contentType: TYPES[path.extname(full)] || 'application/octet-stream',
        body: readFileSync(full),
      });
    });
  }
  return context;
}

/**
 * A fresh browser context signed in as its own member (`name`, else `user`) with `role` on the
 * board a test calls `board` (see `boardId`), not navigated yet: `page.userId`, `page.user` and
 * `page.boardId` say who and where. Collects console errors and page errors into `page.problems`.
 */
export async function preparePage(browser, server, board, { user, name, role = 'editor' } = {}) {
  const context = await newContext(browser);
  const page = await context.newPage();
  trackProblems(page);
  const id = await boardId(server, board);
  const who = name || user || 'Someone';
  page.user = await signIn(page, server, who);
  page.userId = page.user.id;
  page.boardId = id;
  await joinBoard(page, server, id, role, who);
  return page;
}

/**
 * `preparePage`, then `/b/{board}`, waiting until the board is online.
 */
export async function openBoard(browser, server, board, { user, name, role = 'editor', wait = true } = {}) {
  const page = await preparePage(browser, server, board, { user, name, role });
  await page.goto(`${server.url}/b/${page.boardId}`);
  if (wait) await waitOnline(page);
  return page;
}

/** Records console errors, uncaught exceptions and failed requests on `page.problems`. */
export function trackProblems(page) {
  page.problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') page.problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? '';
    // A request the browser itself cancels because the page navigated or reloaded
    // (typically the favicon fetch racing `goto`/`reload`) is not a server failure;
    // a server failure shows as a reset, an empty response or a refused connection.
    if (why === 'net::ERR_ABORTED') return;
    page.problems.push(`requestfailed: ${r.url()} ${why}`);
  });
  page.on('response', (r) => {
    // Server errors anywhere, and missing files the pages themselves reference.
    if (r.status() >= 500 || (r.status() >= 400 && new URL(r.url()).pathname.startsWith('/static/'))) {
      page.problems.push(`response ${r.status()}: ${r.url()}`);
    }
  });
  return page;
}

export async function waitOnline(page, timeout = 15000) {
  await page.waitForSelector('[data-testid="conn-status"][data-state="online"]', { timeout });
}

/** Waits until `fn` (run in the page) returns a truthy value; returns it. */
export async function until(page, fn, arg, timeout = 10000) {
  const h = await page.waitForFunction(fn, arg, { timeout, polling: 50 });
  return h.jsonValue();
}

/** Objects the page shows (from its document view). */
export function objects(page) {
  return page.evaluate(() => window.__wb.objects());
}

export async function screenshot(page, name) {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Center of an object's element on screen. */
export async function centerOf(page, id) {
  const box = await page.locator(`[data-id="${id}"]`).boundingBox();
  if (!box) throw new Error(`object ${id} not on screen`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Sends `ai` through the command bar (Ctrl+K, type, Enter). */
export async function commandBar(page, text) {
  await page.keyboard.press('Control+k');
  await page.waitForSelector('[data-testid="command-input"]:focus');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/**
 * Resolves 'not_implemented' if the server refuses AI messages (its AI side is not there yet), or
 * 'ready' once `ready(arg)` (run in the page) holds.
 */
export async function aiOutcome(page, ready, arg, timeout = 20000) {
  const refused = page
    .waitForFunction(() => (window.__wb.app.errors || []).some((e) => e.code === 'not_implemented'), null, {
      timeout,
      polling: 100,
    })
    .then(() => 'not_implemented');
  const done = page.waitForFunction(ready, arg, { timeout, polling: 100 }).then(() => 'ready');
  const first = await Promise.race([refused, done]);
  // The loser times out later on its own; keep it from surfacing as an unhandled rejection.
  refused.catch(() => {});
  done.catch(() => {});
  return first;
}

/**
 * Starts one server and one browser for a test file (before its tests) and tears both down
 * after; `set(server, browser)` hands them to the file. A test that restarts the server keeps
 * the file's variable current itself.
 */
export function useServerAndBrowser(set, current) {
  let server;
  let browser;
  const now = current ?? (() => server);
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    set(server, browser);
  });
  after(async () => {
    await browser?.close();
    const s = now();
    await s?.stop();
    if (s) removeDir(s.dataDir);
  });
}

/** Commits notes through the page (setup, not the gesture under test); resolves their ids. */
export async function addNotes(page, specs) {
  const ids = await page.evaluate((list) => {
    const ops = list.map((o, i) => ({ op: 'create', object: { id: `n${i}-${Math.random().toString(36).slice(2, 8)}`, kind: 'note', w: 120, h: 100, ...o } }));
    window.__wb.app.commit(ops);
    return ops.map((op) => op.object.id);
  }, specs);
  await until(page, () => window.__wb.pending === 0);
  await page.evaluate(() => window.__wb.flush());
  return ids;
}

/** Board point → page point. */
export function toScreen(page, x, y) {
  return page.evaluate(
    ([x, y]) => {
      const c = window.__wb.camera();
      const r = document.getElementById('stage').getBoundingClientRect();
      return { x: r.left + c.x + x * c.k, y: r.top + c.y + y * c.k };
    },
    [x, y],
  );
}

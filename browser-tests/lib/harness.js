// Test harness: the real server binary on a free port with its own data dir, Debian's Chromium
// through playwright-core, and helpers to open boards and wait for state.

import { spawn } from 'node:child_process';
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
  return path.join(target, 'release', 'server');
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
 * `listening on ADDR`.
 */
export async function startServer({ port, dataDir, env = {} } = {}) {
  port = port ?? (await freePort());
  dataDir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'board-bt-'));
  const bin = serverBinary();
  if (!existsSync(bin)) throw new Error(`server binary not found at ${bin}: build it first (cargo build --release -p server)`);
  // Binding right after a previous process on the same port died can briefly fail: retry.
  for (let attempt = 0; ; attempt++) {
    try {
      return await spawnOnce(bin, port, dataDir, env);
    } catch (e) {
      if (attempt >= 20) throw e;
      await sleep(250);
    }
  }
}

function spawnOnce(bin, port, dataDir, env) {
  return new Promise((resolve, reject) => {
    const proc = spawn(bin, ['--listen', `127.0.0.1:${port}`, '--data-dir', dataDir], {
      env: { ...process.env, RUST_LOG: process.env.RUST_LOG || 'warn', ...env },
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
        resolve({
          proc,
          port,
          dataDir,
          addr: m[1],
          url: `http://${m[1]}`,
          logs: () => err,
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
    await context.route(/^http:\/\/[^/]+\/(static\/.*|b\/[^/?]+(\?.*)?|(\?.*)?)$/, (route) => {
      const url = new URL(route.request().url());
      let file;
      if (url.pathname.startsWith('/static/')) file = url.pathname.slice('/static/'.length);
      else if (url.pathname.startsWith('/b/')) file = 'board.html';
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
 * A fresh browser context (its own user) at 1280x800 on `/b/{board}`, waiting until the board is
 * online. Collects console errors and page errors into `page.problems`.
 */
export async function openBoard(browser, server, board, { user, name, wait = true } = {}) {
  const context = await newContext(browser);
  const page = await context.newPage();
  trackProblems(page);
  const q = new URLSearchParams();
  if (user) q.set('user', user);
  if (name) q.set('name', name);
  await page.goto(`${server.url}/b/${board}${q.size ? `?${q}` : ''}`);
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

// Pictures on the board in Chromium: a file dropped onto the board and a picture pasted from the
// clipboard (ASSET-9), the Image tool's file picker with its local preview and progress
// (ASSET-13), refused uploads (ASSET-14), resizing (ASSET-15), alt text (ASSET-16), lazy loading
// (ASSET-17), and an SVG that tries to run script or reach out, opened and drawn (ASSET-4).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  openBoard,
  preparePage,
  waitOnline,
  until,
  screenshot,
  useServerAndBrowser,
  startServer,
  removeDir,
  addNotes,
  toScreen,
} from '../lib/harness.js';
import { noisePng, solidPng } from '../lib/png.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

// A 2 x 2 PNG (red, green, blue, white).
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8DAAMIM/4EAAB/uBfsL2WiLAAAAAElFTkSuQmCC';

/** Fires a drop (or a paste) of the PNG as a file on the board, at stage point (x, y). */
async function give(page, how, x, y) {
  await page.evaluate(
    ({ b64, how, x, y }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'dots.png', { type: 'image/png' }));
      const stage = document.getElementById('stage');
      const r = stage.getBoundingClientRect();
      const at = { clientX: r.left + x, clientY: r.top + y, bubbles: true, cancelable: true };
      if (how === 'drop') {
        stage.dispatchEvent(new DragEvent('drop', { ...at, dataTransfer: dt }));
      } else {
        stage.focus();
        document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      }
    },
    { b64: PNG, how, x, y },
  );
}

const images = (page) => page.evaluate(() => window.__wb.objects().filter((o) => o.kind === 'image'));

/** The status the page gets for the picture an image object shows (once it has loaded). */
async function pictureStatus(page, id) {
  await page.locator(`[data-id="${id}"][data-picture="loaded"] image[href]`).waitFor({ state: 'attached' });
  return page.evaluate(async (id) => {
    const href = document.querySelector(`[data-id="${id}"] image`)?.getAttribute('href');
    if (!href) return 0;
    return (await fetch(href, { credentials: 'same-origin' })).status;
  }, id);
}

/** Chooses `files` ([{name, mimeType, buffer}]) in the file picker the Image tool opens. */
async function pickFiles(page, files) {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('[data-testid="tool-image"]')]);
  assert.ok(chooser.isMultiple(), 'the picker takes several files');
  await chooser.setFiles(files);
}

/** Uploads `bytes` from the page (as the client does); resolves {status, body}. */
function uploadFrom(page, bytes, type = 'image/png') {
  return page.evaluate(
    async ({ b64, type }) => {
      const body = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const board = location.pathname.split('/')[2];
      const res = await fetch(`/api/boards/${board}/assets`, { method: 'POST', headers: { 'content-type': type }, body });
      return { status: res.status, body: await res.json() };
    },
    { b64: Buffer.from(bytes).toString('base64'), type },
  );
}

/** Creates an image object through the page (setup); resolves its id once confirmed. */
async function addImage(page, sha256, box) {
  const id = await page.evaluate(
    ({ sha256, box }) => {
      const id = `img-${Math.random().toString(36).slice(2, 10)}`;
      window.__wb.app.commit([{ op: 'create', object: { id, kind: 'image', asset: sha256, ...box } }]);
      return id;
    },
    { sha256, box },
  );
  await until(page, () => window.__wb.pending === 0);
  await page.evaluate(() => window.__wb.flush());
  return id;
}

const image = (page, id) => page.evaluate((id) => window.__wb.objects().find((o) => o.id === id), id);
const toasts = (page) => page.locator('#toasts .toast').allTextContents();

/** The rectangles `a` and `b` overlap (touching is not overlapping). */
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('ASSET-9 a dropped and a pasted picture reach a second person and survive a reload', async () => {
  const board = 'pictures-one';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });

  await give(ann, 'drop', 400, 300);
  const first = await until(ann, () => window.__wb.objects().find((o) => o.kind === 'image' && window.__wb.pending === 0)?.id);
  await bob.locator(`[data-id="${first}"][data-kind="image"]`).waitFor();
  assert.equal(await pictureStatus(bob, first), 200);

  await give(ann, 'paste', 700, 300);
  await until(ann, () => window.__wb.objects().filter((o) => o.kind === 'image').length === 2 && window.__wb.pending === 0);
  await until(bob, () => window.__wb.objects().filter((o) => o.kind === 'image').length === 2);
  const [a, b] = await images(bob);
  assert.equal(a.asset, b.asset, 'the same bytes are one picture');
  assert.match(a.asset, /^[0-9a-f]{64}$/);

  await ann.reload();
  await until(ann, () => window.__wb.objects().filter((o) => o.kind === 'image').length === 2);
  await ann.locator(`[data-id="${first}"] image`).waitFor({ state: 'attached' });
  assert.equal(await pictureStatus(ann, first), 200);
  await screenshot(bob, 'pictures');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
});

test('ASSET-13 the Image tool picks files, shows them while they upload and places them in open space for a second person', async () => {
  const board = 'pictures-picker';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });
  // A note where the view's middle is: the pictures must go around it.
  const mid = await ann.evaluate(() => {
    const v = window.__wb.visibleViewport();
    return { x: v.x + v.w / 2, y: v.y + v.h / 2 };
  });
  const [note] = await addNotes(ann, [{ x: mid.x - 150, y: mid.y - 150, w: 300, h: 300, text: 'Busy here' }]);

  // Hold the uploads: meanwhile each file shows where it will land, and it is no board object yet.
  const held = [];
  await ann.route('**/api/boards/*/assets', (route) => held.push(route));
  await pickFiles(ann, [
    { name: 'wide.png', mimeType: 'image/png', buffer: noisePng(160, 80, 1) },
    { name: 'tall.png', mimeType: 'image/png', buffer: noisePng(60, 120, 2) },
  ]);
  await until(ann, () => document.querySelectorAll('[data-testid="upload-ghost"]').length === 2);
  assert.equal(await ann.locator('[data-testid="upload-ghost"] image[href^="data:image/png"]').count(), 2);
  assert.equal((await images(ann)).length, 0, 'not on the board before the server answers');
  assert.match(await ann.locator('[data-testid="upload-ghost"]').first().textContent(), /Uploading|Processing/);
  // Both requests reach the route before they are let through (no time limit: the test's own).
  while (held.length < 2) await new Promise((r) => setTimeout(r, 50));
  for (const route of held) await route.continue();
  await ann.unroute('**/api/boards/*/assets');

  await until(ann, () => window.__wb.objects().filter((o) => o.kind === 'image').length === 2 && window.__wb.pending === 0);
  assert.equal(await ann.locator('[data-testid="upload-ghost"]').count(), 0, 'the local previews are gone');
  // One command placed both, at most 400 px on their longer side with their proportions.
  const commits = (await ann.evaluate(() => window.__wb.sent()))
    .filter((m) => m.type === 'commit' && m.ops.some((op) => op.op === 'create' && op.object.kind === 'image'));
  assert.equal(commits.length, 1);
  assert.equal(commits[0].ops.length, 2);
  const placed = await images(ann);
  const byRatio = placed.sort((a, b) => b.w / b.h - a.w / a.h);
  assert.deepEqual([byRatio[0].w / byRatio[0].h, byRatio[1].w / byRatio[1].h], [2, 0.5]);
  // In open space: inside the visible view, clear of the note and of each other.
  const view = await ann.evaluate(() => window.__wb.visibleViewport());
  const busy = (await ann.evaluate(() => window.__wb.objects())).find((o) => o.id === note);
  for (const o of placed) {
    assert.ok(!overlap(o, busy), `picture ${JSON.stringify(o)} covers the note`);
    assert.ok(o.x >= view.x && o.y >= view.y && o.x + o.w <= view.x + view.w && o.y + o.h <= view.y + view.h, 'in view');
  }
  assert.ok(!overlap(placed[0], placed[1]));
  // The second person sees both, loaded from the server.
  await until(bob, () => document.querySelectorAll('[data-kind="image"][data-picture="loaded"]').length === 2);
  for (const o of placed) assert.equal(await pictureStatus(bob, o.id), 200);
  await screenshot(ann, 'pictures-picker');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

/** A 1 x 1 BMP (a type the server refuses, saying what to convert it to). */
function bmp() {
  const b = Buffer.alloc(58);
  b.write('BM', 0, 'ascii');
  b.writeUInt32LE(58, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(1, 18);
  b.writeInt32LE(1, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  b.writeUInt32LE(4, 34);
  return b;
}

/** Picks `file` with the Image tool; resolves the error toast it brings (the previews gone). */
async function refusedToast(page, file) {
  const before = (await page.locator('#toasts .toast.error').allTextContents()).length;
  await pickFiles(page, [file]);
  await until(page, (n) => document.querySelectorAll('#toasts .toast.error').length > n, before);
  assert.equal(await page.locator('[data-testid="upload-ghost"]').count(), 0, 'the local preview is removed');
  return (await page.locator('#toasts .toast.error').allTextContents()).at(-1);
}

test('ASSET-14 a refused upload removes its preview and says why: unsupported, too large, board full', async () => {
  // A server with small limits: 4,096 bytes a picture, 4,000 bytes of pictures a board.
  const small = await startServer({ args: ['--max-asset-bytes', '4096', '--max-board-asset-bytes', '4000'] });
  try {
    const ann = await openBoard(browser, small, 'pictures-refused', { user: 'ann', name: 'Ann' });
    const unsupported = await refusedToast(ann, { name: 'old.bmp', mimeType: 'image/bmp', buffer: bmp() });
    assert.match(unsupported, /^old\.bmp: .*convert it to PNG or JPEG/);
    const large = await refusedToast(ann, { name: 'big.png', mimeType: 'image/png', buffer: noisePng(40, 40, 3) });
    assert.equal(large, 'big.png is too large: a picture may be at most 4 KiB.');
    // 2.7 KB fits; a second picture of that size would take the board past 4,000 bytes.
    await pickFiles(ann, [{ name: 'first.png', mimeType: 'image/png', buffer: noisePng(30, 30, 4) }]);
    await until(ann, () => window.__wb.objects().filter((o) => o.kind === 'image').length === 1 && window.__wb.pending === 0);
    const full = await refusedToast(ann, { name: 'second.png', mimeType: 'image/png', buffer: noisePng(30, 30, 5) });
    assert.equal(full, 'This board is full (its pictures may take 3.9 KiB in all): second.png was not added.');
    assert.equal((await images(ann)).length, 1, 'only the accepted picture is on the board');
    await screenshot(ann, 'pictures-refused');
    // The browser logs each refused request's status; nothing else went wrong.
    assert.deepEqual(ann.problems.filter((p) => !/status of 41[35]/.test(p)), []);
    await ann.context().close();
  } finally {
    await small.stop();
    removeDir(small.dataDir);
  }
});

test('ASSET-15 resizing a picture keeps its proportions on every handle; Shift frees them', async () => {
  const page = await openBoard(browser, server, 'pictures-resize', { user: 'rae', name: 'Rae' });
  const meta = (await uploadFrom(page, solidPng(40, 30, [200, 80, 40]))).body;
  const id = await addImage(page, meta.sha256, { x: 0, y: 0, w: 400, h: 300 });
  await page.evaluate(() => window.__wb.setCamera(200, 150, 1));
  await page.evaluate((id) => window.__wb.app.setSelection([id]), id);
  const drag = async (handle, dx, dy, shift = false) => {
    await page.evaluate(() => window.__wb.flush());
    const box = await page.locator(`[data-testid="handle-${handle}"]`).boundingBox();
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    if (shift) await page.keyboard.down('Shift');
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 3 });
    await page.mouse.move(x + dx, y + dy, { steps: 3 });
    await page.mouse.up();
    if (shift) await page.keyboard.up('Shift');
    await until(page, () => window.__wb.pending === 0);
    return image(page, id);
  };
  const ratio = (o) => o.w / o.h;
  // A corner: the larger of the two moves wins, the other side follows.
  let o = await drag('se', 100, 20);
  assert.deepEqual([o.x, o.y, o.w, o.h], [0, 0, 500, 375]);
  // An edge: the other side follows, centred.
  o = await drag('e', -100, 0);
  assert.ok(Math.abs(ratio(o) - 4 / 3) < 0.01, `ratio ${ratio(o)}`);
  assert.deepEqual([o.x, o.w], [0, 400]);
  assert.equal(o.h, 300);
  assert.equal(o.y, 37.5);
  // With Shift the picture stretches freely.
  o = await drag('se', 120, -60, true);
  assert.deepEqual([o.w, o.h], [520, 240]);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('ASSET-16 alt text set from the context menu reaches a second person, labels the picture and survives a reload', async () => {
  const board = 'pictures-alt';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });
  const meta = (await uploadFrom(ann, solidPng(40, 30, [30, 120, 200]))).body;
  const id = await addImage(ann, meta.sha256, { x: 0, y: 0, w: 400, h: 300 });
  await ann.evaluate(() => window.__wb.setCamera(300, 200, 1));
  const at = await toScreen(ann, 200, 150);
  // The camera moves on the next frame: click once the picture is drawn under the point.
  await until(ann, ({ p, id }) => document.elementFromPoint(p.x, p.y)?.closest(`[data-id="${id}"]`), { p: at, id });
  await ann.mouse.click(at.x, at.y, { button: 'right' });
  await ann.click('[data-testid="context-menu"] [data-action="alt"]');
  await ann.locator('[data-testid="alt-input"]').fill('A blue square, the logo draft');
  await ann.click('[data-testid="alt-save"]');
  await until(ann, () => window.__wb.pending === 0);
  assert.ok(await ann.locator('[data-testid="alt-editor"]').isHidden());
  const sent = (await ann.evaluate(() => window.__wb.sent())).filter((m) => m.type === 'commit').at(-1);
  assert.deepEqual(sent.ops, [{ op: 'update', id, set: { alt: 'A blue square, the logo draft' } }]);

  const node = (page) => page.locator(`[data-id="${id}"]`);
  await until(bob, (id) => window.__wb.objects().find((o) => o.id === id)?.alt === 'A blue square, the logo draft', id);
  await until(bob, (id) => document.querySelector(`[data-id="${id}"]`)?.getAttribute('aria-label') === 'A blue square, the logo draft', id);
  assert.equal(await node(bob).getAttribute('role'), 'img');
  assert.equal(await node(bob).locator('title').textContent(), 'A blue square, the logo draft');

  await ann.reload();
  await until(ann, (id) => window.__wb.objects().find((o) => o.id === id)?.alt === 'A blue square, the logo draft', id);
  assert.equal(await node(ann).getAttribute('aria-label'), 'A blue square, the logo draft');

  // Enter on the selected picture opens the editor too; alt text keeps at most 1,000 characters.
  await ann.evaluate((id) => window.__wb.app.setSelection([id]), id);
  await ann.locator('[data-testid="stage"]').focus();
  await ann.keyboard.press('Enter');
  await ann.locator('[data-testid="alt-input"]').fill('é'.repeat(1200));
  await ann.keyboard.press('Enter');
  await until(ann, (id) => [...(window.__wb.objects().find((o) => o.id === id)?.alt || '')].length === 1000, id);
  await until(bob, (id) => [...(window.__wb.objects().find((o) => o.id === id)?.alt || '')].length === 1000, id);
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('ASSET-17 pictures load only near the view, as previews unless drawn large, and a failed one is not fetched again', async () => {
  const board = 'pictures-lazy';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const sha = [];
  for (const seed of [11, 12, 13]) sha.push((await uploadFrom(ann, noisePng(64, 48, seed))).body.sha256);
  const [near, far, broken] = sha;
  const a = await addImage(ann, near, { x: 0, y: 0, w: 400, h: 300 });
  const b = await addImage(ann, far, { x: 50000, y: 0, w: 400, h: 300 });
  const c = await addImage(ann, broken, { x: 0, y: 3000, w: 400, h: 300 });
  await ann.context().close();

  // A fresh page counts every request for a picture from its first one.
  const page = await preparePage(browser, server, board, { user: 'lee', name: 'Lee' });
  const asked = [];
  page.on('request', (r) => {
    const m = /\/assets\/([0-9a-f]{64})(\?preview=1)?$/.exec(r.url());
    if (m) asked.push(`${m[1] === near ? 'near' : m[1] === far ? 'far' : 'broken'}${m[2] ? ':preview' : ':full'}`);
  });
  // The broken picture's answers fail (as a dropped connection would make them).
  await page.route(new RegExp(`/assets/${broken}`), (route) => route.fulfill({ status: 404, body: '' }));
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);
  const state = (id) => page.evaluate((id) => document.querySelector(`[data-id="${id}"]`).getAttribute('data-picture'), id);
  const look = async (x, y, k) => {
    await page.evaluate(([x, y, k]) => {
      window.__wb.setCamera(x, y, k);
      window.__wb.flush();
    }, [x, y, k]);
  };
  // Zoomed out to fit the whole board (0.1), neither end is near the middle of it: nothing loads.
  await until(page, () => document.querySelectorAll('[data-kind="image"]').length === 3);
  assert.deepEqual([await state(a), await state(b), await state(c)], ['idle', 'idle', 'idle']);

  // At 100 % the near picture (400 px on screen) loads as a preview.
  await look(100, 100, 1);
  await until(page, (id) => document.querySelector(`[data-id="${id}"]`).getAttribute('data-picture') === 'loaded', a);
  // At 400 % it is 1,600 px: the full picture; back at 100 % it keeps the full one.
  await look(100, 100, 4);
  await until(page, (id) => document.querySelector(`[data-id="${id}"]`).getAttribute('data-picture') === 'loaded' && !document.querySelector(`[data-id="${id}"] image`).getAttribute('href').includes('preview'), a);
  await look(100, 100, 1);
  assert.ok(!(await page.locator(`[data-id="${a}"] image`).getAttribute('href')).includes('preview'));

  // The broken picture shows a placeholder; looking at it again and again asks once per size.
  for (let i = 0; i < 3; i++) {
    await look(100, -2900, 1);
    await until(page, (id) => document.querySelector(`[data-id="${id}"]`).getAttribute('data-picture') === 'failed', c);
    assert.ok(await page.locator(`[data-id="${c}"] .picture-missing`).isVisible(), 'the placeholder says so');
    if (i === 0) await screenshot(page, 'pictures-failed');
    await look(100, 100, 1);
  }
  for (let i = 0; i < 3; i++) {
    await look(100, -11900, 4);
    await until(page, (id) => document.querySelector(`[data-id="${id}"]`).getAttribute('data-picture') === 'failed', c);
    await look(100, 100, 1);
  }
  assert.deepEqual(asked, ['near:preview', 'near:full', 'broken:preview', 'broken:full']);
  // The far picture was never near the view: it has no URL at all.
  assert.equal(await page.locator(`[data-id="${b}"] image`).getAttribute('href'), null);
  assert.deepEqual(page.problems.filter((p) => !/404/.test(p)), []);
  await page.context().close();
});

/** A local HTTP server that counts what reaches it: resolves {port, hits, close}. */
function countingServer() {
  return new Promise((resolve) => {
    const hits = [];
    const srv = http.createServer((req, res) => {
      hits.push(req.url);
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(solidPng(4, 4, [255, 0, 0]));
    });
    srv.listen(0, '127.0.0.1', () => resolve({ port: srv.address().port, hits, close: () => new Promise((r) => srv.close(r)) }));
  });
}

/** An SVG that tries every way to run script or reach `port` when it is shown. */
function hostileSvg(port) {
  const ext = `http://127.0.0.1:${port}`;
  const run = "window.name='pwned';document.title='pwned';alert('svg')";
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="80" onload="${run}">
  <script>${run}</script>
  <script href="${ext}/script.js"/>
  <rect width="120" height="80" fill="#4caf50" onclick="${run}" onmouseover="${run}"/>
  <image href="${ext}/x" width="50" height="50" onload="${run}"/>
  <image xlink:href="${ext}/y" x="60" width="50" height="50"/>
  <a href="javascript:${run}"><text y="40">link</text></a>
  <foreignObject width="100" height="100"><iframe xmlns="http://www.w3.org/1999/xhtml" src="${ext}/frame"></iframe></foreignObject>
  <animate attributeName="x" onbegin="${run}" dur="1s"/>
</svg>`);
}

test('ASSET-4 an SVG with script, handlers and outside references runs nothing and fetches nothing, opened as a page or drawn', async () => {
  const outside = await countingServer();
  try {
    const page = await openBoard(browser, server, 'pictures-hostile', { user: 'eve', name: 'Eve' });
    const dialogs = [];
    const outsideAsked = [];
    const watch = (p) => {
      p.on('dialog', (d) => {
        dialogs.push(d.message());
        d.dismiss().catch(() => {});
      });
      p.on('request', (r) => {
        if (r.url().includes(`:${outside.port}/`)) outsideAsked.push(r.url());
      });
    };
    watch(page);
    const up = await uploadFrom(page, hostileSvg(outside.port), 'image/svg+xml');
    assert.ok(up.status === 201 || up.status === 200, JSON.stringify(up));
    assert.equal(up.body.mime, 'image/svg+xml');
    const url = `${server.url}/api/boards/${page.boardId}/assets/${up.body.sha256}`;

    // Opened as a page of its own (full and preview), hovered and clicked.
    const tab = await page.context().newPage();
    watch(tab);
    for (const u of [url, `${url}?preview=1`]) {
      await tab.goto(u);
      await tab.mouse.move(30, 30);
      await tab.mouse.click(30, 30);
      await tab.mouse.click(10, 45);
      assert.notEqual(await tab.evaluate(() => window.name), 'pwned');
      assert.notEqual(await tab.title(), 'pwned');
    }
    await tab.close();

    // Drawn on the board, hovered and clicked.
    const title = await page.title();
    const id = await addImage(page, up.body.sha256, { x: 0, y: 0, w: 240, h: 160 });
    await page.evaluate(() => window.__wb.setCamera(200, 200, 1));
    await until(page, (id) => document.querySelector(`[data-id="${id}"]`)?.getAttribute('data-picture') === 'loaded', id);
    const at = await toScreen(page, 60, 60);
    await page.mouse.move(at.x, at.y);
    await page.mouse.click(at.x, at.y);
    await page.evaluate(() => window.__wb.flush());
    await screenshot(page, 'pictures-hostile');
    assert.equal(await page.title(), title);
    assert.notEqual(await page.evaluate(() => window.name), 'pwned');
    assert.deepEqual(dialogs, []);
    assert.deepEqual(outsideAsked, []);
    assert.deepEqual(outside.hits, []);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  } finally {
    await outside.close();
  }
});

test('ASSET-17 at most 100 pictures away from the view keep their URL; the one longest away loses it first', async () => {
  const page = await openBoard(browser, server, 'pictures-keep', { user: 'kim', name: 'Kim' });
  const n = 110;
  const shas = [];
  for (let i = 0; i < n; i++) shas.push((await uploadFrom(page, solidPng(2, 2, [i, 255 - i, (i * 7) % 256]))).body.sha256);
  assert.equal(new Set(shas).size, n);
  await page.evaluate((shas) => {
    const ops = shas.map((asset, i) => ({ op: 'create', object: { id: `k${i}`, kind: 'image', asset, x: i * 450, y: 0, w: 400, h: 300 } }));
    window.__wb.app.commit(ops);
  }, shas);
  await until(page, () => window.__wb.pending === 0);
  // Walk along the row at 100 %, one picture at a time, each loaded before the next (the board
  // ends at x = 50,000).
  for (let i = 0; i < n; i++) {
    await page.evaluate((i) => {
      window.__wb.setCamera(100 - i * 450, 100, 1);
      window.__wb.flush();
    }, i);
    await until(page, (i) => document.querySelector(`[data-id="k${i}"]`).getAttribute('data-picture') === 'loaded', i);
  }
  const seen = await page.evaluate(() => {
    const imgs = [...document.querySelectorAll('[data-kind="image"]')];
    const withUrl = imgs.filter((g) => g.querySelector('image').hasAttribute('href'));
    return {
      near: imgs.filter((g) => !g.hasAttribute('data-culled')).length,
      withUrl: withUrl.length,
      first: document.querySelector('[data-id="k0"]').getAttribute('data-picture'),
      keptFrom: Math.min(...withUrl.map((g) => Number(g.getAttribute('data-id').slice(1)))),
    };
  });
  assert.ok(seen.near >= 1 && seen.near < 10, JSON.stringify(seen));
  assert.equal(seen.withUrl, 100 + seen.near, JSON.stringify(seen));
  assert.equal(seen.first, 'idle', 'the first picture seen lost its URL');
  assert.equal(seen.keptFrom, n - seen.withUrl, 'the most recently seen keep theirs');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

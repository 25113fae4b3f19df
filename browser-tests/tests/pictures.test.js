// Pictures on the board in Chromium (ASSET-9): a file dropped onto the board and a picture
// pasted from the clipboard are uploaded, appear as images for a second person, load from the
// server, and are still there after a reload.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBoard, until, screenshot, useServerAndBrowser } from '../lib/harness.js';

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

/** The status the page gets for the picture an image object shows. */
async function pictureStatus(page, id) {
  return page.evaluate(async (id) => {
    const href = document.querySelector(`[data-id="${id}"] image`)?.getAttribute('href');
    if (!href) return 0;
    return (await fetch(href, { credentials: 'same-origin' })).status;
  }, id);
}

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

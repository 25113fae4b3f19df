// Two people on one board: notes, cursors, drags, and the editing gestures (UI-COLLAB-*,
// UI-EDIT-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBoard,
  until,
  objects,
  centerOf,
  screenshot,
  useServerAndBrowser,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

/** Creates a note through the toolbar at screen point (x, y) and types its text. */
async function createNote(page, x, y, text) {
  await page.click('[data-testid="tool-note"]');
  await page.mouse.click(x, y);
  await page.waitForSelector('[data-testid="text-editor"]:focus');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  return until(page, (t) => window.__wb.objects().find((o) => o.kind === 'note' && o.text === t && window.__wb.pending === 0)?.id, text);
}

test('UI-COLLAB-1 two users see each other\'s new note and live cursor', async () => {
  const board = 'collab-one';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });

  // Who is here: each sees the other in the user list.
  await bob.waitForSelector(`[data-testid="user-list"] [data-user-id="${ann.userId}"]`);
  await ann.waitForSelector(`[data-testid="user-list"] [data-user-id="${bob.userId}"]`);

  const id = await createNote(ann, 640, 420, 'Hello from Ann');
  const note = bob.locator(`[data-id="${id}"][data-kind="note"]`);
  await note.waitFor();
  assert.match(await note.textContent(), /Hello from Ann/);

  // Bob's new note reaches Ann too.
  const id2 = await createNote(bob, 400, 300, 'Hi Ann');
  await ann.locator(`[data-id="${id2}"]`).waitFor();

  // Ann's cursor shows on Bob's screen, with her name, near where she points.
  await ann.mouse.move(900, 500);
  await ann.mouse.move(910, 510, { steps: 3 });
  const cursor = bob.locator(`[data-testid="remote-cursor"][data-user-id="${ann.userId}"]`);
  await cursor.waitFor({ state: 'visible' });
  assert.equal((await cursor.textContent()).trim(), 'Ann');
  const annWorld = await ann.evaluate(() => {
    const c = window.__wb.camera();
    const r = document.getElementById('stage').getBoundingClientRect();
    return { x: (910 - r.left - c.x) / c.k, y: (510 - r.top - c.y) / c.k };
  });
  await until(
    bob,
    ({ w, who }) => {
      const el = document.querySelector(`[data-testid="remote-cursor"][data-user-id="${who}"]`);
      const c = window.__wb.camera();
      const r = document.getElementById('stage').getBoundingClientRect();
      const b = el.getBoundingClientRect();
      const sx = w.x * c.k + c.x + r.left;
      const sy = w.y * c.k + c.y + r.top;
      return Math.abs(b.left - sx) < 3 && Math.abs(b.top - sy) < 3;
    },
    { w: annWorld, who: ann.userId },
  );
  await screenshot(bob, 'collab-bob-sees-ann');
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-COLLAB-2 a drag moves a note for the other user', async () => {
  const board = 'collab-drag';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });
  const id = await createNote(ann, 500, 400, 'Drag me');
  await bob.locator(`[data-id="${id}"]`).waitFor();
  const before = (await objects(ann)).find((o) => o.id === id);
  const k = (await ann.evaluate(() => window.__wb.camera())).k;

  const c = await centerOf(ann, id);
  await ann.mouse.move(c.x, c.y);
  await ann.mouse.down();
  await ann.mouse.move(c.x + 60, c.y + 20, { steps: 4 });
  await ann.mouse.move(c.x + 200, c.y + 100, { steps: 6 });
  await ann.mouse.up();

  const want = { x: before.x + 200 / k, y: before.y + 100 / k };
  const moved = await until(
    bob,
    ([nid, w]) => {
      const o = window.__wb.objects().find((x) => x.id === nid);
      return o && Math.abs(o.x - w.x) < 1 && Math.abs(o.y - w.y) < 1 ? o : null;
    },
    [id, want],
  );
  assert.ok(moved);
  // The element itself moved on Bob's screen (on the view's next frame).
  const t = await until(
    bob,
    ([nid, x]) => {
      const tr = document.querySelector(`[data-id="${nid}"]`)?.getAttribute('transform') ?? '';
      return tr.startsWith(`translate(${x}`) ? tr : null;
    },
    [id, Math.round(moved.x)],
  );
  assert.match(t, new RegExp(`translate\\(${Math.round(moved.x)}`));
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-EDIT-1 select, shift-click, marquee, delete, duplicate, resize, edit text, connector, undo/redo', async () => {
  const board = 'edit-gestures';
  const page = await openBoard(browser, server, board, { user: 'eve', name: 'Eve' });
  const a = await createNote(page, 400, 300, 'A');
  const b = await createNote(page, 750, 300, 'B');

  // Click selects one; shift-click adds; a click on empty space clears.
  let ca = await centerOf(page, a);
  let cb = await centerOf(page, b);
  await page.mouse.click(ca.x, ca.y);
  await until(page, (id) => [...window.__wb.app.renderer.selection].join() === id, a);
  await page.keyboard.down('Shift');
  await page.mouse.click(cb.x, cb.y);
  await page.keyboard.up('Shift');
  await until(page, () => window.__wb.app.renderer.selection.size === 2);
  await page.mouse.click(1100, 700);
  await until(page, () => window.__wb.app.renderer.selection.size === 0);

  // Shift+drag on empty space: marquee around both.
  await page.keyboard.down('Shift');
  await page.mouse.move(200, 120);
  await page.mouse.down();
  await page.mouse.move(600, 400, { steps: 4 });
  await page.mouse.move(980, 560, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await until(page, () => window.__wb.app.renderer.selection.size === 2);

  // Duplicate (Ctrl+D): two more notes, selected.
  await page.keyboard.press('Control+d');
  await until(page, () => window.__wb.objects().filter((o) => o.kind === 'note').length === 4 && window.__wb.pending === 0);
  const copies = await page.evaluate(() => [...window.__wb.app.renderer.selection]);
  assert.equal(copies.length, 2);
  assert.ok(!copies.includes(a) && !copies.includes(b));

  // Delete key removes the copies.
  await page.keyboard.press('Delete');
  await until(page, () => window.__wb.objects().filter((o) => o.kind === 'note').length === 2 && window.__wb.pending === 0);

  // Resize A by its south-east handle.
  ca = await centerOf(page, a);
  await page.mouse.click(ca.x, ca.y);
  const h = await page.locator('[data-testid="handle-se"]').boundingBox();
  const before = (await objects(page)).find((o) => o.id === a);
  await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
  await page.mouse.down();
  await page.mouse.move(h.x + 60, h.y + 40, { steps: 5 });
  await page.mouse.up();
  const resized = await until(
    page,
    ([id, w]) => {
      const o = window.__wb.objects().find((x) => x.id === id);
      return o && o.w > w + 20 && window.__wb.pending === 0 ? o : null;
    },
    [a, before.w],
  );
  assert.ok(resized.h > before.h);

  // Double-click edits the text.
  ca = await centerOf(page, a);
  await page.mouse.dblclick(ca.x, ca.y);
  await page.waitForSelector('[data-testid="text-editor"]:focus');
  await page.keyboard.press('Control+a');
  await page.keyboard.type('A edited');
  await page.keyboard.press('Enter');
  await until(page, (id) => window.__wb.objects().find((o) => o.id === id)?.text === 'A edited' && window.__wb.pending === 0, a);

  // Connector tool: from A to B, bound to both, drawn with an arrowhead.
  ca = await centerOf(page, a);
  cb = await centerOf(page, b);
  await page.click('[data-testid="tool-connector"]');
  await page.mouse.click(ca.x, ca.y);
  await page.mouse.click(cb.x, cb.y);
  const conn = await until(
    page,
    ([x, y]) => window.__wb.objects().find((o) => o.kind === 'connector' && o.from?.id === x && o.to?.id === y),
    [a, b],
  );
  await page.locator(`[data-id="${conn.id}"] polygon.head`).waitFor();

  // Undo (Ctrl+Z) removes the connector; redo (Ctrl+Shift+Z) brings it back.
  await page.click('[data-testid="stage"]', { position: { x: 1000, y: 650 } });
  await page.keyboard.press('Control+z');
  await until(page, (id) => !window.__wb.objects().some((o) => o.id === id), conn.id);
  await page.keyboard.press('Control+Shift+z');
  await until(page, (id) => window.__wb.objects().some((o) => o.id === id), conn.id);

  // Deleting A deletes the connector bound to it.
  ca = await centerOf(page, a);
  await page.mouse.click(ca.x, ca.y);
  await page.keyboard.press('Delete');
  await until(page, ([x, c]) => !window.__wb.objects().some((o) => o.id === x || o.id === c) && window.__wb.pending === 0, [a, conn.id]);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-VIEW-1 pan by space+drag and wheel, zoom by ctrl+wheel and buttons', async () => {
  const page = await openBoard(browser, server, 'view-board', { user: 'vic', name: 'Vic' });
  const cam0 = await page.evaluate(() => window.__wb.camera());
  // Space+drag pans (a plain drag on empty space selects an area: UI-GESTURE-1).
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.down('Space');
  await page.mouse.move(700, 500);
  await page.mouse.down();
  await page.mouse.move(760, 540, { steps: 5 });
  await page.mouse.up();
  await page.keyboard.up('Space');
  let cam = await until(page, (c0) => {
    const c = window.__wb.camera();
    return Math.abs(c.x - c0.x - 60) < 1 && Math.abs(c.y - c0.y - 40) < 1 ? c : null;
  }, cam0);
  // Wheel pans.
  await page.mouse.move(700, 500);
  await page.mouse.wheel(0, 100);
  cam = await until(page, (c0) => {
    const c = window.__wb.camera();
    return Math.abs(c.y - (c0.y - 100)) < 1 ? c : null;
  }, cam);
  // Ctrl+wheel zooms around the pointer.
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -100);
  await page.keyboard.up('Control');
  cam = await until(page, (c0) => (window.__wb.camera().k > c0.k * 1.1 ? window.__wb.camera() : null), cam);
  // Buttons.
  await page.click('[data-testid="zoom-out"]');
  await until(page, (c0) => window.__wb.camera().k < c0.k * 0.9, cam);
  await page.click('[data-testid="zoom-level"]');
  await until(page, () => Math.abs(window.__wb.camera().k - 1) < 1e-6);
  // The label follows the camera on the view's next frame: wait for it rather than read it once.
  await until(page, () => document.querySelector('[data-testid="zoom-level"]').textContent === '100%');
  assert.equal(await page.locator('[data-testid="zoom-level"]').textContent(), '100%');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-EDIT-2 an edit shows at once; the server\'s applied values win; a rejected edit rolls back', async () => {
  const page = await openBoard(browser, server, 'optimistic', { user: 'oli', name: 'Oli' });
  const a = await createNote(page, 400, 300, 'note');
  const b = await createNote(page, 750, 300, 'not a frame');
  const orig = (await objects(page)).find((o) => o.id === a);

  // Optimistic: the view changes before any reply; the server clamps w to 5000 and the client
  // takes its value.
  const shown = await page.evaluate((id) => {
    window.__wb.app.commit([{ op: 'update', id, set: { w: 99999 } }]);
    return window.__wb.objects().find((o) => o.id === id).w;
  }, a);
  assert.equal(shown, 99999);
  await until(page, (id) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.id === id).w === 5000, a);

  // Rejected (a note cannot be a parent): the move is shown, then rolled back.
  const during = await page.evaluate(([id, p]) => {
    window.__wb.app.commit([{ op: 'update', id, set: { x: 999, parent: p } }]);
    return window.__wb.objects().find((o) => o.id === id).x;
  }, [a, b]);
  assert.equal(during, 999);
  await until(page, ([id, x]) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.id === id).x === x, [a, orig.x]);
  // The view follows on its next frame.
  await until(
    page,
    ([id, t]) => document.querySelector(`[data-id="${id}"]`)?.getAttribute('transform') === t,
    [a, `translate(${orig.x} ${orig.y})`],
  );
  await page.locator('.toast', { hasText: 'Edit refused' }).waitFor();
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

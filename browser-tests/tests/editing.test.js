// Editing (UI-CLIP-*, UI-EDIT-3..): copy, cut and paste through the system clipboard within a
// board and across tabs and boards, plain text pasted as a note, the context menu, duplicate
// beside the original, align and distribute, z-order, grow-to-fit, a new note and its text as one
// undo step, the editor in the shape's outline; and two people editing one text (UI-COLLAB-3, 4).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBoard,
  until,
  objects,
  screenshot,
  useServerAndBrowser,
  addNotes,
  toScreen,
  boardId,
  joinBoard,
  trackProblems,
  waitOnline,
  centerOf,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const PERMS = ['clipboard-read', 'clipboard-write'];

async function clipboardBoard(board, name) {
  const page = await openBoard(browser, server, board, { name });
  await page.context().grantPermissions(PERMS, { origin: server.url });
  return page;
}

const notes = async (page) => (await objects(page)).filter((o) => o.kind === 'note');
const commits = (page) => page.evaluate(() => window.__wb.sent().filter((m) => m.type === 'commit'));

async function selectByClick(page, id) {
  const c = await centerOf(page, id);
  await page.mouse.click(c.x, c.y);
  await until(page, (x) => window.__wb.app.renderer.selection.has(x), id);
}

async function contextMenu(page, id, action) {
  const c = id ? await centerOf(page, id) : { x: 1000, y: 650 };
  await page.mouse.click(c.x, c.y, { button: 'right' });
  await page.locator('[data-testid="context-menu"]').waitFor({ state: 'visible' });
  await page.click(`[data-testid="context-menu"] [data-action="${action}"]`);
  await page.locator('[data-testid="context-menu"]').waitFor({ state: 'hidden' });
}

test('UI-CLIP-1 Ctrl+C, Ctrl+V pastes copies at the pointer, with new ids and the connector between them', async () => {
  const page = await clipboardBoard('clip-one', 'Cleo');
  const [a, b] = await addNotes(page, [{ x: 0, y: 0, text: 'alpha' }, { x: 200, y: 0, text: 'beta' }]);
  await page.evaluate(([a, b]) => window.__wb.app.commit([{ op: 'create', object: { id: 'conn-ab', kind: 'connector', from: { id: a }, to: { id: b } } }]), [a, b]);
  await until(page, () => window.__wb.pending === 0);
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Control+c');
  const at = await toScreen(page, 160, -250);
  await page.mouse.move(at.x, at.y);
  await page.keyboard.press('Control+v');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().length === 6);
  const all = await objects(page);
  const copies = all.filter((o) => o.kind === 'note' && ![a, b].includes(o.id));
  assert.deepEqual(copies.map((o) => o.text).sort(), ['alpha', 'beta']);
  // Centered at the pointer: the pair spans x 0..320, y 0..100; its center lands at (160, -250).
  const alpha = copies.find((o) => o.text === 'alpha');
  assert.ok(Math.abs(alpha.x) < 1 && Math.abs(alpha.y + 300) < 1, JSON.stringify(alpha));
  const link = all.find((o) => o.kind === 'connector' && o.id !== 'conn-ab');
  assert.deepEqual(new Set([link.from.id, link.to.id]), new Set(copies.map((o) => o.id)));
  // The copies are selected; one commit made them.
  assert.deepEqual(new Set(await page.evaluate(() => [...window.__wb.app.renderer.selection])), new Set([...copies.map((o) => o.id), link.id]));
  assert.equal((await commits(page)).length, 3);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-CLIP-2 copy in one tab, paste in another tab on another board, through the system clipboard', async () => {
  const one = await clipboardBoard('clip-from', 'Tia');
  const [a] = await addNotes(one, [{ x: 0, y: 0, text: 'travels', color: '#A5D6A7' }]);
  // A second tab of the same browser, on another board.
  const two = await one.context().newPage();
  trackProblems(two);
  const other = await boardId(server, 'clip-to');
  await two.goto(server.url);
  await joinBoard(two, server, other, 'editor', 'Tia');
  await two.goto(`${server.url}/b/${other}`);
  await waitOnline(two);

  await one.bringToFront();
  await selectByClick(one, a);
  await one.keyboard.press('Control+c');
  // What the clipboard holds: the objects' text for other programs, the objects for boards.
  const plain = await one.evaluate(() => navigator.clipboard.readText());
  assert.equal(plain, 'travels');

  await two.bringToFront();
  await two.mouse.move(640, 400);
  await two.keyboard.press('Control+v');
  const pasted = await until(two, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.text === 'travels'));
  assert.equal(pasted.color, '#A5D6A7');
  assert.notEqual(pasted.id, a);
  // It is on the other board for everyone (the server has it).
  const stored = (await server.api('GET', `/api/boards/${other}`)).body.objects;
  assert.ok(stored.some((o) => o.text === 'travels'));
  // And back through the context menu (the async clipboard API): copy in tab two, paste in one.
  await contextMenu(two, pasted.id, 'copy');
  await one.bringToFront();
  await contextMenu(one, null, 'paste');
  await until(one, () => window.__wb.pending === 0 && window.__wb.objects().filter((o) => o.text === 'travels').length === 2);
  assert.deepEqual(one.problems, []);
  assert.deepEqual(two.problems, []);
  await one.context().close();
});

test('UI-CLIP-3 pasting plain text makes a note with that text, grown to fit it', async () => {
  const page = await clipboardBoard('clip-text', 'Pat');
  const long = 'Plain text from another program, long enough to need more than the default height of a note. '.repeat(3).trim();
  await page.evaluate((t) => navigator.clipboard.writeText(t), long);
  await page.locator('[data-testid="stage"]').focus();
  await page.mouse.move(500, 400);
  await page.keyboard.press('Control+v');
  const note = await until(page, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.kind === 'note'));
  assert.equal(note.text, long);
  assert.ok(note.h > 200, `h ${note.h}`);
  // All of it shows: no line is cut off with "…".
  await page.evaluate(() => window.__wb.flush());
  assert.ok(!(await page.locator(`[data-id="${note.id}"] text.label`).textContent()).includes('…'));
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-CLIP-4 Ctrl+X removes the selection; Ctrl+V brings it back', async () => {
  const page = await clipboardBoard('clip-cut', 'Cy');
  const [a] = await addNotes(page, [{ x: 0, y: 0, text: 'cut me' }]);
  await selectByClick(page, a);
  await page.keyboard.press('Control+x');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().length === 0);
  await page.mouse.move(700, 300);
  await page.keyboard.press('Control+v');
  const back = await until(page, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.text === 'cut me'));
  assert.notEqual(back.id, a);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-EDIT-3 the context menu: duplicate (beside the original), delete, bring to front, send to back', async () => {
  const page = await openBoard(browser, server, 'edit-menu', { name: 'Meg' });
  const [a, b] = await addNotes(page, [{ x: 0, y: 0, text: 'A' }, { x: 80, y: 60, text: 'B' }]);
  const zOf = async (id) => (await objects(page)).find((o) => o.id === id).z;
  assert.ok((await zOf(b)) > (await zOf(a)));
  // Bring A to front: its z is above B's and it is drawn last.
  await contextMenu(page, a, 'front');
  await until(page, ([a, b]) => {
    const o = window.__wb.objects();
    const za = o.find((x) => x.id === a).z;
    return window.__wb.pending === 0 && za > o.find((x) => x.id === b).z;
  }, [a, b]);
  await until(page, (a) => document.querySelector('.layer-objects').lastElementChild.getAttribute('data-id') === a, a);
  await screenshot(page, 'editing-context-menu');
  // Send it to back again.
  await contextMenu(page, a, 'back');
  await until(page, ([a, b]) => {
    const o = window.__wb.objects();
    return window.__wb.pending === 0 && o.find((x) => x.id === a).z < o.find((x) => x.id === b).z;
  }, [a, b]);
  await until(page, (a) => document.querySelector('.layer-objects').firstElementChild.getAttribute('data-id') === a, a);
  // Duplicate from the menu: beside B (to its right, with a gap), not over it.
  await page.keyboard.press('Escape');
  await contextMenu(page, b, 'duplicate');
  const dup = await until(page, ([a, b]) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.kind === 'note' && o.id !== a && o.id !== b), [a, b]);
  assert.deepEqual([dup.x, dup.y, dup.text], [80 + 120 + 20, 60, 'B']);
  // Ctrl+D does the same.
  await page.keyboard.press('Control+d');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().some((o) => o.x === 360 && o.y === 60));
  // Delete from the menu.
  await contextMenu(page, b, 'delete');
  await until(page, (b) => window.__wb.pending === 0 && !window.__wb.objects().some((o) => o.id === b), b);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-EDIT-4 align and distribute a multi-selection from the context menu', async () => {
  const page = await openBoard(browser, server, 'edit-align', { name: 'Al' });
  const ids = await addNotes(page, [
    { x: 0, y: 0, w: 100, h: 100 },
    { x: 130, y: 60, w: 100, h: 60 },
    { x: 420, y: 20, w: 140, h: 100 },
  ]);
  await page.keyboard.press('Control+a');
  await contextMenu(page, ids[1], 'align-top');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().every((o) => o.y === 0));
  await contextMenu(page, ids[1], 'align-bottom');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().every((o) => o.y + o.h === 100));
  await contextMenu(page, ids[1], 'align-middle');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().every((o) => o.y + o.h / 2 === 50));
  // Distribute horizontally: widths 100, 100, 140 over 0..560 leave gaps of 110; the outer two stay.
  await contextMenu(page, ids[1], 'dist-h');
  await until(page, (id) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.id === id).x === 210, ids[1]);
  const xs = (page) => page.evaluate((ids) => ids.map((id) => window.__wb.objects().find((o) => o.id === id).x), ids);
  await contextMenu(page, ids[1], 'align-left');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().every((o) => o.x === 0));
  await contextMenu(page, ids[1], 'align-right');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().some((o) => o.x === 40));
  assert.deepEqual(await xs(page), [40, 40, 0]);
  await contextMenu(page, ids[1], 'align-center');
  await until(page, () => window.__wb.pending === 0 && window.__wb.objects().some((o) => o.x === 20));
  assert.deepEqual(await xs(page), [20, 20, 0]);
  // Vertical: spread them first, then distribute.
  await page.evaluate((ids) => window.__wb.app.commit(ids.map((id, i) => ({ op: 'update', id, set: { y: [0, 150, 400][i] } }))), ids);
  await until(page, () => window.__wb.pending === 0);
  await contextMenu(page, ids[1], 'dist-v');
  // Heights 100, 60, 100 between 0 and 500: gap (500 - 260) / 2 = 120, so the middle one is at 220.
  await until(page, (id) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.id === id).y === 220, ids[1]);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-EDIT-5 a new note and its first text are one commit and one undo; a long text grows the note in the same commit', async () => {
  const page = await openBoard(browser, server, 'edit-grow', { name: 'Gus' });
  await page.click('[data-testid="tool-note"]');
  await page.mouse.click(640, 400);
  await page.waitForSelector('[data-testid="text-editor"]:focus');
  await page.keyboard.type('first text');
  await page.keyboard.press('Enter');
  const note = await until(page, () => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.text === 'first text'));
  let sent = await commits(page);
  assert.equal(sent.length, 1);
  assert.equal(sent[0].ops.length, 1);
  assert.equal(sent[0].ops[0].op, 'create');
  assert.equal(sent[0].ops[0].object.text, 'first text');
  // One undo removes it.
  await page.keyboard.press('Control+z');
  await until(page, (id) => !window.__wb.objects().some((o) => o.id === id), note.id);

  // Editing a note with a long text: the text and the taller size go out as one update.
  const [b] = await addNotes(page, [{ x: 0, y: 0, w: 200, h: 200 }]);
  const c = await centerOf(page, b);
  await page.mouse.dblclick(c.x, c.y);
  await page.waitForSelector('[data-testid="text-editor"]:focus');
  const long = 'A note that says a great deal more than fits in two hundred pixels of height, so it grows. '.repeat(4).trim();
  await page.keyboard.insertText(long);
  // The editor grows as the text does.
  const grown = await page.locator('[data-testid="text-editor"]').boundingBox();
  assert.ok(grown.height > 210, `editor ${grown.height}`);
  await page.keyboard.press('Enter');
  const after = await until(page, (id) => window.__wb.pending === 0 && window.__wb.objects().find((o) => o.id === id && o.text.length > 100), b);
  assert.ok(after.h > 200, `h ${after.h}`);
  sent = (await commits(page)).slice(-1)[0];
  assert.deepEqual(Object.keys(sent.ops[0].set).sort(), ['h', 'text']);
  await page.evaluate(() => window.__wb.flush());
  assert.ok(!(await page.locator(`[data-id="${b}"] text.label`).textContent()).includes('…'));
  // One undo restores both.
  await page.keyboard.press('Control+z');
  await until(page, (id) => {
    const o = window.__wb.objects().find((x) => x.id === id);
    return o && o.h === 200 && !o.text;
  }, b);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-EDIT-6 the in-place editor takes the shape\'s outline', async () => {
  const page = await openBoard(browser, server, 'edit-outline', { name: 'Oz' });
  const ids = await page.evaluate(() => {
    const ops = ['ellipse', 'diamond', 'rectangle'].map((geo, i) => ({ op: 'create', object: { id: `s-${geo}`, kind: 'shape', geo, x: i * 260 - 400, y: -100, w: 220, h: 140 } }));
    window.__wb.app.commit(ops);
    return ops.map((o) => o.object.id);
  });
  await until(page, () => window.__wb.pending === 0);
  const look = async (id) => {
    const c = await centerOf(page, id);
    await page.mouse.dblclick(c.x, c.y);
    await page.waitForSelector('[data-testid="text-editor"]:focus');
    const style = await page.$eval('[data-testid="text-editor"]', (e) => {
      const s = getComputedStyle(e);
      return { radius: s.borderTopLeftRadius, clip: s.clipPath, geo: e.dataset.geo };
    });
    await page.keyboard.press('Escape');
    return style;
  };
  const ellipse = await look(ids[0]);
  assert.equal(ellipse.geo, 'ellipse');
  assert.equal(ellipse.radius, '50%');
  const diamond = await look(ids[1]);
  assert.match(diamond.clip, /^polygon/);
  const rect = await look(ids[2]);
  assert.equal(rect.clip, 'none');
  assert.notEqual(rect.radius, '50%');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-COLLAB-3 others see "Ann is editing" on the note Ann edits', async () => {
  const board = 'collab-editing';
  const ann = await openBoard(browser, server, board, { name: 'Ann' });
  const bob = await openBoard(browser, server, board, { name: 'Bob' });
  const [n] = await addNotes(ann, [{ x: 0, y: 0, w: 200, h: 200, text: 'shared' }]);
  await bob.locator(`[data-id="${n}"]`).waitFor();
  const c = await centerOf(ann, n);
  await ann.mouse.dblclick(c.x, c.y);
  await ann.waitForSelector('[data-testid="text-editor"]:focus');
  const badge = bob.locator(`[data-testid="editing-badge"][data-user-id="${ann.userId}"]`);
  await badge.waitFor({ state: 'visible' });
  assert.equal(await badge.textContent(), 'Ann is editing');
  assert.equal(await badge.getAttribute('data-object-id'), n);
  // It sits on the note's top edge.
  const nb = await bob.locator(`[data-id="${n}"] .body`).boundingBox();
  const bb = await badge.boundingBox();
  assert.ok(Math.abs(bb.x - nb.x) < 3 && bb.y < nb.y && nb.y - bb.y < 40, `${JSON.stringify(bb)} ${JSON.stringify(nb)}`);
  await screenshot(bob, 'editing-someone-is-here');
  await ann.keyboard.press('Escape');
  await badge.waitFor({ state: 'detached' });
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-COLLAB-4 a newer text committed by someone else shows in the editor before mine replaces it', async () => {
  const board = 'collab-newer';
  const ann = await openBoard(browser, server, board, { name: 'Ann' });
  const bob = await openBoard(browser, server, board, { name: 'Bob' });
  const [n] = await addNotes(ann, [{ x: 0, y: 0, w: 200, h: 200, text: 'v1' }]);
  await bob.locator(`[data-id="${n}"]`).waitFor();
  // Bob starts editing; then Ann edits and commits first.
  let c = await centerOf(bob, n);
  await bob.mouse.dblclick(c.x, c.y);
  await bob.waitForSelector('[data-testid="text-editor"]:focus');
  await bob.keyboard.press('Control+a');
  await bob.keyboard.type('Bob was here');
  c = await centerOf(ann, n);
  await ann.mouse.dblclick(c.x, c.y);
  await ann.waitForSelector('[data-testid="text-editor"]:focus');
  await ann.keyboard.press('Control+a');
  await ann.keyboard.type('Ann got here first');
  await ann.keyboard.press('Enter');
  await until(ann, () => window.__wb.pending === 0);
  const notice = bob.locator('[data-testid="edit-notice"]');
  await notice.waitFor({ state: 'visible' });
  assert.equal(await bob.locator('[data-testid="their-text"]').textContent(), 'Ann got here first');
  assert.match(await notice.textContent(), /^Ann changed this text/);
  await screenshot(bob, 'editing-newer-text');
  // Bob's editor still has his text; Enter makes his the text for everyone.
  assert.equal(await bob.locator('[data-testid="text-editor"]').inputValue(), 'Bob was here');
  await bob.keyboard.press('Enter');
  await until(ann, (id) => window.__wb.objects().find((o) => o.id === id)?.text === 'Bob was here', n);
  assert.deepEqual(ann.problems, []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

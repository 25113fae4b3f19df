// Reconnecting: the server dies and comes back on the same port and data dir; the page resumes
// with `since`, re-sends what was not confirmed with the same commit ids, and loses nothing
// (UI-RESUME-*).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startServer,
  openBoard,
  until,
  objects,
  centerOf,
  screenshot,
  preparePage,
  waitOnline,
  useServerAndBrowser,
} from '../lib/harness.js';

let server;
let browser;

// The test restarts the server; the current one is torn down at the end.
useServerAndBrowser(
  (s, b) => {
    server = s;
    browser = b;
  },
  () => server,
);

/** Problems other than the browser's own report of a refused connection while the server is down. */
function unexpected(problems) {
  return problems.filter((p) => !/WebSocket connection to .* failed/.test(p));
}

test('UI-RESUME-1 a server restart mid-session loses no edit: offline edits are sent after the reconnect', async () => {
  const board = 'resume-board';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  await ann.click('[data-testid="tool-note"]');
  await ann.mouse.click(500, 400);
  await ann.keyboard.type('before the crash');
  await ann.keyboard.press('Enter');
  const id = await until(ann, () => window.__wb.pending === 0 && window.__wb.objects()[0]?.id);
  const seqBefore = await ann.evaluate(() => window.__wb.seq);

  // The server dies without warning.
  await server.stop('SIGKILL');
  await until(ann, () => ['offline', 'reconnecting'].includes(window.__wb.status));
  await screenshot(ann, 'resume-offline');

  // Edits while offline show at once and wait.
  const c = await centerOf(ann, id);
  await ann.mouse.dblclick(c.x, c.y);
  await ann.waitForSelector('[data-testid="text-editor"]:focus');
  await ann.keyboard.press('Control+a');
  await ann.keyboard.type('edited while offline');
  await ann.keyboard.press('Enter');
  await ann.click('[data-testid="tool-note"]');
  await ann.mouse.click(850, 400);
  await ann.keyboard.type('created while offline');
  await ann.keyboard.press('Enter');
  // Two commits wait: the text edit, and the new note with its text (one commit, UI-EDIT-5).
  assert.equal(await ann.evaluate(() => window.__wb.pending), 2);
  assert.match(await ann.locator(`[data-id="${id}"]`).textContent(), /edited while offline/);

  // Same port, same data dir.
  server = await startServer({ port: server.port, dataDir: server.dataDir });
  await waitOnline(ann, 30000);
  await until(ann, () => window.__wb.pending === 0, null, 15000);

  // Resumed with since = last seq seen, and both edits reached the server once each.
  const hellos = (await ann.evaluate(() => window.__wb.sent())).filter((m) => m.type === 'hello');
  assert.equal(hellos[0].since, undefined);
  assert.equal(hellos[hellos.length - 1].since, seqBefore);
  const exported = (await server.api('GET', `/api/boards/${ann.boardId}`)).body;
  assert.equal(exported.seq, seqBefore + 2);
  const texts = exported.objects.map((o) => o.text).sort();
  assert.deepEqual(texts, ['created while offline', 'edited while offline']);

  // A newcomer sees the same.
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });
  await until(bob, () => window.__wb.objects().length === 2);
  const mine = (await objects(ann)).map((o) => `${o.id}:${o.text}`).sort();
  const his = (await objects(bob)).map((o) => `${o.id}:${o.text}`).sort();
  assert.deepEqual(his, mine);
  assert.deepEqual(unexpected(ann.problems), []);
  assert.deepEqual(bob.problems, []);
  await ann.context().close();
  await bob.context().close();
});

test('UI-RESUME-2 a commit whose confirmation was lost is re-sent with the same id and applied once', async () => {
  const page = await preparePage(browser, server, 'resume-dup', { name: 'Dan' });
  const context = page.context();
  const dropped = [];
  let dropNextApplied = false;
  const hellos = [];
  await page.routeWebSocket(/\/ws\/boards\//, (ws) => {
    const srv = ws.connectToServer();
    // Once this proxy has cut the connection, what the page still sends on it is lost (the
    // proxy's own socket to the server is closed; sending on it would log a browser error).
    let cut = false;
    ws.onMessage((m) => {
      const msg = JSON.parse(m);
      if (msg.type === 'hello') hellos.push(msg);
      if (!cut) srv.send(m);
    });
    srv.onMessage((m) => {
      const msg = JSON.parse(m);
      if (dropNextApplied && msg.type === 'applied' && msg.command.client_id) {
        // The confirmation is lost with the connection.
        dropNextApplied = false;
        dropped.push(msg);
        cut = true;
        ws.close({ code: 4000, reason: 'test: connection lost' });
        srv.close();
        return;
      }
      ws.send(m);
    });
  });
  await page.goto(`${server.url}/b/${page.boardId}`);
  await waitOnline(page);
  dropNextApplied = true;
  await page.click('[data-testid="tool-note"]');
  await page.mouse.click(600, 400);
  await page.keyboard.type('only once');
  await page.keyboard.press('Enter');

  await until(page, () => window.__wb.pending === 0 && window.__wb.status === 'online', null, 20000);
  assert.equal(dropped.length, 1);
  const cid = dropped[0].command.client_id;
  const sends = (await page.evaluate(() => window.__wb.sent())).filter((m) => m.type === 'commit' && m.id === cid);
  assert.equal(sends.length, 2, 'the commit went twice, with the same id');
  // The second hello resumed from the last seq the page had seen (before the lost applied).
  assert.equal(hellos.length, 2);
  assert.equal(hellos[1].since, dropped[0].seq - 1);
  const exported = (await server.api('GET', `/api/boards/${page.boardId}`)).body;
  assert.equal(exported.objects.length, 1);
  assert.equal(exported.objects[0].text, 'only once');
  assert.equal(await page.evaluate(() => window.__wb.seq), exported.seq);
  assert.deepEqual(unexpected(page.problems), []);
  await context.close();
});

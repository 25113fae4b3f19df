// Version history in the browser (UI-HIST-1): name a version, preview it read-only over the
// canvas, restore it (one command everyone sees), undo the restore with Ctrl+Z.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openBoard, until, screenshot, useServerAndBrowser } from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const ids = (page) => page.evaluate(() => window.__wb.objects().map((o) => `${o.id}:${o.text}`).sort().join(','));

async function commit(page, ops) {
  await page.evaluate((o) => window.__wb.app.commit(o), ops);
  await until(page, () => window.__wb.pending === 0);
}

test('UI-HIST-1 name a version, preview it, restore it, and undo the restore', async () => {
  const board = 'history-one';
  const ann = await openBoard(browser, server, board, { user: 'ann', name: 'Ann' });
  const bob = await openBoard(browser, server, board, { user: 'bob', name: 'Bob' });
  await commit(ann, [
    { op: 'create', object: { id: 'h-a', kind: 'note', x: 100, y: 100, text: 'Alpha' } },
    { op: 'create', object: { id: 'h-b', kind: 'note', x: 400, y: 100, text: 'Beta' } },
  ]);
  const atVersion = await ids(ann);

  await ann.click('[data-testid="history-open"]');
  await ann.fill('[data-testid="history-name"]', 'Before the workshop');
  await ann.click('[data-testid="history-save"]');
  const item = ann.locator('[data-testid="history-item"]', { hasText: 'Before the workshop' });
  await item.waitFor();
  assert.match(await item.textContent(), /Ann/);

  await commit(ann, [
    { op: 'update', id: 'h-a', set: { text: 'Changed' } },
    { op: 'delete', id: 'h-b' },
    { op: 'create', object: { id: 'h-c', kind: 'note', x: 700, y: 100, text: 'Gamma' } },
  ]);
  const changed = await ids(ann);
  await until(bob, (want) => window.__wb.objects().map((o) => `${o.id}:${o.text}`).sort().join(',') === want, changed);

  // The preview shows the version read-only over the live board, which is unchanged under it.
  await item.click();
  const preview = ann.locator('[data-testid="history-preview"]');
  await preview.waitFor();
  await preview.locator('[data-id="h-b"]').waitFor();
  assert.match(await preview.locator('[data-id="h-a"]').textContent(), /Alpha/);
  assert.equal(await preview.locator('[data-id="h-c"]').count(), 0);
  assert.equal(await ids(ann), changed);
  await screenshot(ann, 'history-preview');
  await ann.click('[data-testid="history-back"]');
  await preview.waitFor({ state: 'detached' });

  // Restore: one command, seen by both.
  const seq = await ann.evaluate(() => window.__wb.seq);
  await item.click();
  await ann.click('[data-testid="history-restore"]');
  await preview.waitFor({ state: 'detached' });
  for (const p of [ann, bob]) {
    await until(p, (want) => window.__wb.objects().map((o) => `${o.id}:${o.text}`).sort().join(',') === want, atVersion);
  }
  assert.equal(await ann.evaluate(() => window.__wb.seq), seq + 1, 'the restore is one command');

  // One Ctrl+Z brings the board back to what it was before the restore, for everyone.
  await ann.click('[data-testid="history-open"]');
  await ann.locator('[data-testid="stage"]').focus();
  await ann.keyboard.press('Control+z');
  for (const p of [ann, bob]) {
    await until(p, (want) => window.__wb.objects().map((o) => `${o.id}:${o.text}`).sort().join(',') === want, changed);
  }

  // A viewer looks at versions but cannot restore.
  const vic = await openBoard(browser, server, board, { user: 'vic', name: 'Vic', role: 'viewer' });
  await vic.click('[data-testid="history-open"]');
  await vic.locator('[data-testid="history-item"]').first().click();
  await vic.locator('[data-testid="history-preview"]').waitFor();
  assert.equal(await vic.locator('[data-testid="history-restore"]').isVisible(), false);
  assert.equal(await vic.locator('[data-testid="history-save"]').isVisible(), false);

  for (const p of [ann, bob, vic]) assert.deepEqual(p.problems, []);
});

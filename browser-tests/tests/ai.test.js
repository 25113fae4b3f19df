// The AI surfaces: command bar, chat with suggestion chips, question bar, PLAN/BUILD (UI-AI-*).
//
// UI-AI-1 and UI-AI-2 run against the server's real agent (template router, offline planner).
// UI-AI-3..5 feed server messages to the page directly, to cover every schema form and state.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBoard,
  until,
  objects,
  screenshot,
  commandBar,
  aiOutcome,
  sleep,
  useServerAndBrowser,
} from '../lib/harness.js';

let server;
let browser;

useServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

const SWOT = ['Strengths', 'Weaknesses', 'Opportunities', 'Threats'];

/** True in the page once four SWOT frames each hold at least one note. */
function swotReady(titles) {
  const objs = window.__wb.objects();
  const frames = objs.filter((o) => o.kind === 'frame' && titles.includes(o.text));
  if (frames.length !== 4) return false;
  return frames.every((f) => objs.some((o) => o.kind === 'note' && o.parent === f.id));
}

/** Keeps the page's AI messages off the wire (recorded instead): these tests play the server. */
async function offline(page) {
  await page.evaluate(() => {
    window.__fake = [];
    window.__wb.app.send = (m) => {
      window.__fake.push(m);
      return true;
    };
  });
}

function fakeSent(page) {
  return page.evaluate(() => window.__fake.slice());
}

const NOT_IMPLEMENTED = 'the server answered the AI command with not_implemented';

test('UI-AI-1 Ctrl+K "create a SWOT analysis for a coffee shop" draws four frames with notes; one Ctrl+Z removes them all', async (t) => {
  const page = await openBoard(browser, server, 'ai-swot', { user: 'ann', name: 'Ann' });
  await commandBar(page, 'create a SWOT analysis for a coffee shop');
  const sent = (await page.evaluate(() => window.__wb.sent())).find((m) => m.type === 'ai');
  assert.equal(sent.text, 'create a SWOT analysis for a coffee shop');
  assert.ok(Array.isArray(sent.selection));
  for (const k of ['x', 'y', 'w', 'h']) assert.equal(typeof sent.viewport[k], 'number');
  assert.ok(sent.id);

  const outcome = await aiOutcome(page, swotReady, SWOT);
  assert.notEqual(outcome, 'not_implemented', NOT_IMPLEMENTED);
  // Rendered: four frames with their titles, notes inside.
  for (const title of SWOT) {
    await page.locator('[data-kind="frame"] [data-testid="frame-title"]', { hasText: title }).waitFor();
  }
  assert.ok((await page.locator('[data-kind="note"]').count()) >= 4);
  // The reply shows (with Show and Undo), then fades after about 6 seconds.
  const reply = page.locator('[data-testid="command-reply"]');
  await reply.waitFor({ state: 'visible' });
  assert.ok((await reply.locator('[data-testid="reply-text"]').textContent()).length > 0);
  await screenshot(page, 'ai-swot');
  await page.waitForSelector('[data-testid="command-reply"][data-state="faded"]', { state: 'attached', timeout: 12000 });

  // Escape closes the bar and gives the keyboard back to the board; one undo removes the batch.
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="command-bar"]', { state: 'hidden' });
  await page.keyboard.press('Control+z');
  await until(page, () => window.__wb.objects().length === 0, null, 10000);
  // The view redraws on the next animation frame.
  await until(page, () => document.querySelectorAll('[data-kind="frame"], [data-kind="note"]').length === 0, null, 5000);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-AI-2 plan mode: a planned reply, a question bar whose "Accept & Build" switches to BUILD and applies the batch', async (t) => {
  const page = await openBoard(browser, server, 'ai-plan', { user: 'pat', name: 'Pat' });
  await page.click('[data-testid="chat-toggle"]');
  await page.click('[data-testid="mode-plan"]');
  const setMode = (await page.evaluate(() => window.__wb.sent())).find((m) => m.type === 'set_mode');
  assert.deepEqual(setMode, { type: 'set_mode', mode: 'plan' });
  await commandBar(page, 'create a SWOT analysis for a coffee shop');
  const outcome = await aiOutcome(
    page,
    () => document.querySelector('[data-testid="question-bar"]:not([hidden]) [data-testid="question-button"]'),
    null,
  );
  assert.notEqual(outcome, 'not_implemented', NOT_IMPLEMENTED);
  await page.keyboard.press('Escape');
  // The plan is previewed; nothing is on the board yet.
  await page.locator('[data-testid="chat-ai"][data-outcome="planned"]').waitFor();
  assert.equal((await objects(page)).length, 0);
  const buttons = await page.locator('[data-testid="question-bar"] [data-testid="question-button"]').allTextContents();
  assert.deepEqual(buttons, ['Accept & Build', 'Keep Planning']);
  await screenshot(page, 'ai-plan-question');

  await page.click('[data-testid="question-bar"] [data-testid="question-button"]:has-text("Accept & Build")');
  const answer = (await page.evaluate(() => window.__wb.sent())).find((m) => m.type === 'answer');
  // The button's value, not its label (seed 002's {label, value, variant} buttons).
  assert.equal(answer.answers.approve, true);
  await page.waitForSelector('[data-testid="mode-build"][aria-checked="true"]');
  await until(page, swotReady, SWOT, 20000);
  await page.locator('[data-testid="chat-ai"][data-outcome="executed"]').waitFor();
  assert.ok(await page.locator('[data-testid="question-bar"]').isHidden());
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-AI-3 command bar: Ctrl+K opens focused, Escape closes, the reply fades after 3 s, ai_status shows a spinner', async () => {
  const page = await openBoard(browser, server, 'ai-bar', { user: 'cy', name: 'Cy' });
  await offline(page);
  await page.locator('[data-testid="stage"]').focus();
  await page.keyboard.press('Control+k');
  await page.waitForSelector('[data-testid="command-input"]:focus');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="command-bar"]', { state: 'hidden' });
  assert.equal(await page.evaluate(() => document.activeElement.id), 'stage');
  // Meta+K works as well (macOS).
  await page.keyboard.press('Meta+k');
  await page.waitForSelector('[data-testid="command-input"]:focus');

  // Status and reply, as the server would send them.
  await page.evaluate(() => window.__wb.receive({ type: 'ai_status', id: 'x1', state: 'queued' }));
  assert.ok(await page.evaluate(() => window.__wb.app.ai.jobs.size === 0)); // unknown ids are ignored
  const id = await page.evaluate(() => window.__wb.app.ai.ask('make three notes'));
  await page.evaluate((i) => window.__wb.receive({ type: 'ai_status', id: i, state: 'running', extra: 1 }), id);
  await page.waitForSelector('[data-testid="ai-spinner"][data-state="running"]');
  await page.evaluate(
    (i) =>
      window.__wb.receive({
        type: 'ai_result',
        id: i,
        outcome: 'executed',
        message: 'Created 3 notes.',
        created: [],
        suggestions: [],
        meta: { route: 'planner', latency_ms: 3, steps: 1 },
        future_field: true,
      }),
    id,
  );
  await page.waitForSelector('[data-testid="ai-spinner"]', { state: 'hidden' });
  const reply = page.locator('[data-testid="command-reply"]');
  await reply.waitFor({ state: 'visible' });
  assert.equal(await reply.textContent(), 'Created 3 notes.'); // no actions: nothing was made
  const t0 = Date.now();
  await page.waitForSelector('[data-testid="command-reply"][data-state="faded"]', { state: 'attached', timeout: 6000 });
  const took = Date.now() - t0;
  assert.ok(took > 2000 && took < 5000, `faded after ${took} ms`);
  await page.keyboard.press('Escape');
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-AI-4 chat: replies with suggestion chips; a chip sends its text as a new ai; planned replies render the plan (UI-AI-7)', async () => {
  const page = await openBoard(browser, server, 'ai-chat', { user: 'di', name: 'Di' });
  await offline(page);
  await page.click('[data-testid="chat-toggle"]');
  await page.fill('[data-testid="chat-input"]', 'connect them');
  await page.keyboard.press('Enter');
  const first = (await fakeSent(page)).filter((m) => m.type === 'ai').pop();
  assert.equal(first.text, 'connect them');
  await page.evaluate(
    (i) =>
      window.__wb.receive({
        type: 'ai_result',
        id: i,
        outcome: 'clarification',
        message: 'Which objects should I connect?',
        suggestions: ['connect the two yellow notes', 'connect all notes in a row'],
        meta: { route: 'planner', latency_ms: 1, steps: 0 },
        error: { category: 'no_understand', message: 'Which objects should I connect?' },
      }),
    first.id,
  );
  const chips = page.locator('[data-testid="suggestion-chip"]');
  assert.deepEqual(await chips.allTextContents(), ['connect the two yellow notes', 'connect all notes in a row']);
  await chips.first().click();
  const second = (await fakeSent(page)).filter((m) => m.type === 'ai').pop();
  assert.equal(second.text, 'connect the two yellow notes');
  assert.notEqual(second.id, first.id);
  assert.equal(await page.locator('[data-testid="chat-user"]').count(), 2);

  // A planned reply with a plan document: rendered markdown, its HTML shown as text.
  await page.evaluate(
    (i) =>
      window.__wb.receive({
        type: 'ai_result',
        id: i,
        outcome: 'planned',
        message: 'Here is the plan.',
        suggestions: [],
        meta: { route: 'llm', latency_ms: 10, steps: 2 },
        plan: { path: '/plans/connect.plan', markdown: '# Plan\n- [ ] connect <b>A</b> to B' },
      }),
    second.id,
  );
  const plan = page.locator('[data-testid="plan-preview"]');
  await plan.waitFor();
  assert.equal(await plan.locator('h3').textContent(), 'Plan');
  assert.equal(await plan.locator('ul.md-checklist li').textContent(), ' connect <b>A</b> to B');
  assert.equal(await plan.locator('input[type="checkbox"]').count(), 1);
  assert.equal(await plan.locator('b').count(), 0, 'HTML in the markdown is shown as text');
  assert.doesNotMatch(await page.locator('[data-testid="chat-log"]').textContent(), /\/plans\//);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test('UI-AI-5 question bar: buttons send their label; forms follow the JSON Schema; PLAN/BUILD follows mode_changed', async () => {
  const page = await openBoard(browser, server, 'ai-questions', { user: 'qa', name: 'Q' });
  await offline(page);
  // Buttons: the label is the answer.
  await page.evaluate(() =>
    window.__wb.receive({
      type: 'question',
      question_id: 'q1',
      created_at: 1,
      questions: [
        { name: 'approve', question: 'Build it?', schema: { type: 'boolean' }, buttons: ['Accept & Build', 'Keep Planning'] },
      ],
    }),
  );
  await page.waitForSelector('[data-testid="chat-panel"]:not([hidden])');
  await page.click('[data-testid="question-button"]:has-text("Keep Planning")');
  let sent = (await fakeSent(page)).filter((m) => m.type === 'answer').pop();
  assert.deepEqual(sent, { type: 'answer', question_id: 'q1', answers: { approve: 'Keep Planning' } });
  assert.ok(await page.locator('[data-testid="question-bar"]').isHidden());

  // A form: boolean → switch, enum → radios, pattern → checked text, array of enum → checkboxes,
  // object → fieldset.
  await page.evaluate(() =>
    window.__wb.receive({
      type: 'question',
      question_id: 'q2',
      created_at: 2,
      questions: [
        { name: 'confirm', question: 'Proceed?', schema: { type: 'boolean' } },
        { name: 'env', question: 'Which environment?', schema: { type: 'string', enum: ['dev', 'staging', 'prod'] } },
        { name: 'branch', question: 'Branch name?', schema: { type: 'string', pattern: '^[a-z0-9-]+$', minLength: 3 } },
        {
          name: 'parts',
          question: 'Which parts?',
          schema: { type: 'array', items: { type: 'string', enum: ['frontend', 'backend', 'docs'] }, minItems: 1 },
        },
        {
          name: 'endpoint',
          question: 'Endpoint?',
          schema: {
            type: 'object',
            properties: {
              path: { type: 'string', pattern: '^/[a-z/]+$' },
              method: { type: 'string', enum: ['GET', 'POST'] },
              auth: { type: 'boolean', default: true },
            },
            required: ['path', 'method'],
          },
        },
      ],
    }),
  );
  const bar = page.locator('[data-testid="question-bar"]');
  await bar.waitFor();
  assert.equal(await bar.locator('[data-testid="q-boolean"][role="switch"]').count(), 2);
  assert.equal(await bar.locator('[data-testid="q-radio"]').count(), 2);
  assert.equal(await bar.locator('[data-testid="q-checkboxes"] input[type="checkbox"]').count(), 3);
  assert.equal(await bar.locator('[data-testid="q-object"]').count(), 1);
  await screenshot(page, 'question-form');

  await bar.locator('[data-name="confirm"] [role="switch"]').check();
  await bar.locator('[data-name="env"] input[value="staging"]').check();
  await bar.locator('[data-name="branch"] input').fill('Bad Name');
  await bar.locator('[data-name="parts"] input[value="backend"]').check();
  await bar.locator('[data-prop="path"] input').fill('/api/items');
  await bar.locator('[data-prop="method"] input[value="POST"]').check();
  await bar.locator('[data-testid="question-submit"]').click();
  // The pattern check holds the answer back.
  await until(page, () => /match/.test(document.querySelector('[data-testid="question-error"]').textContent));
  assert.equal((await fakeSent(page)).filter((m) => m.question_id === 'q2').length, 0);
  await bar.locator('[data-name="branch"] input').fill('feature-x');
  await bar.locator('[data-testid="question-submit"]').click();
  sent = (await fakeSent(page)).filter((m) => m.type === 'answer').pop();
  assert.deepEqual(sent, {
    type: 'answer',
    question_id: 'q2',
    answers: {
      confirm: true,
      env: 'staging',
      branch: 'feature-x',
      parts: ['backend'],
      endpoint: { path: '/api/items', method: 'POST', auth: true },
    },
  });

  // The mode toggle follows mode_changed and the welcome's mode.
  await page.evaluate(() => window.__wb.receive({ type: 'mode_changed', mode: 'plan', plan_file: '/plans/x.plan' }));
  await page.waitForSelector('[data-testid="mode-plan"][aria-checked="true"]');
  await page.evaluate(() => window.__wb.receive({ type: 'mode_changed', mode: 'build' }));
  await page.waitForSelector('[data-testid="mode-build"][aria-checked="true"]');
  // Unknown message types and fields are ignored.
  await page.evaluate(() => window.__wb.receive({ type: 'something_new', x: 1 }));
  await sleep(50);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

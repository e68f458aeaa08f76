/**
 * Where a session view opens: at the start of its newest turn — the user message that began it
 * at the top of the message pane, its header and text fully in view, with the answer below it —
 * not at the bottom of a long answer with the turn's start (and the newest message's header)
 * scrolled away above.
 * @module
 */
import type { Locator, Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Message } from '../../../src/message/message.js';
import { Session } from '../../../src/session/session.js';
import { SEEDED } from '../seed.js';
import { until, type WebSuite } from '../web-suite.js';

interface Box {
  readonly top: number;
  readonly bottom: number;
}

async function box(locator: Locator): Promise<Box | undefined> {
  const found = await locator.boundingBox();
  return found === null ? undefined : { top: found.y, bottom: found.y + found.height };
}

/** Where `seq`'s row and the pane stand, and whether the row is wholly in the pane, at its top. */
async function placeOf(page: Page, selector: string): Promise<{ inView: boolean; atTop: boolean }> {
  const pane = await box(page.getByTestId('messages'));
  const row = (await page.locator(selector).count()) === 0 ? undefined : await box(page.locator(selector));
  if (pane === undefined || row === undefined) return { inView: false, atTop: false };
  const inView = row.top >= pane.top && row.bottom <= pane.bottom;
  // The pane's border and the row's padding stand between them: a few pixels.
  return { inView, atTop: inView && row.top - pane.top <= 8 };
}

/** Registers the specs on `suite`'s browser. */
export function openAtTurnSpecs(suite: WebSuite): void {
  it('opens a session at the start of its newest turn: its user message at the top, in full, the answer’s header below it', async () => {
    const steps = Array.from({ length: 90 }, (_, i) => `Step ${i + 1}: check the heat pump's setting number ${i + 1}.`);
    await suite.tenantA.save(
      Session.create({
        id: 'long-answer',
        messages: [
          Message.user('What is a heat pump?'),
          Message.assistant('A pump that moves heat.'),
          Message.user('How do I set mine up, step by step?'),
          Message.assistant(steps.join('\n')),
        ],
      }),
    );
    const page = await suite.loggedIn();
    await suite.openSession(page, 'long-answer');
    const question = '[data-testid=message][data-seq="3"]';
    await until('the newest turn at the top', async () => (await placeOf(page, question)).atTop);
    const answerHead = '[data-testid=message][data-seq="4"] .msg-head';
    expect((await placeOf(page, answerHead)).inView).toBe(true);
    // And it stays there once every row in view is measured.
    await page.waitForTimeout(500);
    expect(await placeOf(page, question)).toEqual({ inView: true, atTop: true });

    // A turn shorter than the pane: the pane shows its end, the turn's first message in full.
    await suite.openSession(page, SEEDED.research);
    const last = (await page.evaluate(
      `fetch('/sessions/${SEEDED.research}/messages?limit=20').then((r) => r.json())`,
    )) as { messages: Array<{ seq: number; role: string }> };
    const start = last.messages.filter((message) => message.role === 'user').at(-1)?.seq;
    await until(
      'the newest turn’s first message in view',
      async () => (await placeOf(page, `[data-testid=message][data-seq="${start}"]`)).inView,
    );
    await page.close();
  });
}

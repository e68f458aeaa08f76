/**
 * A LangGraph thread's page (the thread built with LangGraph's own APIs: turns, a fork from an
 * earlier checkpoint, an edit by message id): it opens on the thread at its newest checkpoint, as
 * `getState` holds it, not on the conversation's append log; the replaced and branch-only messages
 * are listed and marked; a toggle shows the full log; an older checkpoint can be shown.
 * @module
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { buildForkedThread } from '../../adapters/langgraph/forked-thread.js';
import { until, type WebSuite } from '../web-suite.js';

/** The texts of the thread's message rows, in order. */
function threadTexts(page: Page): Promise<string[]> {
  return page
    .locator('[data-testid=thread-view] .thread-messages [data-testid=message] .text')
    .evaluateAll((nodes) => nodes.map((node) => node.textContent ?? ''));
}

/** Registers the specs on `suite`'s browser. */
export function langGraphThreadSpecs(suite: WebSuite): void {
  it('shows a LangGraph thread at its current checkpoint, marks what it replaced, and toggles to the full log', async () => {
    const thread = await buildForkedThread(suite.tenantA);
    const contents = thread.state.messages.map((message) => String(message.content));
    const page = await suite.loggedIn();
    await suite.openSession(page, thread.conversation);
    await page.getByTestId('thread-view').waitFor();
    expect(await threadTexts(page)).toEqual(contents);
    expect(await page.getByTestId('thread-checkpoint').textContent()).toBe(thread.state.checkpointId);
    const note = (await page.getByTestId('thread-note').textContent()) ?? '';
    expect(note).toContain('the newest');
    expect(note).toContain('The conversation holds 11 messages, 5 of them not in this checkpoint');

    // The messages the checkpoint does not hold: the replaced one marked with the one that replaced it.
    await page.locator('[data-testid=thread-elsewhere] summary').click();
    const elsewhere = page.getByTestId('elsewhere-message');
    expect(await elsewhere.count()).toBe(5);
    const replaced = page.locator('[data-testid=elsewhere-message][data-kind=replaced]');
    expect(await replaced.count()).toBe(1);
    expect(await replaced.locator('.text').textContent()).toBe('Plan a trip to Lisbon');
    const nowSeq = await page
      .locator('[data-testid=thread-view] .thread-messages [data-testid=message]')
      .first()
      .getAttribute('data-seq');
    expect(await replaced.locator('.elsewhere-mark').textContent()).toBe(`Replaced: now #${nowSeq} in the thread`);
    expect(await page.locator('[data-testid=elsewhere-message][data-kind=other]').count()).toBe(4);

    // The full log: every message the conversation holds, the abandoned branch too.
    await page.getByTestId('thread-toggle').click();
    await page.getByTestId('messages').waitFor();
    expect(await page.getByTestId('thread-view').count()).toBe(0);
    expect(await page.getByTestId('message-count').textContent()).toBe('11 messages');
    await until('the log shows the abandoned branch', async () =>
      (await page.locator('[data-testid=messages] [data-testid=message] .text').allTextContents()).includes(
        'Three days in May',
      ),
    );
    await page.getByTestId('thread-toggle').click();
    await page.getByTestId('thread-view').waitFor();

    // An older checkpoint: the tip of the branch the fork left.
    await page.locator('[data-testid=thread-checkpoints] summary').click();
    const rows = page.getByTestId('checkpoint');
    expect(await rows.count()).toBe(thread.checkpointCount);
    await page
      .locator(`[data-testid=checkpoint][data-checkpoint-id="${thread.firstBranch.checkpointId}"] button`)
      .click();
    await until(
      'the older checkpoint shown',
      async () => (await page.getByTestId('thread-checkpoint').textContent()) === thread.firstBranch.checkpointId,
    );
    expect(await threadTexts(page)).toEqual(thread.firstBranch.messages.map((message) => String(message.content)));
    expect(await page.getByTestId('thread-note').textContent()).toContain('not the newest');
    await page.getByRole('button', { name: 'Show the newest' }).click();
    await until(
      'the newest checkpoint shown again',
      async () => (await page.getByTestId('thread-checkpoint').textContent()) === thread.state.checkpointId,
    );
    expect(suite.problems).toEqual([]);
    await page.close();
  });
}

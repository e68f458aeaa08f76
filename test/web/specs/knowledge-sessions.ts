/**
 * A user's knowledge session (what active memory's `remember` kept, in a session whose id is a
 * hash of the user's): an internal session, listed only when "Show internal sessions" is ticked,
 * with its kind badge; labelled in the list and in its session view as that user's memory, not
 * titled by its 64-hex id.
 * @module
 */
import { expect, it } from 'vitest';
import { knowledgeSessionId, rememberFor } from '../../../src/active-memory/knowledge.js';
import { until, type WebSuite } from '../web-suite.js';

/** Registers the specs on `suite`'s browser. */
export function knowledgeSessionSpecs(suite: WebSuite): void {
  it("lists a user's knowledge session only when asked, labelled as their memory with its kind, not by its hex id", async () => {
    await rememberFor(suite.tenantA, 'carol', 'Carol prefers aisle seats.');
    const id = knowledgeSessionId('carol');
    const hex = id.slice(-64);
    const page = await suite.loggedIn();
    await page.getByLabel('User').fill('carol');
    const row = page.locator(`[data-testid=session-row][data-session-id="${id}"]`);
    // An internal session: out of the list until "Show internal sessions" is ticked.
    await until('the list of carol, empty', async () => (await page.getByTestId('empty').count()) === 1);
    expect(await row.count()).toBe(0);
    await page.getByLabel('Show internal sessions').check();
    await until(
      'the knowledge session listed alone',
      async () => (await page.getByTestId('session-row').count()) === 1,
    );
    expect(await row.getByTestId('kind-badge').getAttribute('data-kind')).toBe('knowledge');
    expect(await row.getByTestId('kind-badge').textContent()).toMatch(/knowledge/);
    const title = (await row.locator('.session-title').textContent()) ?? '';
    expect(title).not.toContain(hex);
    expect(title).toMatch(/carol/);
    expect(title).toMatch(/memory/i);

    await suite.openSession(page, id);
    const heading = (await page.locator('.session-head h1').textContent()) ?? '';
    expect(heading).not.toContain(hex);
    expect(heading).toMatch(/carol/);
    expect(heading).toMatch(/memory/i);
    await page.close();
  });
}

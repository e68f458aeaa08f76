/**
 * Each message's tokens in the session view: the count the API gives beside the message (the
 * counter of the stats and the chart), shown on its row — for the messages the view opened with,
 * and for one that arrives live.
 * @module
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Message } from '../../../src/message/message.js';
import { SEEDED } from '../seed.js';
import { until, type WebSuite } from '../web-suite.js';

/** The token counts the rows in the page show, by sequence number. */
async function shownCounts(page: Page): Promise<Map<number, string>> {
  const rows = (await page
    .locator('[data-testid=message]')
    .evaluateAll((found) =>
      found.map((row) => [
        Number(row.getAttribute('data-seq')),
        row.querySelector('[data-testid=message-tokens]')?.textContent ?? null,
      ]),
    )) as Array<[number, string | null]>;
  return new Map(rows.filter((row): row is [number, string] => row[1] !== null));
}

/** The API's counts of session `id`'s messages, by sequence number. */
async function apiCounts(page: Page, id: string): Promise<Map<number, number>> {
  const answer = (await page.evaluate(`fetch('/sessions/${id}/messages?limit=10000').then((r) => r.json())`)) as {
    messages: Array<{ seq: number }>;
    tokenCounts: number[];
  };
  return new Map(answer.messages.map((message, i) => [message.seq, answer.tokenCounts[i] as number]));
}

/** Registers the specs on `suite`'s browser. */
export function messageTokenSpecs(suite: WebSuite): void {
  it('shows each message’s tokens on its row, as the API counts them, and those of a message arriving live', async () => {
    const page = await suite.loggedIn();
    await suite.openSession(page, SEEDED.research);
    const expected = await apiCounts(page, SEEDED.research);
    await until('the rows in view', async () => (await page.locator('[data-testid=message]').count()) > 3);
    const shown = await shownCounts(page);
    const rows = await page.locator('[data-testid=message]').count();
    expect(shown.size).toBe(rows);
    for (const [seq, text] of shown) expect(text).toBe(`${expected.get(seq)?.toLocaleString('en-US')} tokens`);

    const live = suite.seeded.chain.at(-1) as string;
    await suite.openSession(page, live);
    await until('the live stream', async () => (await page.getByTestId('live').textContent()) === 'live');
    await suite.tenantA.append(live, [Message.user('How many tokens does this one take?')]);
    await page.getByText('How many tokens does this one take?').waitFor();
    const counts = await apiCounts(page, live);
    const newest = Math.max(...counts.keys());
    await until('the live message’s tokens', async () => (await shownCounts(page)).has(newest));
    expect((await shownCounts(page)).get(newest)).toBe(`${counts.get(newest)?.toLocaleString('en-US')} tokens`);
    await page.close();
  });
}

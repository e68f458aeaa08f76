/**
 * Sessions that are gone, in the browser: after a fork is deleted (the README's `fork` then
 * `delete`), an idle session list sends no request at all — the fork its source still lists is
 * asked for once and shown as gone, never polled — and a session view shows the source of a fork,
 * a link of a continuation chain, or a fork that no longer exists as gone, not as a live link.
 * @module
 */
import type { Page, Request } from 'playwright-core';
import { expect, it } from 'vitest';
import { SessionManager } from '../../../src/manager/session-manager.js';
import { Message } from '../../../src/message/message.js';
import { withForkEntry } from '../../../src/session/fork-log.js';
import { Session } from '../../../src/session/session.js';
import { memoryStore } from '../../../src/stores/memory.js';
import { tenantStore } from '../../../src/tenancy/tenant-store.js';
import { startTestServer } from '../../server/server-harness.js';
import { builtWeb } from '../browser.js';
import { until, type WebSuite } from '../web-suite.js';

/** How long the idle page is watched. */
const IDLE_MS = 3000;

/** The requests `page` sends during `ms` (method and path). */
async function requestsDuring(page: Page, ms: number): Promise<string[]> {
  const sent: string[] = [];
  const record = (request: Request): void => {
    sent.push(`${request.method()} ${new URL(request.url()).pathname}`);
  };
  page.on('request', record);
  await page.waitForTimeout(ms);
  page.off('request', record);
  return sent;
}

/** Registers the specs on `suite`'s browser. */
export function goneSessionSpecs(suite: WebSuite): void {
  it('sends no request from an idle list after a fork is deleted: the gone fork is asked for once and shown as gone', async () => {
    // A store of its own: nothing else on the page, so every request seen is the list's.
    const own = memoryStore();
    const view = tenantStore(own, { tenant: 'tenant-a' });
    // A source whose fork log names a fork that is gone (a delete that could not update its source).
    await view.save(
      Session.create({
        id: 'trip',
        metadata: withForkEntry({}, { sessionId: 'trip-c', createdAt: new Date().toISOString() }),
        messages: [Message.user('Plan a trip to Lisbon'), Message.assistant('When do you leave?')],
      }),
    );
    const server = await startTestServer(own, { web: await builtWeb() });
    try {
      // The README's steps over the API: fork, then delete the fork.
      const [first] = await view.readMessages('trip', { limit: 2 });
      const forked = await server.call('POST', '/sessions/trip/fork', {
        key: server.keys.adminA,
        body: { atMessageId: first?.id, id: 'trip-b' },
      });
      expect(forked.status).toBe(201);
      expect((await server.call('DELETE', '/sessions/trip-b', { key: server.keys.adminA })).status).toBe(204);

      const page = await suite.loggedIn(server);
      // The gone fork is shown once its summary was answered: the first load is done.
      const gone = page.locator('[data-testid=gone-session][data-session-id="trip-c"]');
      await gone.waitFor({ timeout: 10_000 });
      expect(await gone.textContent()).toMatch(/\(gone/);
      expect(await gone.locator('a').count()).toBe(0);
      // From then on the page is idle: nothing is asked again.
      await page.waitForTimeout(500);
      expect(await requestsDuring(page, IDLE_MS)).toEqual([]);
      await page.close();
    } finally {
      await server.close();
      await own.close();
    }
  });

  it('shows the deleted source of a fork, a deleted link of a continuation chain, and a deleted fork as gone: no link', async () => {
    const store = suite.tenantA;
    const manager = new SessionManager({ store, autoSaveIntervalMs: false, ownsStore: false });
    try {
      await store.save(
        Session.create({ id: 'fork-origin', messages: [Message.user('A question'), Message.assistant('An answer')] }),
      );
      const [, answer] = await store.readMessages('fork-origin', { limit: 2 });
      await manager.fork('fork-origin', { atMessageId: answer?.id ?? '', id: 'orphan-fork' });
      await store.save(Session.create({ id: 'chain-start', messages: [Message.user('The first part')] }));
      const successor = (await manager.continueSession('chain-start')).id;
      await store.save(
        Session.create({
          id: 'fork-holder',
          metadata: withForkEntry({}, { sessionId: 'vanished-fork', createdAt: new Date().toISOString() }),
          messages: [Message.user('A session whose fork was deleted')],
        }),
      );
      await store.delete('fork-origin');
      await store.delete('chain-start');

      const page = await suite.loggedIn();
      await suite.openSession(page, 'orphan-fork');
      const source = page.getByTestId('forked-from');
      await until('the source shown as gone', async () => /\(gone/.test((await source.textContent()) ?? ''));
      expect(await source.evaluate((element) => element.tagName)).not.toBe('A');
      expect(await page.locator('a[href*="fork-origin"]').count()).toBe(0);

      await suite.openSession(page, successor);
      const previous = page.getByTestId('continued-from');
      await until('the predecessor shown as gone', async () => /\(gone/.test((await previous.textContent()) ?? ''));
      expect(await previous.evaluate((element) => element.tagName)).not.toBe('A');
      expect(await page.locator('a[href*="chain-start"]').count()).toBe(0);

      await suite.openSession(page, 'fork-holder');
      const fork = page.getByTestId('fork-gone');
      await until('the deleted fork shown as gone', async () => /\(gone/.test((await fork.textContent()) ?? ''));
      expect(await page.locator('a[href*="vanished-fork"]').count()).toBe(0);
      await page.close();
    } finally {
      await manager.close();
    }
  });
}

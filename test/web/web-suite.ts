/**
 * What the browser specs share: one Chromium and one server over a seeded store (tenant A's
 * sessions of `seed.ts`, a 20k-message session, and a session of tenant B's), started once for
 * `browser.test.ts` and the spec modules it runs (`specs/*.ts`), with the helpers they all use: a
 * page logged in through the login form, a session opened, and a wait for a condition.
 * @module
 */
import type { Page } from 'playwright-core';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { startTestServer, type TestServer } from '../server/server-harness.js';
import { builtWeb, startBrowser, type TestBrowser } from './browser.js';
import { seedBrowserSessions, seedLongSession, type Seeded } from './seed.js';

/** Waits until `check` holds (polling), or fails naming `what`. */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The shared browser, server and store; the fields are set by `start` (in a `beforeAll`). */
export class WebSuite {
  store!: SessionStore;
  /** Tenant A's view of the store: the sessions its admin key sees. */
  tenantA!: SessionStore;
  server!: TestServer;
  browser!: TestBrowser;
  seeded!: Seeded;
  /** What the pages reported: a refusal by the Content-Security-Policy, or an uncaught error. */
  readonly problems: string[] = [];

  /** Seeds the store, starts the server (event streams polling every 100 ms) and Chromium. */
  async start(): Promise<void> {
    const web = await builtWeb();
    this.store = memoryStore();
    this.tenantA = tenantStore(this.store, { tenant: 'tenant-a' });
    this.seeded = await seedBrowserSessions(this.tenantA);
    await seedLongSession(this.tenantA, 'long-20k', 20_000);
    await tenantStore(this.store, { tenant: 'tenant-b' }).save(
      Session.create({ id: 'secret-b', messages: [Message.user('tenant B only: the launch date')] }),
    );
    this.server = await startTestServer(this.store, { web, eventPollMs: 100 });
    this.browser = await startBrowser();
  }

  async close(): Promise<void> {
    await this.browser?.close();
    await this.server?.close();
    await this.store?.close();
  }

  /** A fresh page, logged in with tenant A's admin key through the login form (of `target`). */
  async loggedIn(target: TestServer = this.server): Promise<Page> {
    await this.browser.context.clearCookies();
    const page = await this.browser.context.newPage();
    page.on('console', (message) => {
      if (/Content.Security.Policy|Refused to/i.test(message.text())) this.problems.push(message.text());
    });
    page.on('pageerror', (error) => this.problems.push(`uncaught: ${error.message}`));
    await page.goto(`${target.url}/`);
    await page.getByLabel('API key').fill(target.keys.adminA);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.locator('[data-testid=session-row]').first().waitFor();
    return page;
  }

  /** Opens session `id` (of `target`) and waits for its first message row. */
  async openSession(page: Page, id: string, target: TestServer = this.server): Promise<void> {
    await page.goto(`${target.url}/#/s/${encodeURIComponent(id)}`);
    await page.locator(`[data-testid=session-view][data-session-id="${id}"] [data-testid=message]`).first().waitFor();
  }
}

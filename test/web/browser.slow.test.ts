/**
 * The web session browser in a real browser: Debian's Chromium, driven by playwright-core, against
 * `chatstate serve`'s app over loopback with the test keys of two tenants. Logs in with a key,
 * lists, searches, opens a session, expands a tool pair, reads the chart's data points, follows a
 * continuation and a fork (and back to the message it was taken at), groups a chain across the
 * list's pages, sees a live append arrive, keeps script payloads inert, and finds another tenant's
 * session not found. Skipped (with the reason) where Chromium is missing, except under `CI=true`.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionManager } from '../../src/manager/session-manager.js';
import { Message } from '../../src/message/message.js';
import { PAGE_CSP } from '../../src/server/security-headers.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { startTestServer, type TestServer } from '../server/server-harness.js';
import { builtWeb, chromiumMissing } from './browser.js';
import { PAYLOADS, SEEDED, type Seeded } from './seed.js';
import { goneSessionSpecs } from './specs/gone-sessions.js';
import { knowledgeSessionSpecs } from './specs/knowledge-sessions.js';
import { langGraphThreadSpecs } from './specs/langgraph-thread.js';
import { messageTokenSpecs } from './specs/message-tokens.js';
import { openAtTurnSpecs } from './specs/open-at-turn.js';
import { tokenChartSpecs } from './specs/token-chart.js';
import { until, WebSuite } from './web-suite.js';

const missing = chromiumMissing();
const required = process.env.CI === 'true';

if (missing !== undefined && required) {
  describe('the web session browser', () => {
    it('has Chromium to run in (CI=true)', () => {
      throw new Error(`The browser tests must run under CI=true: ${missing}`);
    });
  });
} else {
  describe.skipIf(missing !== undefined)(
    `the web session browser in Chromium${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    () => {
      const suite = new WebSuite();
      let store: SessionStore;
      let tenantA: SessionStore;
      let server: TestServer;
      let seeded: Seeded;

      beforeAll(async () => {
        await suite.start();
        ({ store, tenantA, server, seeded } = suite);
      }, 120_000);

      afterAll(() => suite.close());

      const problems = suite.problems;
      const loggedIn = (target?: TestServer): Promise<Page> => suite.loggedIn(target);
      const openSession = (page: Page, id: string): Promise<void> => suite.openSession(page, id);

      it('serves the page under the strict policy, never cached, and its hashed assets cached for a year', async () => {
        const page = await fetch(`${server.url}/`);
        expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
        expect(page.headers.get('cache-control')).toBe('no-store');
        const html = await page.text();
        const script = /src="\/assets\/([^"]+\.js)"/.exec(html)?.[1];
        expect(script).toMatch(/-[A-Za-z0-9_-]{8}\.js$/);
        const asset = await fetch(`${server.url}/assets/${script}`);
        expect(asset.status).toBe(200);
        expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        // Nothing inline: no script or style element carries code, no element a style attribute.
        expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=/);
      });

      it('logs in with a key, lists, searches, and groups a continuation chain', async () => {
        const page = await loggedIn();
        expect(await page.getByTestId('who').textContent()).toContain('tenant-a');
        const ids = await page
          .locator('[data-testid=session-row]')
          .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id')));
        expect(ids).toEqual(expect.arrayContaining([SEEDED.research, SEEDED.xss, SEEDED.bob, ...seeded.chain]));
        expect(ids).not.toContain('secret-b');
        await page.getByLabel('Search').fill('support');
        await until('the search', async () => (await page.locator('[data-testid=session-row]').count()) === 3);
        const chain = page.locator('[data-testid=chain]');
        expect(await chain.count()).toBe(1);
        expect(
          await chain
            .locator('[data-testid=session-row]')
            .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id'))),
        ).toEqual(seeded.chain);
        await page.getByLabel('Search').fill('');
        await page.getByLabel('User').fill('bob');
        await until('the user filter', async () => {
          const rows = await page
            .locator('[data-testid=session-row]')
            .evaluateAll((found) => found.map((row) => row.getAttribute('data-session-id')));
          return rows.length === 1 && rows[0] === SEEDED.bob;
        });
        await page.close();
      });

      it('opens a session and expands a tool pair: arguments and output pretty-printed', async () => {
        const page = await loggedIn();
        await page.getByLabel('Search').fill('energy');
        await page
          .getByRole('link', { name: /Energy research assistant/ })
          .first()
          .click();
        await page.locator('[data-testid=tool-pair]').first().waitFor();
        const pair = page.locator('[data-testid=tool-pair]').last();
        const toggle = pair.locator('button');
        expect(await toggle.getAttribute('aria-expanded')).toBe('false');
        await toggle.click();
        expect(await toggle.getAttribute('aria-expanded')).toBe('true');
        const args = await pair.getByTestId('tool-arguments').textContent();
        const output = await pair.getByTestId('tool-output').textContent();
        expect(args).toMatch(/^\{\n {2}"url": "https:\/\/example\.org\//);
        expect(output).toMatch(/^\{\n {2}"url": /);
        // The result message folds into its call: shown as a line pointing to it.
        expect(await page.locator('.msg.folded').count()).toBeGreaterThan(0);
        // The raw provider part is shown as such, the summary is marked.
        expect(await page.getByTestId('raw-part').count()).toBeGreaterThan(0);
        // The summary stands near the top: the virtualized list shows it once scrolled there.
        await page.getByTestId('messages').focus();
        await page.keyboard.press('Home');
        await page.getByTestId('summary-mark').waitFor();
        await page.close();
      });

      it('draws the token chart from the timeline: its data points, compactions and a jump to a turn', async () => {
        const page = await loggedIn();
        await openSession(page, SEEDED.research);
        await page.locator('[data-testid=chart-data] tbody tr').first().waitFor({ state: 'attached' });
        const rows = await page.locator('[data-testid=chart-data] tbody tr').evaluateAll((found) =>
          found.map((row) => ({
            x: Number(row.getAttribute('data-x')),
            kind: row.getAttribute('data-kind'),
            index: Number(row.getAttribute('data-index')),
            total: Number(row.querySelector('[data-total]')?.textContent),
          })),
        );
        const timeline = (await page.evaluate(async () =>
          (await fetch('/sessions/research-agent/timeline')).json(),
        )) as {
          points: Array<{ x: number; kind: string; index: number; tokens: Record<string, number> }>;
        };
        expect(rows).toEqual(
          timeline.points.map((point) => ({
            x: point.x,
            kind: point.kind,
            index: point.index,
            total: Object.values(point.tokens).reduce((sum, value) => sum + value, 0),
          })),
        );
        // Each compaction is a drop: the point before it holds more than the one after it.
        const kinds = rows.map((row) => row.kind);
        const drops = rows.filter((row, i) => row.kind === 'after-compaction' && (rows[i - 1]?.total ?? 0) > row.total);
        expect(drops.length).toBe(kinds.filter((kind) => kind === 'after-compaction').length);
        expect(drops.length).toBeGreaterThanOrEqual(3);
        const marks = await page.locator('[data-testid=chart-marks] li').allTextContents();
        expect(marks.filter((mark) => /^Compaction \(tokenLimit\).*\d → \d/.test(mark)).length).toBeGreaterThan(0);
        expect(marks.some((mark) => mark.startsWith('Compaction (summarize)'))).toBe(true);
        // Hover a point: the panel shows that turn; click: the list jumps to it.
        const canvas = page.locator('.chart-canvas .u-over');
        const box = await canvas.boundingBox();
        if (box === null) throw new Error('no chart');
        await page.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2);
        await until('the hover panel', async () =>
          /Turn \d+|compaction/.test((await page.getByTestId('chart-hover').textContent()) ?? ''),
        );
        await page.mouse.click(box.x + box.width * 0.1, box.y + box.height / 2);
        await page.locator('.msg.target').waitFor();
        // By keyboard: the newest point is the last turn; its first message shows under the chart.
        await page.locator('.chart-canvas').focus();
        await page.keyboard.press('End');
        await page.getByTestId('chart-hover-preview').waitFor();
        expect(await page.getByTestId('chart-hover-preview').textContent()).toContain(
          'Turn 30: what do recent studies say',
        );
        await page.keyboard.press('Enter');
        await until(
          'the jump to the last turn',
          async () => (await page.locator('.msg.target').textContent())?.includes('Turn 30') === true,
        );
        await page.close();
      });

      it('follows a continuation chain both ways', async () => {
        const page = await loggedIn();
        const [first, second, third] = seeded.chain as [string, string, string];
        await openSession(page, first);
        await page.getByTestId('continued-to').click();
        await page.locator(`[data-testid=session-view][data-session-id="${second}"]`).waitFor();
        await page.getByTestId('continued-to').click();
        await page.locator(`[data-testid=session-view][data-session-id="${third}"]`).waitFor();
        await page.getByTestId('continued-from').click();
        await page.locator(`[data-testid=session-view][data-session-id="${second}"]`).waitFor();
        await page.getByTestId('chain-nav').waitFor();
        // The fork links back to its source.
        await openSession(page, SEEDED.fork);
        await page.getByTestId('forked-from').click();
        await page.locator(`[data-testid=session-view][data-session-id="${SEEDED.research}"]`).waitFor();
        await page.close();
      });

      it('lists a session’s forks as labelled links, follows one by keyboard, and comes back to the message it was taken at', async () => {
        const page = await loggedIn();
        await openSession(page, SEEDED.research);
        const fork = page.getByRole('link', { name: `Fork ${SEEDED.fork}` });
        await fork.focus();
        await page.keyboard.press('Enter');
        await page.locator(`[data-testid=session-view][data-session-id="${SEEDED.fork}"]`).waitFor();
        const back = page.getByTestId('forked-from');
        const seq = Number(/at message #(\d+)/.exec((await back.textContent()) ?? '')?.[1]);
        expect(seq).toBeGreaterThan(1);
        await back.click();
        // The source opens at that message, marked.
        await page
          .locator(`[data-testid=session-view][data-session-id="${SEEDED.research}"] .msg.target[data-seq="${seq}"]`)
          .waitFor();
        await page.goBack();
        await page.locator(`[data-testid=session-view][data-session-id="${SEEDED.fork}"]`).waitFor();
        await page.goBack();
        await page.getByRole('link', { name: `Fork ${SEEDED.fork}` }).waitFor();
        await page.close();
      });

      it('shows a continuation chain whose members are on different pages of the list as one group, each member once', async () => {
        // A store of its own: the fillers would push the other tests' sessions off the first page.
        const paged = memoryStore();
        const view = tenantStore(paged, { tenant: 'tenant-a' });
        const manager = new SessionManager({ store: view, autoSaveIntervalMs: false, ownsStore: false });
        await view.save(Session.create({ id: 'paged-root', messages: [Message.user('The first part of a story')] }));
        const successor = (await manager.continueSession('paged-root')).id;
        await manager.close();
        // Newer than the root (and its link), older than the successor's last message: the list's first page ends before the root.
        const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
        await pause();
        for (let i = 0; i < 55; i++)
          await view.save(Session.create({ id: `filler-${i}`, messages: [Message.user(`Filler ${i}`)] }));
        await pause();
        await view.append(successor, [Message.user('The story goes on')]);
        const other = await startTestServer(paged, { web: await builtWeb() });
        try {
          const page = await loggedIn(other);
          const firstPage = (await page.evaluate(async () => (await fetch('/sessions?limit=50')).json())) as {
            sessions: Array<{ id: string }>;
          };
          const listed = firstPage.sessions.map((row) => row.id);
          expect(listed).toContain(successor);
          expect(listed).not.toContain('paged-root');
          const members = () =>
            page
              .locator('[data-testid=chain] [data-testid=session-row]')
              .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id')));
          await until('the whole chain in one group', async () => (await members()).length === 2);
          expect(await members()).toEqual(['paged-root', successor]);
          expect(await page.locator('[data-testid=chain]').count()).toBe(1);
          // The root's page loads: the root stays in its group, shown once.
          await page.getByRole('button', { name: 'More sessions' }).click();
          await until('the second page', async () => (await page.locator('[data-testid=session-row]').count()) === 57);
          expect(await page.locator('[data-session-id="paged-root"]').count()).toBe(1);
          expect(await members()).toEqual(['paged-root', successor]);
          await page.close();
        } finally {
          await other.close();
          await paged.close();
        }
      });

      it('shows a message another writer appends, live', async () => {
        const page = await loggedIn();
        const last = seeded.chain.at(-1) as string;
        await openSession(page, last);
        await until('the live stream', async () => (await page.getByTestId('live').textContent()) === 'live');
        const before = await page.getByTestId('message-count').textContent();
        await tenantA.append(last, [Message.user('A live message from another writer')]);
        await page.getByText('A live message from another writer').waitFor({ timeout: 10_000 });
        expect(await page.getByTestId('message-count').textContent()).not.toBe(before);
        await page.close();
      });

      it('keeps <script> and onerror payloads in messages inert', async () => {
        const page = await loggedIn();
        const dialogs: string[] = [];
        page.on('dialog', (dialog) => {
          dialogs.push(dialog.message());
          void dialog.dismiss();
        });
        await openSession(page, SEEDED.xss);
        await page.locator('[data-testid=tool-pair] button').click();
        await page.locator('[data-testid=raw-part] summary').click();
        await page.getByText(PAYLOADS[0], { exact: false }).first().waitFor();
        // Evaluated in the page (a string: these tests are typed for Node, without the DOM's names).
        const state = await page.evaluate(`({
          xss: typeof window.__xss,
          injected: document.querySelectorAll('img, svg:not(.u-over svg), iframe, [onerror], [onload]').length,
          scripts: document.scripts.length,
        })`);
        expect(state).toEqual({ xss: 'undefined', injected: 0, scripts: 1 });
        expect(dialogs).toEqual([]);
        // The payloads are shown as the text they are.
        const text = (await page.getByTestId('session-view').textContent()) ?? '';
        for (const payload of PAYLOADS) expect(text).toContain(payload);
        await page.close();
      });

      it("shows another tenant's session as not found, and the API answers 404", async () => {
        const page = await loggedIn();
        for (const id of ['secret-b', 'tenant-b.secret-b']) {
          await page.goto(`${server.url}/#/s/${id}`);
          await page.getByTestId('not-found').waitFor();
          const status = await page.evaluate(
            async (path) => (await fetch(path)).status,
            `/sessions/${encodeURIComponent(id)}/summary`,
          );
          expect(status).toBe(404);
        }
        await page.close();
      });

      it('opens a 20k-message session with a bounded number of rows in the page, and reaches its first message', async () => {
        const page = await loggedIn();
        await openSession(page, 'long-20k');
        expect(await page.getByTestId('message-count').textContent()).toBe('20,000 messages');
        expect(await page.locator('.vrow').count()).toBeLessThan(80);
        await page.locator('[data-testid=token-chart] table').waitFor({ state: 'attached' });
        await page.getByTestId('messages').focus();
        await page.keyboard.press('Home');
        await page.locator('[data-testid=message][data-seq="1"]').waitFor();
        expect(await page.locator('.vrow').count()).toBeLessThan(80);
        await page.close();
      });

      it('switches to dark mode and back to the system theme from the toggle', async () => {
        const page = await loggedIn();
        const toggle = page.getByRole('button', { name: /^Theme:/ });
        await toggle.click();
        expect(await page.evaluate('document.documentElement.dataset.theme ?? null')).toBe('dark');
        await toggle.click();
        await toggle.click();
        expect(await page.evaluate('document.documentElement.dataset.theme ?? null')).toBeNull();
        await page.close();
      });

      goneSessionSpecs(suite);
      tokenChartSpecs(suite);
      knowledgeSessionSpecs(suite);
      messageTokenSpecs(suite);
      openAtTurnSpecs(suite);
      langGraphThreadSpecs(suite);

      it('broke no rule of the Content-Security-Policy and threw nothing, on any page above', () => {
        expect(problems).toEqual([]);
      });

      it('needs no login from a server without keys (loopback only)', async () => {
        const open = await startTestServer(store, { withKeys: false, web: await builtWeb() });
        try {
          const page = await suite.browser.context.newPage();
          await page.goto(`${open.url}/`);
          await page.locator('[data-testid=session-row]').first().waitFor();
          expect(await page.getByLabel('API key').count()).toBe(0);
          await page.close();
        } finally {
          await open.close();
        }
      });
    },
  );
}

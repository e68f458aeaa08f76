/**
 * `npm run screenshots`: the README's pictures of the web session browser — the list, a session,
 * and its token chart — taken in Chromium against the seeded sessions (and alice's knowledge
 * session, which active memory keeps), into `docs/`.
 */
import { fileURLToPath } from 'node:url';
import { rememberFor } from '../../src/active-memory/knowledge.js';
import { startServer } from '../../src/server/node.js';
import { memoryStore } from '../../src/stores/memory.js';
import { builtWeb, startBrowser } from './browser.js';
import { SEEDED, seedBrowserSessions } from './seed.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));

const store = memoryStore();
await seedBrowserSessions(store);
await rememberFor(store, 'alice', 'Alice reads studies from the last five years only.');
const server = await startServer({ store, port: 0, web: await builtWeb(), log: () => undefined });
const browser = await startBrowser({ width: 1280, height: 1180 });
try {
  const page = await browser.context.newPage();
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${server.url}/`);
  await page.locator('[data-testid=chain]').first().waitFor();
  await page.screenshot({ path: `${DOCS}web-list.png` });

  await page.goto(`${server.url}/#/s/${SEEDED.research}`);
  await page.locator('[data-testid=stats]').waitFor();
  await page.locator('[data-testid=tool-pair] button').last().click();
  await page.locator('[data-testid=tool-output]').waitFor();
  await page.waitForTimeout(300);
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: `${DOCS}web-session.png` });

  const chart = page.getByTestId('token-chart');
  const canvas = await page.locator('.chart-canvas .u-over').boundingBox();
  if (canvas !== null) await page.mouse.move(canvas.x + canvas.width * 0.83, canvas.y + canvas.height * 0.5);
  await page.getByTestId('chart-hover-preview').waitFor();
  await chart.screenshot({ path: `${DOCS}web-token-chart.png` });
  console.log(`wrote ${DOCS}web-list.png, web-session.png, web-token-chart.png`);
} finally {
  await browser.close();
  await server.close();
  await store.close();
}

/**
 * The web session browser in Chromium: opening a 100,000-message session against a 1,000-message
 * one, both in the embedded file store behind `chatstate serve`'s app. Measured from the start of
 * the page's navigation to the first message on screen (a MutationObserver the page is given
 * before its own scripts), in rounds that alternate the two sizes; then to the token chart (the
 * server counts the whole history for it), and the page's JS heap once the view has settled (after
 * a garbage collection). Target: the first message of the 100k session within 2× of the 1k one's.
 * @module
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startServer } from '../src/server/node.js';
import type { SessionStore } from '../src/store/session-store-types.js';
import { openStore } from '../src/stores/open-store.js';
import { builtWeb, chromiumMissing, startBrowser } from '../test/web/browser.js';
import { seedLongSession } from '../test/web/seed.js';
import { formatMs, formatRatio, median, verdict, type SuiteReport } from './harness.js';
import { benchDir, formatBytes, removeBenchDir } from './store-fixtures.js';

const SIZES = [1_000, 100_000] as const;
const WARMUP_ROUNDS = 1;
const ROUNDS = 5;
const TARGET_RATIO = 2;

/** Records when the first message row appears (installed before the page's scripts run). */
const FIRST_MESSAGE_PROBE = `
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid=message]') !== null) {
      window.__firstMessageMs = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
`;

/** One opening of a session: ms to its first message and to its chart, and the settled heap. */
interface Opening {
  readonly firstMessageMs: number;
  readonly chartMs: number;
  readonly heapBytes: number;
}

async function open(page: Page, url: string, id: string): Promise<Opening> {
  await page.goto('about:blank');
  await page.goto(`${url}/#/s/${id}`);
  // Evaluated in the page: typed through globalThis (this file has Node's types, not the DOM's),
  // and a function, not a string (the page's CSP allows no eval).
  await page.waitForFunction(() => (globalThis as { __firstMessageMs?: number }).__firstMessageMs !== undefined);
  const firstMessageMs = Number(await page.evaluate('window.__firstMessageMs'));
  await page.locator('[data-testid=token-chart] canvas').first().waitFor({ timeout: 120_000 });
  const chartMs = Number(await page.evaluate('performance.now()'));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  await cdp.detach();
  return { firstMessageMs, chartMs, heapBytes: usedSize };
}

/** Runs the suite. */
export async function runWebBrowserBench(): Promise<SuiteReport> {
  const title = 'Web session browser: opening a 100k-message session against a 1k one (Chromium)';
  const missing = chromiumMissing();
  if (missing !== undefined) return { name: 'web', title, tables: [], notes: [`Not run: ${missing}.`] };
  const web = await builtWeb();
  const dir = benchDir('web-browser');
  let store: SessionStore | undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let browser: Awaited<ReturnType<typeof startBrowser>> | undefined;
  try {
    store = await openStore(`file:${join(dir, 'store')}`);
    const seedStart = performance.now();
    for (const size of SIZES) await seedLongSession(store, `bench-${size}`, size);
    const seedMs = performance.now() - seedStart;
    server = await startServer({ store, port: 0, web, log: () => undefined });
    browser = await startBrowser();
    const page = await browser.context.newPage();
    await page.addInitScript(FIRST_MESSAGE_PROBE);
    // The browser's first page (cold caches, the script compiled) is not either session's.
    await page.goto(`${server.url}/`);
    await page.locator('[data-testid=session-row]').first().waitFor();
    const samples = new Map<number, Opening[]>(SIZES.map((size) => [size, []]));
    // The first opening of each size: the server reads the whole session for the chart and stats then.
    const firstOpen = new Map<number, Opening>();
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      // Alternating, and each round in the other order: load on the machine hits both sizes alike.
      const order = round % 2 === 0 ? SIZES : [...SIZES].reverse();
      for (const size of order) {
        const opening = await open(page, server.url, `bench-${size}`);
        if (round >= WARMUP_ROUNDS) samples.get(size)?.push(opening);
        else if (!firstOpen.has(size)) firstOpen.set(size, opening);
      }
    }
    const rows = SIZES.map((size) => {
      const runs = samples.get(size) ?? [];
      return {
        size,
        first: median(runs.map((run) => run.firstMessageMs)),
        chart: median(runs.map((run) => run.chartMs)),
        firstChart: firstOpen.get(size)?.chartMs ?? Number.NaN,
        heap: median(runs.map((run) => run.heapBytes)),
      };
    });
    const [small, large] = rows as [(typeof rows)[number], (typeof rows)[number]];
    const ratio = large.first / small.first;
    return {
      name: 'web',
      title,
      tables: [
        {
          title: `Opening a session in the browser (median of ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up, sizes alternating)`,
          headers: [
            'session',
            'first message on screen',
            'token chart drawn',
            'token chart, first opening',
            'JS heap (settled, after GC)',
          ],
          rows: rows.map((row) => [
            `${row.size.toLocaleString('en-US')} messages`,
            formatMs(row.first),
            formatMs(row.chart),
            formatMs(row.firstChart),
            formatBytes(row.heap),
          ]),
        },
        {
          title: 'Virtualization',
          headers: ['measure', 'value', `target ≤ ${TARGET_RATIO}×`],
          rows: [
            ['first message, 100k ÷ 1k', formatRatio(ratio), verdict(ratio <= TARGET_RATIO)],
            ['JS heap, 100k ÷ 1k', formatRatio(large.heap / small.heap), ''],
          ],
        },
      ],
      notes: [
        'Times are from the start of the navigation to `/#/s/ID` (the page, its cached hashed assets, the app, then the session) in Chromium (Debian, headless, `--no-sandbox --disable-gpu`), over loopback to `chatstate serve`’s app (no keys) on the embedded file store.',
        'The page first asks for the session’s list row and its newest 200 messages (two small requests at any length), draws them, then asks for the token timeline and the stats, which the server computes over the whole history once per version of the session (“token chart, first opening”: the warm-up round, reading all 100k messages from the store) and then serves from its view cache (“token chart drawn”).',
        'The list is virtualized: rows exist only around the view; older messages are fetched by sequence range as they scroll in.',
        `Seeding both sessions (appends of 2,000 messages) took ${formatMs(seedMs)}.`,
      ],
    };
  } finally {
    await browser?.close();
    await server?.close();
    await store?.close();
    removeBenchDir(dir);
  }
}

/**
 * The token chart's colours and legend, read from the canvas: the stacked areas are painted in
 * the colours their legend entries show, in the light and the dark theme; a change of the
 * system's colour scheme repaints the chart; the legend names only what the chart draws; and the
 * points table says each turn's cached share of input where usage was measured.
 * @module
 */
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { SEEDED } from '../seed.js';
import type { WebSuite } from '../web-suite.js';

type Rgb = readonly [number, number, number];

/** A run of one colour in a column of the plot, bottom up. */
interface Run {
  readonly colour: Rgb;
  readonly length: number;
}

/**
 * Runs in the page: for columns across the plot area, the runs of one colour (at least 6 px, so
 * lines and anti-aliased edges do not count) from the bottom up to the first run of the plot's
 * background (the card, or a grid line on it) — the stacked areas, as a person sees them (the
 * canvas composited over the card). The top 45 px, where the marks' labels stand, are left out.
 */
const STACK_RUNS = `(() => {
  const MIN = 6, TOP = 45;
  const canvas = document.querySelector('.chart-canvas canvas');
  const over = document.querySelector('.chart-canvas .u-over').getBoundingClientRect();
  const box = canvas.getBoundingClientRect();
  const ratio = canvas.width / box.width;
  const left = Math.round((over.left - box.left) * ratio);
  const top = Math.round((over.top - box.top + TOP) * ratio);
  const width = Math.floor(over.width * ratio);
  const height = Math.floor((over.height - TOP) * ratio);
  const pixels = canvas.getContext('2d').getImageData(left, top, width, height).data;
  const card = getComputedStyle(document.querySelector('[data-testid=token-chart]')).backgroundColor;
  const bg = card.match(/\\d+/g).slice(0, 3).map(Number);
  const hex = getComputedStyle(document.documentElement).getPropertyValue('--grid').trim();
  const grid = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const near = (a, b) => a.every((value, k) => Math.abs(value - b[k]) <= 3);
  const background = (colour) => near(colour, bg) || near(colour, grid);
  const columns = [];
  for (let x = 1; x < width - 1; x += 3) {
    const runs = [];
    let run = undefined;
    for (let y = height - 1; y >= 0; y--) {
      const i = (y * width + x) * 4;
      const alpha = pixels[i + 3] / 255;
      const colour = [0, 1, 2].map((k) => Math.round(pixels[i + k] * alpha + bg[k] * (1 - alpha)));
      if (run !== undefined && near(colour, run.colour)) run.length += 1;
      else {
        if (run !== undefined && run.length >= MIN) runs.push(run);
        run = { colour, length: 1 };
      }
      if (run.length >= MIN && background(run.colour)) break;
    }
    if (run !== undefined && run.length >= MIN && !background(run.colour)) runs.push(run);
    columns.push(runs);
  }
  return columns;
})()`;

/** Runs in the page: the legend's entries, with the colours of their swatch (its fill, and its edge when it has one). */
const LEGEND = `[...document.querySelectorAll('[data-testid=token-chart] .legend li')].map((item) => {
  const style = getComputedStyle(item.querySelector('.swatch'));
  const edge = style.borderTopStyle === 'none' ? [] : [style.borderTopColor];
  return { label: item.textContent.trim(), colours: [style.backgroundColor, ...edge] };
})`;

/** Runs in the page: how many opaque pixels of the chart's canvas are within 3 of `colour` in each channel. */
const pixelsOf = (colour: Rgb): string => `(() => {
  const target = ${JSON.stringify(colour)};
  const canvas = document.querySelector('.chart-canvas canvas');
  const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < pixels.length; i += 4)
    if (pixels[i + 3] === 255 && target.every((value, k) => Math.abs(pixels[i + k] - value) <= 3)) count += 1;
  return count;
})()`;

interface LegendEntry {
  readonly label: string;
  readonly colours: readonly string[];
}

function rgb(css: string): Rgb {
  const [r = 0, g = 0, b = 0] = (css.match(/\d+/g) ?? []).map(Number);
  return [r, g, b];
}

const close = (a: Rgb, b: Rgb): boolean => a.every((value, k) => Math.abs(value - (b[k] as number)) <= 4);

/** The legend entries whose colours the stacked areas may show: the categories, and the tool-heavy marks at their foot. */
const AREA_LABELS = ['System', 'Context', 'Dialog', 'Tool output', 'Tool-heavy turn'];

/**
 * What is wrong with the chart's stacked areas: colours painted that no legend entry of theirs
 * shows, and entries `required` whose legend colour is painted nowhere. Empty when they match.
 */
async function mismatches(page: Page, required: readonly string[]): Promise<string[]> {
  const legend = (await page.evaluate(LEGEND)) as LegendEntry[];
  const categories = legend.filter((entry) => AREA_LABELS.includes(entry.label));
  const columns = (await page.evaluate(STACK_RUNS)) as Run[][];
  const painted = columns.flat();
  const problems = new Set<string>();
  for (const run of painted) {
    if (!categories.some((entry) => entry.colours.some((colour) => close(run.colour, rgb(colour)))))
      problems.add(`painted rgb(${run.colour.join(', ')}), which no legend entry shows`);
  }
  for (const label of required) {
    const entry = categories.find((found) => found.label === label);
    const fill = rgb(entry?.colours[0] ?? '');
    if (entry === undefined || !painted.some((run) => close(run.colour, fill)))
      problems.add(`${label}'s legend colour ${entry?.colours[0] ?? '(no entry)'} is painted nowhere`);
  }
  return [...problems];
}

/**
 * `mismatches` once there are none, or as they are after 3 s: the chart paints after the page
 * shows it, and again after a change of theme.
 */
async function settled(page: Page, required: readonly string[]): Promise<string[]> {
  const end = Date.now() + 3000;
  let found = await mismatches(page, required);
  while (found.length > 0 && Date.now() < end) {
    await page.waitForTimeout(100);
    found = await mismatches(page, required);
  }
  return found;
}

/** Opens the research session with the system's colour scheme `scheme`, its chart drawn. */
async function chartIn(suite: WebSuite, scheme: 'light' | 'dark'): Promise<Page> {
  const page = await suite.loggedIn();
  await page.emulateMedia({ colorScheme: scheme });
  await suite.openSession(page, SEEDED.research);
  await page.locator('.chart-canvas canvas').waitFor();
  return page;
}

/** Registers the specs on `suite`'s browser. */
export function tokenChartSpecs(suite: WebSuite): void {
  for (const scheme of ['light', 'dark'] as const)
    it(`paints the chart's areas in the colours of its legend (${scheme} theme)`, async () => {
      const page = await chartIn(suite, scheme);
      expect(await settled(page, ['Dialog', 'Tool output'])).toEqual([]);
      await page.close();
    });

  it("repaints the chart when the system's colour scheme changes", async () => {
    const page = await chartIn(suite, 'light');
    const light = ((await page.evaluate(LEGEND)) as LegendEntry[]).find((entry) => entry.label === 'Dialog');
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = ((await page.evaluate(LEGEND)) as LegendEntry[]).find((entry) => entry.label === 'Dialog');
    expect(dark?.colours[0]).not.toBe(light?.colours[0]);
    expect(await settled(page, ['Dialog'])).toEqual([]);
    await page.close();
  });

  it('names in its legend only what the chart draws', async () => {
    const page = await suite.loggedIn();
    const legend = async (): Promise<string[]> =>
      ((await page.evaluate(LEGEND)) as LegendEntry[]).map((entry) => entry.label);
    // Dialog alone: no system prompt, no tools, no compaction, no context window known, no usage measured.
    await suite.openSession(page, SEEDED.bob);
    await page.locator('.chart-canvas canvas').waitFor();
    expect(await legend()).toEqual(['Dialog']);
    // One turn, one point: drawn all the same, in the legend's colour.
    expect(await settled(page, ['Dialog'])).toEqual([]);
    // Every kind of mark: compactions, a summary, tool-heavy turns, and the context window.
    await suite.openSession(page, SEEDED.research);
    await page.locator('.chart-canvas canvas').waitFor();
    const timeline = (await page.evaluate(`fetch('/sessions/${SEEDED.research}/timeline').then((r) => r.json())`)) as {
      toolHeavy: unknown[];
    };
    expect(timeline.toolHeavy.length).toBeGreaterThan(0);
    expect(await legend()).toEqual([
      'System',
      'Context',
      'Dialog',
      'Tool output',
      'Context window',
      'Cached share of input',
      'Compaction (before → after)',
      'Summary',
      'Tool-heavy turn',
    ]);
    await page.close();
  });

  it("says each turn's cached share of input in the points table, and none where no usage was measured", async () => {
    const page = await suite.loggedIn();
    await suite.openSession(page, SEEDED.research);
    await page.locator('[data-testid=chart-data] tbody tr').first().waitFor({ state: 'attached' });
    const timeline = (await page.evaluate(`fetch('/sessions/${SEEDED.research}/timeline').then((r) => r.json())`)) as {
      points: Array<{ x: number; usage?: { inputTokens: number; cachedInputTokens: number } }>;
    };
    const cells = await page
      .locator('[data-testid=chart-data] tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [Number(row.getAttribute('data-x')), row.querySelector('[data-cached-share]')?.textContent]),
      );
    const expected = timeline.points.map((point) => [
      point.x,
      point.usage === undefined
        ? ''
        : `cached ${Math.round((point.usage.cachedInputTokens / point.usage.inputTokens) * 100)}% of ${point.usage.inputTokens.toLocaleString('en-US')} input tokens`,
    ]);
    expect(cells).toEqual(expected);
    // The seeded calls: a warm cache serves most of the input; a compaction leaves it cold.
    const said = cells.map(([, text]) => text);
    expect(said.some((text) => /^cached 9\d% of [\d,]+ input tokens$/.test(String(text)))).toBe(true);
    expect(said.some((text) => /^cached 0% of [\d,]+ input tokens$/.test(String(text)))).toBe(true);
    // The line is drawn in its legend entry's colour.
    const entry = ((await page.evaluate(LEGEND)) as LegendEntry[]).find(
      (found) => found.label === 'Cached share of input',
    );
    expect(entry).toBeDefined();
    // (Read until it shows, for at most 3 s: the chart paints after the page shows it.)
    const painted = async (): Promise<number> =>
      (await page.evaluate(pixelsOf(rgb(entry?.colours[0] ?? '')))) as number;
    const end = Date.now() + 3000;
    while ((await painted()) <= 50 && Date.now() < end) await page.waitForTimeout(100);
    expect(await painted()).toBeGreaterThan(50);
    // The hover readout says it too: the newest turn, by keyboard.
    await page.locator('.chart-canvas').focus();
    await page.keyboard.press('End');
    await page
      .getByTestId('chart-hover')
      .filter({ hasText: String(said.at(-1)) })
      .waitFor();
    // A session without measured usage: no share column, no legend entry.
    await suite.openSession(page, SEEDED.bob);
    const bob = page.locator(`[data-testid=session-view][data-session-id="${SEEDED.bob}"]`);
    await bob.locator('[data-testid=chart-data] tbody tr').first().waitFor({ state: 'attached' });
    expect(await bob.locator('[data-testid=chart-data] [data-cached-share]').count()).toBe(0);
    expect(await bob.locator('[data-testid=token-chart] .legend .swatch.cached-line').count()).toBe(0);
    await page.close();
  });
}

/**
 * Debian's Chromium for the browser tests and the benchmark, driven by playwright-core (which
 * downloads no browser): headless, no sandbox, no GPU, no background traffic, a fresh profile.
 * Also builds the web session browser when `dist/web` is missing or older than its sources.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (`.ci/run` installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or `undefined` when they can. */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The built browser's directory. */
export const WEB_DIST = join(ROOT, 'dist', 'web');

async function newest(directory: string): Promise<number> {
  let time = 0;
  for (const entry of await readdir(directory, { recursive: true })) {
    time = Math.max(time, (await stat(join(directory, entry))).mtimeMs);
  }
  return time;
}

/** `dist/web`, built first when it is missing or older than `src/web`. */
export async function builtWeb(): Promise<string> {
  const marker = join(WEB_DIST, '.vite', 'manifest.json');
  const stale = !existsSync(marker) || (await stat(marker)).mtimeMs < (await newest(join(ROOT, 'src', 'web')));
  if (stale) {
    const { build } = await import('vite');
    await build({ configFile: join(ROOT, 'web.vite.config.ts'), logLevel: 'error' });
  }
  return WEB_DIST;
}

/** A running browser with its own fresh profile; `close` ends it and removes the profile. */
export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts Chromium. */
export async function startBrowser(
  options: { readonly width?: number; readonly height?: number } = {},
): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'chatstate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

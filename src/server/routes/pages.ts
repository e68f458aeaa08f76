/**
 * The web session browser: its page at `/` and its prebuilt assets at `/assets/{file}`. The page
 * is a small client that talks only to this API (with the browser-session cookie); it is built at
 * package build time into `dist/web/` (`npm run build`), so serving it needs no bundler. The page
 * gets `PAGE_CSP` (this server's scripts and styles only, nothing inline) and is never cached;
 * assets carry a content hash in their names, so they are cached for a year.
 * @module
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { NotFoundError } from '../../errors.js';
import type { ServerEnv } from '../env.js';
import { PAGE_CSP } from '../security-headers.js';
import { errors } from './common.js';

/** Content types of the files a build writes. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** The file a build writes beside its output, telling it from the page's sources. */
const BUILD_MARKER = join('.vite', 'manifest.json');

/** The built page and its assets, read once. */
export interface WebAssets {
  readonly page: Uint8Array;
  readonly assets: ReadonlyMap<string, { readonly body: Uint8Array; readonly type: string }>;
}

/**
 * Where the build put the browser: `dist/web/` beside the built server, or (running from the
 * sources, as the tests do) `dist/web/` of the checkout; `undefined` when it was not built.
 */
export function defaultWebDirectory(): string | undefined {
  const candidates = [new URL('../../web/', import.meta.url), new URL('../../../dist/web/', import.meta.url)];
  for (const candidate of candidates) {
    const directory = fileURLToPath(candidate);
    if (existsSync(join(directory, BUILD_MARKER))) return directory;
  }
  return undefined;
}

/** Reads the built browser in `directory` (its `index.html` and `assets/`). */
export function readWebAssets(directory: string): WebAssets {
  const assets = new Map<string, { body: Uint8Array; type: string }>();
  const folder = join(directory, 'assets');
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    const type = CONTENT_TYPES[extname(name)];
    if (type !== undefined) assets.set(name, { body: readFileSync(join(folder, name)), type });
  }
  return { page: readFileSync(join(directory, 'index.html')), assets };
}

const page = createRoute({
  method: 'get',
  path: '/',
  tags: ['web'],
  summary: 'The web session browser (a page; it logs in with a key when the server has keys)',
  responses: {
    200: { description: 'The page', content: { 'text/html': { schema: z.string() } } },
    ...errors(404),
  },
});

const asset = createRoute({
  method: 'get',
  path: '/assets/{file}',
  tags: ['web'],
  summary: 'A prebuilt script or style of the web session browser (content-hashed, cached for a year)',
  request: {
    params: z.object({
      file: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/)
        .openapi({ param: { name: 'file', in: 'path' }, example: 'index-3f2a1b.js' }),
    }),
  },
  responses: {
    200: {
      description: 'The file',
      content: {
        'text/javascript': { schema: z.string() },
        'text/css': { schema: z.string() },
      },
    },
    ...errors(400, 404),
  },
});

/** Registers the page and its assets (`web`: the built browser; without it both answer 404). */
export function pageRoutes(app: OpenAPIHono<ServerEnv>, web: WebAssets | undefined): void {
  app.openapi(page, (c) => {
    if (web === undefined)
      throw new NotFoundError('The web session browser is not built here (npm run build writes dist/web)');
    c.header('Content-Security-Policy', PAGE_CSP);
    // Never cached: a new build must reach the browser at once (its assets' names change with it).
    c.header('Cache-Control', 'no-store');
    return c.body(web.page as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'text/html; charset=utf-8' });
  });

  app.openapi(asset, (c) => {
    const { file } = c.req.valid('param');
    const found = web?.assets.get(file);
    if (found === undefined) throw new NotFoundError(`No asset ${file}`);
    c.header('Cache-Control', 'public, max-age=31536000, immutable');
    return c.body(found.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': found.type });
  });
}

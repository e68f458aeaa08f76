/**
 * Builds the web session browser into `dist/web/` (`npm run build`): one HTML page, and its
 * scripts and styles with a content hash in their names. Nothing is inlined, so the page runs
 * under the server's strict Content-Security-Policy (`PAGE_CSP`).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('src/web/', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('dist/web/', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Tells the server this is a build (not the sources): it serves dist/web only when this exists.
    manifest: true,
    // Inline scripts and data: URLs would need 'unsafe-inline' or data: in the CSP.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});

/**
 * A TypeScript child script as one plain ES module, for tests that start it many times: esbuild
 * bundles the script with the sources it imports (packages stay imports of node_modules) into
 * `.tmp/children/`, once per test process. Node then starts it without tsx: about 0.3 s to its
 * first line instead of 0.9 s, which is most of a crash test's time when it starts 200 children.
 */
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const bundles = new Map<string, Promise<string>>();

/** The path of `script` (a `.ts` file) bundled into one `.mjs` file, built at the first call. */
export function bundledScript(script: string): Promise<string> {
  let bundle = bundles.get(script);
  if (bundle === undefined) {
    bundle = bundleOnce(script);
    bundles.set(script, bundle);
  }
  return bundle;
}

async function bundleOnce(script: string): Promise<string> {
  // Under the repository, so the bundle's package imports resolve from its node_modules; a name per
  // process, so two test processes never write one file.
  const dir = join(ROOT, '.tmp', 'children');
  await mkdir(dir, { recursive: true });
  const outfile = join(dir, `${basename(script, '.ts')}-${process.pid}.mjs`);
  await build({
    entryPoints: [script],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

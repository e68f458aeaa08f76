// `npm run docs`: the API reference from the TSDoc, written to docs/api/ (not committed). Its entry
// points are the package's `exports`, read from package.json so that the two never drift.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

// `./dist/stores/file/index.d.ts` is built from `src/stores/file/index.ts`.
const entryPoints = Object.values(pkg.exports)
  .filter((target) => typeof target === 'object')
  .map((target) =>
    fileURLToPath(new URL(target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'), root)),
  );

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: pkg.name,
  entryPoints,
  tsconfig: fileURLToPath(new URL('tsconfig.build.json', root)),
  readme: fileURLToPath(new URL('README.md', root)),
  out: fileURLToPath(new URL('docs/api', root)),
  // The package names no repository yet, so there is nothing to link sources to.
  disableSources: true,
  excludePrivate: true,
  excludeInternal: true,
};

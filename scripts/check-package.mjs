// Checks the built package against package.json: every `exports` entry and the `bin` exist in
// dist/, every subpath imports under plain Node (no tsx), and importing does not load optional
// heavy modules (tokenizer data, database clients) before they are used. Run after `npm run build`.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { measureRootImport } from './root-import.mjs';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const root = new URL('../', import.meta.url);
const problems = [];

const require = createRequire(import.meta.url);
// The main entry must stay light: no tokenizer data and no database client until one is used.
await import(pathToFileURL(new URL(pkg.exports['.'].default, root).pathname).href);
const heavy = Object.keys(require.cache).filter((id) =>
  /bpeRanks|node_modules\/(pg|ioredis|better-sqlite3|openai|@anthropic-ai\/sdk|@anthropic-ai\/claude-agent-sdk|ai|@ai-sdk\/[a-z-]+|@openai\/agents-[a-z-]+|@langchain\/[a-z-]+)\//.test(
    id,
  ),
);
if (heavy.length > 0)
  problems.push(`importing the main entry loaded heavy modules eagerly: ${heavy.slice(0, 3).join(', ')}`);

// The root import's budget (scripts/root-import-budget.json, measured): how many of our modules it
// loads, which it must never load (a driver loads when its store is first used), which packages,
// and its time as a ratio to importing zod alone in the same run.
const budget = JSON.parse(await readFile(new URL('root-import-budget.json', import.meta.url), 'utf8'));
const rootImport = measureRootImport({ runs: budget.runs });
if (rootImport.ownModules > budget.maxOwnModules) {
  problems.push(
    `the root import loads ${rootImport.ownModules} of our modules, over the budget of ${budget.maxOwnModules}`,
  );
}
for (const pattern of budget.neverLoaded) {
  const loaded = rootImport.ownLoaded.filter((file) => new RegExp(pattern).test(file));
  if (loaded.length > 0) problems.push(`the root import loads ${loaded.join(', ')}, which must load only when used`);
}
const unexpected = rootImport.dependenciesLoaded.filter((name) => !budget.dependencies.includes(name));
if (unexpected.length > 0)
  problems.push(`the root import loads ${unexpected.join(', ')}, beyond ${budget.dependencies.join(', ')}`);
if (rootImport.ratioToZod > budget.maxRatioToZod) {
  problems.push(
    `the root import takes ${rootImport.rootMs} ms, ${rootImport.ratioToZod}× zod alone (${rootImport.zodMs} ms), over the budget of ${budget.maxRatioToZod}×`,
  );
}

for (const [subpath, target] of Object.entries(pkg.exports)) {
  const files = typeof target === 'string' ? [target] : [target.types, target.default];
  for (const file of files)
    if (!existsSync(new URL(file, root))) problems.push(`exports["${subpath}"] → ${file} is missing`);
  if (typeof target !== 'string' && existsSync(new URL(target.default, root))) {
    try {
      await import(pathToFileURL(new URL(target.default, root).pathname).href);
    } catch (error) {
      problems.push(`exports["${subpath}"] fails to import: ${error.message}`);
    }
  }
}
for (const [name, file] of Object.entries(pkg.bin ?? {})) {
  if (!existsSync(new URL(file, root))) problems.push(`bin ${name} → ${file} is missing`);
}
const loadedByAll = Object.keys(require.cache).filter((id) => /node_modules\/(pg|ioredis|better-sqlite3)\//.test(id));
if (loadedByAll.length > 0)
  problems.push(`importing the store subpaths loaded a database client eagerly: ${loadedByAll[0]}`);

// ESM imports leave no trace in require.cache: read the built files for static imports of SDKs
// and database clients, which must only ever be type imports or lazy `import()` in store factories.
const { readdir } = await import('node:fs/promises');
for (const entry of await readdir(new URL('dist/', root), { recursive: true })) {
  if (!entry.endsWith('.js')) continue;
  const text = await readFile(new URL(`dist/${entry}`, root), 'utf8');
  const eager =
    /^import\s[^;]*?from\s+['"](openai|@anthropic-ai\/sdk|@anthropic-ai\/claude-agent-sdk|ai|@ai-sdk\/[^'"]+|pg|ioredis|better-sqlite3)['"]/m.exec(
      text,
    );
  if (eager !== null) problems.push(`dist/${entry} imports ${eager[1]} statically`);
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`package ok: ${Object.keys(pkg.exports).length} exports, ${Object.keys(pkg.bin ?? {}).length} bin`);
console.log(
  `root import: ${rootImport.ownModules} of ${rootImport.ownModulesInPackage} own modules (budget ${budget.maxOwnModules}), ${rootImport.rootMs} ms = ${rootImport.ratioToZod}× zod alone (budget ${budget.maxRatioToZod}×)`,
);

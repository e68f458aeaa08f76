// Measures what importing the package root costs: the modules it loads (ours and dependencies')
// and its time, as a ratio to importing zod alone (the one dependency the root cannot do without)
// in the same run, so the figure means the same on a fast and a slow machine.
//
//   node scripts/root-import.mjs [--runs N] [--json]
//
// check-package.mjs imports `measureRootImport` and holds the result to the budget in
// scripts/root-import-budget.json.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url);
const entry = new URL('dist/index.js', root).href;

// Runs in a child: records every module URL Node loads while the root is imported.
const countingChild = `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const urls = [];
port1.on('message', (url) => urls.push(url));
const hooks = 'data:text/javascript,' + encodeURIComponent(
  'let port; export function initialize(data) { port = data.port; }' +
  'export async function load(url, context, next) { port.postMessage(url); return next(url, context); }');
register(hooks, { data: { port: port2 }, transferList: [port2] });
await import(${JSON.stringify(entry)});
await new Promise((resolve) => setTimeout(resolve, 50));
port1.close();
process.stdout.write(JSON.stringify(urls));
`;

// Runs in a child: the time to import one module, from a cold start of the module graph.
const timingChild = (specifier) => `
const started = performance.now();
await import(${JSON.stringify(specifier)});
process.stdout.write(String(performance.now() - started));
`;

function runChild(source) {
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: fileURLToPath(root),
    encoding: 'utf8',
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The modules a root import loads and its time against importing zod alone (medians of `runs` cold imports each, interleaved). */
export function measureRootImport({ runs = 7 } = {}) {
  const urls = JSON.parse(runChild(countingChild));
  const dist = new URL('dist/', root).href;
  const own = urls.filter((url) => url.startsWith(dist));
  const dependencies = urls.filter((url) => url.includes('/node_modules/'));
  const ownTotal = readdirSync(new URL('dist/', root), { recursive: true }).filter((file) =>
    String(file).endsWith('.js'),
  ).length;
  const rootTimes = [];
  const zodTimes = [];
  for (let run = 0; run < runs; run += 1) {
    rootTimes.push(Number(runChild(timingChild(entry))));
    zodTimes.push(Number(runChild(timingChild('zod'))));
  }
  const rootMs = median(rootTimes);
  const zodMs = median(zodTimes);
  return {
    ownModules: own.length,
    ownModulesInPackage: ownTotal,
    dependencyModules: dependencies.length,
    ownLoaded: own.map((url) => url.slice(dist.length)).sort(),
    dependenciesLoaded: [
      ...new Set(dependencies.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)[1])),
    ].sort(),
    rootMs: Math.round(rootMs * 10) / 10,
    zodMs: Math.round(zodMs * 10) / 10,
    ratioToZod: Math.round((rootMs / zodMs) * 100) / 100,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runsAt = process.argv.indexOf('--runs');
  const result = measureRootImport({ runs: runsAt > 0 ? Number(process.argv[runsAt + 1]) : 7 });
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(
      `root import: ${result.ownModules} of ${result.ownModulesInPackage} own modules, ${result.dependencyModules} dependency modules`,
    );
    console.log(
      `time: ${result.rootMs} ms, zod alone ${result.zodMs} ms: ${result.ratioToZod}× (medians of cold imports)`,
    );
  }
}

// Checks that every test file's name puts it in the tier it needs (vitest.config.ts runs the tiers
// by file name): a unit test under src/ starts no server and runs over no store matrix; a suite
// that runs over every store is `*.each-store.test.ts`; one that starts a Postgres or Redis server
// itself is `*.servers.test.ts` (or `*.slow.test.ts`). Run by `npm run lint`; exits 1 with the
// files that are misnamed.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** What a file calls that decides its tier. */
const EVERY_STORE = /\b(describeEveryStore|cliStores|storesToTest)\(/;
const STARTS_SERVER = /\b(redisTestServer|redisClusterTestServer|describeWithPostgres|findPostgres)\(/;

async function* testFiles(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(path);
    else if (entry.name.endsWith('.test.ts')) yield path;
  }
}

const problems = [];
for (const top of ['src', 'test']) {
  for await (const path of testFiles(join(root, top))) {
    const name = relative(root, path);
    const text = await readFile(path, 'utf8');
    const tier = /\.(each-store|servers|slow)\.test\.ts$/.exec(name)?.[1];
    const everyStore = EVERY_STORE.test(text);
    const startsServer = STARTS_SERVER.test(text);
    if (top === 'src') {
      if (tier !== undefined) problems.push(`${name}: a unit test under src/ has no tier suffix; move it to test/`);
      if (everyStore || startsServer)
        problems.push(
          `${name}: a unit test under src/ starts no server and runs over no store matrix; move it to test/`,
        );
      continue;
    }
    if (tier === 'slow') continue;
    if (everyStore && tier !== 'each-store')
      problems.push(`${name}: runs over the store matrix, so it is *.each-store.test.ts (or *.slow.test.ts)`);
    else if (!everyStore && startsServer && tier !== 'servers')
      problems.push(`${name}: starts a Postgres or Redis server, so it is *.servers.test.ts (or *.slow.test.ts)`);
    if (tier === 'each-store' && !everyStore)
      problems.push(
        `${name}: *.each-store.test.ts but runs over no store matrix (describeEveryStore, cliStores, storesToTest)`,
      );
    if (tier === 'servers' && !startsServer) problems.push(`${name}: *.servers.test.ts but starts no server`);
  }
}

if (problems.length > 0) {
  console.error(
    `Test files in the wrong tier (see vitest.config.ts):\n${problems.map((line) => `  ${line}`).join('\n')}`,
  );
  process.exit(1);
}

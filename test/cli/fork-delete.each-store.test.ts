/**
 * The README's `chatstate fork` then `chatstate delete` of the fork, through the built bin on every
 * store the CLI matrix runs: the source no longer lists the deleted fork (issue 21).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forkLog } from '../../src/session/fork-log.js';
import { openStore } from '../../src/stores/open-store.js';
import { ensureBuilt, runCli } from './cli-process.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { cliStores } from './cli-stores.js';
import { seed } from './seed.js';

beforeAll(ensureBuilt, 600_000);

/** The fork ids `trip` lists, read through the library. */
async function forksOf(url: string, id: string): Promise<string[]> {
  const store = await openStore(url);
  try {
    return forkLog((await store.load(id)).metadata).map((entry) => entry.sessionId);
  } finally {
    await store.close();
  }
}

describeEachStore(cliStores(), 'chatstate fork, then delete of the fork, on the $name store', (store) => {
  let skipped: string | undefined;
  beforeAll(async () => {
    skipped = await store.start();
  }, 180_000);
  afterAll(() => store.stop());

  it('leaves the source listing only the forks still there', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip('memory: lives in one process, so a fork made by one CLI run is gone in the next');
    const url = await store.freshUrl();
    await seed(url);
    for (const id of ['trip-b', 'trip-c'])
      expect(await runCli(['fork', 'trip', '--id', id, '--store', url])).toMatchObject({ code: 0, stdout: `${id}\n` });
    expect(await forksOf(url, 'trip')).toEqual(['trip-b', 'trip-c']);
    expect(await runCli(['delete', 'trip-b', '--yes', '--store', url])).toEqual({
      code: 0,
      stdout: 'deleted trip-b\n',
      stderr: '',
    });
    expect(await forksOf(url, 'trip')).toEqual(['trip-c']);
    const listed = await runCli(['list', '--json', '--store', url]);
    const row = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; forks?: string[] })
      .find((each) => each.id === 'trip');
    expect(row?.forks).toEqual(['trip-c']);
    // The source deleted first: its other fork is deleted without a word about it.
    expect(await runCli(['delete', 'trip', 'trip-c', '--yes', '--json', '--store', url])).toEqual({
      code: 0,
      stdout: '{"id":"trip","deleted":true}\n{"id":"trip-c","deleted":true}\n',
      stderr: '',
    });
  });
});

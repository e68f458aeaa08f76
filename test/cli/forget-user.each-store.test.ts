/**
 * `chatstate forget-user` through the built bin on every store the CLI matrix runs: the receipt
 * (text and `--json`), nothing of the user left to read, another user untouched, zeros on a second
 * run, and a typed usage error for a bad id or a missing `--yes`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/stores/open-store.js';
import { ensureBuilt, runCli } from './cli-process.js';
import { describeEachStore } from '../support/stores-under-test.js';
import { cliStores } from './cli-stores.js';

beforeAll(ensureBuilt, 600_000);

/** Two users' sessions and values, written through the library. */
async function seedUsers(url: string): Promise<string | undefined> {
  const store = await openStore(url);
  try {
    for (const user of ['gone', 'kept']) {
      await store.save(
        Session.create({ id: `${user}-1`, userId: user, messages: [Message.user(`hello from ${user}`)] }),
      );
      await store.values.set({ scope: 'user', userId: user }, { colour: user });
    }
    return await store.getJson('kept-1');
  } finally {
    await store.close();
  }
}

describeEachStore(cliStores(), 'chatstate forget-user on the $name store', (store) => {
  let skipped: string | undefined;
  beforeAll(async () => {
    skipped = await store.start();
  }, 180_000);
  afterAll(() => store.stop());

  it('prints the receipt, leaves nothing of the user and the other user as it was', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    if (!store.shared) context.skip('memory: lives in one process, so what one CLI run stores is gone in the next');
    const url = await store.freshUrl();
    const kept = await seedUsers(url);
    const first = await runCli(['forget-user', 'gone', '--yes', '--json', '--store', url]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const receipt = JSON.parse(first.stdout) as { userId: string; at: string; removed: Record<string, number> };
    expect(receipt.userId).toBe('gone');
    expect(receipt.removed).toMatchObject({ sessions: 1, messages: 1, values: 1 });
    const again = await runCli(['forget-user', 'gone', '--yes', '--store', url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^forgot user gone at \S+\n {2}sessions: 0\n {2}messages: 0\n {2}values: 0\n/);
    const opened = await openStore(url);
    try {
      expect(await opened.list({ userId: 'gone' })).toEqual([]);
      expect(await opened.values.getAll({ scope: 'user', userId: 'gone' })).toEqual({});
      expect(await opened.getJson('kept-1')).toBe(kept);
      expect(await opened.values.getAll({ scope: 'user', userId: 'kept' })).toEqual({ colour: 'kept' });
    } finally {
      await opened.close();
    }
  });

  it('refuses a bad user id and a run that cannot ask, with a usage error', async (context) => {
    if (skipped !== undefined) context.skip(skipped);
    const url = await store.freshUrl();
    const tooLong = await runCli(['forget-user', 'u'.repeat(300), '--yes', '--store', url]);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toMatch(/INVALID_ID/);
    const unasked = await runCli(['forget-user', 'someone', '--store', url]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/INVALID_ARGUMENT.*--yes/);
  });
});

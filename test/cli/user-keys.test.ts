/**
 * `--user-keys DIR` (or `CHATSTATE_USER_KEYS`) through the built bin: a store opened with the
 * encryption key and a key directory reads its users' sessions, `forget-user` destroys the user's
 * key (the receipt counts it), and a copy of the store taken before then fails that user's reads
 * with `WRONG_KEY` while another user's read.
 */
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import { openStore, userKeyDirectory } from '../../src/stores/open-store.js';
import { ensureBuilt, runCli } from './cli-process.js';

const KEY = 'a-long-enough-test-secret-0123456789';
let dir = '';

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'chatstate-cli-user-keys-'));
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

it('reads with the key directory, forgets through it, and leaves a copy taken before unreadable for that user only', async () => {
  const [url, keys, backup] = [join(dir, 'store'), join(dir, 'keys'), join(dir, 'backup')];
  await mkdir(keys);
  const store = await openStore(`file:${url}`, { encryption: KEY, userKeys: userKeyDirectory(keys) });
  try {
    for (const user of ['gone', 'kept'])
      await store.save(
        Session.create({ id: `${user}-1`, userId: user, messages: [Message.user(`hello from ${user}`)] }),
      );
  } finally {
    await store.close();
  }
  await cp(url, backup, { recursive: true });
  const env = { CHATSTATE_KEY: KEY };
  const shown = await runCli(['show', 'gone-1', '--store', `file:${url}`, '--user-keys', keys], { env });
  expect(shown).toMatchObject({ code: 0 });
  expect(shown.stdout).toContain('hello from gone');
  // Without the key directory the user's records stay sealed.
  const without = await runCli(['show', 'gone-1', '--store', `file:${url}`], { env });
  expect(without.stderr).toMatch(/^error WRONG_KEY: [^\n]*user key store/);
  const forgot = await runCli(['forget-user', 'gone', '--yes', '--json', '--store', `file:${url}`], {
    env: { ...env, CHATSTATE_USER_KEYS: keys },
  });
  expect(forgot).toMatchObject({ code: 0, stderr: '' });
  expect((JSON.parse(forgot.stdout) as { removed: Record<string, number> }).removed).toMatchObject({
    sessions: 1,
    keys: 1,
  });
  expect((await readdir(keys)).filter((name) => name.endsWith('.key'))).toHaveLength(1);
  const restored = await runCli(['show', 'gone-1', '--store', `file:${backup}`, '--user-keys', keys], { env });
  expect(restored.code).toBe(1);
  expect(restored.stderr).toMatch(/^error WRONG_KEY: [^\n]*destroyed/);
  const other = await runCli(['show', 'kept-1', '--store', `file:${backup}`, '--user-keys', keys], { env });
  expect(other.stdout).toContain('hello from kept');
  // A key directory without the store key is refused when the store opens.
  const keyless = await runCli(['list', '--store', `file:${url}`, '--user-keys', keys]);
  expect(keyless.stderr).toMatch(/^error INVALID_ARGUMENT: [^\n]*userKeys needs encryption/);
}, 120_000);

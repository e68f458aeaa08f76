import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCode } from '../testing/fixtures.js';
import { userKeyDirectory } from './user-key-directory.js';

const SLOT = 'abcdefghijklmnopqrstuv';
const dirs: string[] = [];
function fresh(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chatstate-key-dir-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('userKeyDirectory', () => {
  it('creates a key once (of concurrent creators, every one gets the first), as a 0600 file, with no temporary file left', async () => {
    const dir = fresh();
    const keys = userKeyDirectory(dir);
    expect(await keys.get(SLOT)).toBeUndefined();
    const created = await Promise.all(['one', 'two', 'three', 'four'].map((wrapped) => keys.create(SLOT, wrapped)));
    expect(new Set(created).size).toBe(1);
    expect(await keys.get(SLOT)).toBe(created[0]);
    expect(readdirSync(dir)).toEqual([`${SLOT}.key`]);
    expect(statSync(join(dir, `${SLOT}.key`)).mode & 0o777).toBe(0o600);
    expect(await keys.create(SLOT, 'later')).toBe(created[0]);
  });

  it('destroys a key: true once, then false; the file is gone', async () => {
    const dir = fresh();
    const keys = userKeyDirectory(dir);
    await keys.create(SLOT, 'wrapped');
    expect(await keys.destroy(SLOT)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
    expect(await keys.get(SLOT)).toBeUndefined();
    expect(await keys.destroy(SLOT)).toBe(false);
  });

  it('is UNAVAILABLE, not empty, when its directory is missing or not a directory; nothing is written', async () => {
    const dir = fresh();
    const missing = userKeyDirectory(join(dir, 'not-mounted'));
    await expectCode(() => missing.get(SLOT), 'UNAVAILABLE');
    await expectCode(() => missing.create(SLOT, 'wrapped'), 'UNAVAILABLE');
    await expectCode(() => missing.destroy(SLOT), 'UNAVAILABLE');
    writeFileSync(join(dir, 'a-file'), '');
    const file = userKeyDirectory(join(dir, 'a-file'));
    await expectCode(() => file.get(SLOT), 'UNAVAILABLE');
    await expectCode(() => file.create(SLOT, 'wrapped'), 'UNAVAILABLE');
    expect(readdirSync(dir)).toEqual(['a-file']);
  });

  it('refuses a slot that is not one the core names (a path, a dot) with INVALID_ARGUMENT', async () => {
    const keys = userKeyDirectory(fresh());
    for (const bad of ['../../etc/passwd', 'short', `${SLOT}.`, ''])
      await expectCode(() => keys.get(bad), 'INVALID_ARGUMENT');
    expect(() => userKeyDirectory('')).toThrow(/directory path/);
  });
});

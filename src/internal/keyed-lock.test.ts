/** `KeyedLock`: one key's work in order, different keys at once, failures passed on, no leftovers. */
import { describe, expect, it } from 'vitest';
import { KeyedLock } from './keyed-lock.js';

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('KeyedLock', () => {
  it('runs work on one key one after another, in the order it came', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    const first = gate();
    const a = lock.run('k', async () => {
      log.push('a start');
      await first.opened;
      log.push('a end');
      return 'a';
    });
    const b = lock.run('k', async () => {
      log.push('b');
      return 'b';
    });
    await Promise.resolve();
    expect(log).toEqual(['a start']);
    expect(lock.isHeld('k')).toBe(true);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it('runs work on different keys at the same time', async () => {
    const lock = new KeyedLock();
    const held = gate();
    const slow = lock.run('one', () => held.opened);
    // Would wait forever if "two" queued behind "one".
    expect(await lock.run('two', async () => 'done')).toBe('done');
    held.open();
    await slow;
  });

  it('passes a failure to its caller and goes on with the next work', async () => {
    const lock = new KeyedLock();
    const failing = lock.run('k', async () => {
      throw new Error('boom');
    });
    const next = lock.run('k', async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });

  it('holds nothing for a key once its work is done', async () => {
    const lock = new KeyedLock();
    await Promise.all([lock.run('k', async () => 1), lock.run('k', async () => 2)]);
    expect(lock.isHeld('k')).toBe(false);
    await lock
      .run('k', async () => {
        throw new Error('x');
      })
      .catch(() => undefined);
    expect(lock.isHeld('k')).toBe(false);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatstateError } from '../errors.js';
import { memoryDriver } from '../stores/memory.js';
import { createSessionStore } from './session-store.js';
import type { StoreDriver } from './driver-types.js';
import type { ValueOwner } from './session-store-types.js';
import { MAX_VALUE_BYTES, checkValueKey, encodeOwnerId, namespaceSession, valueNamespace } from './values.js';

const SECRET = 'values-unit-test-secret-0123456789';

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return ChatstateError.isInstance(error) ? error.code : `not a ChatstateError: ${String(error)}`;
  }
  return 'resolved';
}

/** A memory driver that also records every namespace the core hands it. */
function recordingDriver(): { driver: StoreDriver; namespaces: string[] } {
  const inner = memoryDriver();
  const namespaces: string[] = [];
  const driver: StoreDriver = {
    ...inner,
    readValues: (ns, keys) => (namespaces.push(ns), inner.readValues(ns, keys)),
    writeValues: (ns, entries) => (namespaces.push(ns), inner.writeValues(ns, entries)),
  };
  return { driver, namespaces };
}

describe('value namespaces', () => {
  it('are built from the owner: user, agent of a user, app, session', () => {
    expect(valueNamespace({ scope: 'user', userId: 'ann' })).toBe('user:ann');
    expect(valueNamespace({ scope: 'agent', agentId: 'x', userId: 'ann' })).toBe('agent:x/user:ann');
    expect(valueNamespace({ scope: 'app' })).toBe('app');
    expect(valueNamespace({ scope: 'session', sessionId: 's_1.A-b' })).toBe('session:s_1.A-b');
    expect(valueNamespace({ scope: 'user', userId: 'a:b/c%' })).toBe('user:a%003ab%002fc%0025');
  });

  it('encodeOwnerId is one-to-one and never yields ":" or "/"', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 }), (a, b) => {
        const encodedA = encodeOwnerId(a);
        expect(encodedA).not.toMatch(/[:/]/);
        if (a !== b) expect(encodedA).not.toBe(encodeOwnerId(b));
      }),
    );
  });

  it('no pair of distinct owners shares a namespace', () => {
    const id = fc.oneof(
      fc.constantFrom('a', 'b', 'a/user:b', 'user:a', 'b/user:a', '%003a', ':', '/', '__proto__'),
      fc.string({ minLength: 1, maxLength: 6 }),
    );
    const owner: fc.Arbitrary<ValueOwner> = fc.oneof(
      id.map((userId) => ({ scope: 'user' as const, userId })),
      fc.tuple(id, id).map(([agentId, userId]) => ({ scope: 'agent' as const, agentId, userId })),
      fc.constant({ scope: 'app' as const }),
      fc.constantFrom('a', 'b', 'user', 'agent').map((sessionId) => ({ scope: 'session' as const, sessionId })),
    );
    fc.assert(
      fc.property(owner, owner, (first, second) => {
        if (JSON.stringify(first) !== JSON.stringify(second))
          expect(valueNamespace(first)).not.toBe(valueNamespace(second));
      }),
    );
  });

  it('namespaceSession names the session of session:<id> and session:<id>/… only', () => {
    expect(namespaceSession('session:s1')).toBe('s1');
    expect(namespaceSession('session:s1/embeddings')).toBe('s1');
    expect(namespaceSession('user:session%003as1')).toBeUndefined();
    expect(namespaceSession('app')).toBeUndefined();
  });

  it('the driver sees only namespaces the core built', async () => {
    const { driver, namespaces } = recordingDriver();
    const store = createSessionStore(driver);
    await store.values.set({ scope: 'agent', agentId: 'x/user:ann', userId: 'bob' }, { k: 1 });
    await store.values.get({ scope: 'user', userId: '../etc' }, 'k');
    expect(namespaces).toEqual(['agent:x%002fuser%003aann/user:bob', 'user:%002e%002e%002fetc']);
  });
});

describe('value keys', () => {
  it('accept 1 to 256 characters without control characters or lone surrogates', () => {
    expect(checkValueKey('k'.repeat(256))).toHaveLength(256);
    expect(checkValueKey('ключ 🔑')).toBe('ключ 🔑');
    for (const key of ['', 'k'.repeat(257), 'tab\t', 'del\u007f', 'c1\u0085', 'lone\uDC00', 42]) {
      expect(() => checkValueKey(key)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});

describe('stored values', () => {
  it('with a key, a sealed value moved to another owner or key fails with CORRUPT', async () => {
    const driver = memoryDriver();
    const store = createSessionStore(driver, { encryption: SECRET });
    await store.values.set({ scope: 'user', userId: 'ann' }, { secret: 'ann only' });
    const [record] = await driver.readValues('user:ann');
    if (record === undefined) throw new Error('nothing stored');
    expect(record.data).not.toContain('ann only');
    await driver.writeValues('user:bob', [{ key: 'secret', data: record.data }]);
    await driver.writeValues('user:ann', [{ key: 'other', data: record.data }]);
    expect(await codeOf(() => store.values.get({ scope: 'user', userId: 'bob' }, 'secret'))).toBe('CORRUPT');
    expect(await codeOf(() => store.values.get({ scope: 'user', userId: 'ann' }, 'other'))).toBe('CORRUPT');
    expect(await store.values.get({ scope: 'user', userId: 'ann' }, 'secret')).toBe('ann only');
    const flipped = record.data.slice(0, -3) + (record.data.at(-3) === 'A' ? 'B' : 'A') + record.data.slice(-2);
    await driver.writeValues('user:ann', [{ key: 'secret', data: flipped }]);
    expect(await codeOf(() => store.values.getAll({ scope: 'user', userId: 'ann' }))).toBe('CORRUPT');
  });

  it('damaged plain data fails with CORRUPT naming the store, the key and the scope, not the user', async () => {
    const driver = memoryDriver();
    const store = createSessionStore(driver);
    await driver.writeValues('user:private-name', [{ key: 'broken', data: '{not json' }]);
    let message = '';
    try {
      await store.values.get({ scope: 'user', userId: 'private-name' }, 'broken');
    } catch (error) {
      expect(ChatstateError.isInstance(error) && error.code).toBe('CORRUPT');
      message = (error as Error).message;
    }
    expect(message).toContain('memory');
    expect(message).toContain('"broken"');
    expect(message).toContain('user scope');
    expect(message).not.toContain('private-name');
  });

  it('a value of exactly MAX_VALUE_BYTES fits; multi-byte text counts in UTF-8 bytes', async () => {
    const store = createSessionStore(memoryDriver());
    const owner: ValueOwner = { scope: 'app' };
    await store.values.set(owner, { fits: 'x'.repeat(MAX_VALUE_BYTES - 2) });
    // 'é' is one UTF-16 unit but two UTF-8 bytes.
    expect(await codeOf(() => store.values.set(owner, { over: 'é'.repeat(MAX_VALUE_BYTES / 2) }))).toBe('TOO_LARGE');
  });

  it('a closed store refuses value operations with a rejection', async () => {
    const store = createSessionStore(memoryDriver());
    await store.close();
    const pending = store.values.get({ scope: 'app' }, 'k');
    expect(pending).toBeInstanceOf(Promise);
    expect(await codeOf(() => pending)).toBe('CLOSED');
  });
});

/**
 * A store's error reaches a tenant told in the tenant's names (never the store's prefixed id) and
 * still of its own class: an `UNAVAILABLE` stays an `UnavailableError` with `retryable`, a
 * `CONFLICT` a `ConflictError`, whichever operation it came from.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChatstateError, ConflictError, UnavailableError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { memoryStore } from '../../src/stores/memory.js';
import { tenantStore } from '../../src/tenancy/tenant-store.js';
import { wrappedStore } from '../support/wrapped-store.js';

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** What a store whose server went away answers about session `id`, as the Redis store words it. */
function outage(id: string): UnavailableError {
  return new UnavailableError(
    `test: the write to session ${JSON.stringify(id)} was applied but not confirmed (connection lost)`,
    { store: 'test', reason: 'UNCONFIRMED', outcome: 'applied', id, lock: `/var/chatstate/locks/${id}#write` },
  );
}

/** Tenant `acme`'s view of a store holding its session `s1`, whose id-taking calls fail while `down` is set. */
async function viewOfFailingStore(): Promise<{ view: SessionStore; fail: (down: boolean) => void }> {
  const inner = memoryStore();
  stores.push(inner);
  let down = false;
  const failing =
    <A extends unknown[], T>(call: (id: string, ...rest: A) => Promise<T>) =>
    (id: string, ...rest: A): Promise<T> =>
      down ? Promise.reject(outage(id)) : call(id, ...rest);
  const store = wrappedStore(inner, {
    get: failing((id) => inner.get(id)),
    summary: failing((id) => inner.summary(id)),
    append: failing((id, messages: Parameters<SessionStore['append']>[1], options) =>
      inner.append(id, messages, options),
    ),
    readMessages: failing((id, range: Parameters<SessionStore['readMessages']>[1]) => inner.readMessages(id, range)),
    delete: failing((id) => inner.delete(id)),
    save: (session, options) => (down ? Promise.reject(outage(session.id)) : inner.save(session, options)),
  });
  const view = tenantStore(store, { tenant: 'acme' });
  await view.save(Session.create({ id: 's1' }));
  return { view, fail: (value) => void (down = value) };
}

/** The error `call` rejects with. */
async function failure(call: Promise<unknown>): Promise<ChatstateError> {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!ChatstateError.isInstance(error)) throw new Error(`expected a chatstate error, got ${String(error)}`);
  return error;
}

describe('a store error told to a tenant', () => {
  it('an UNAVAILABLE keeps its class and retryable, and names only the tenant’s id, from every operation', async () => {
    const { view, fail } = await viewOfFailingStore();
    fail(true);
    const calls: Record<string, () => Promise<unknown>> = {
      append: () => view.append('s1', [Message.user('hi')]),
      save: () => view.save(Session.create({ id: 's1' })),
      readMessages: () => view.readMessages('s1'),
      get: () => view.get('s1'),
      load: () => view.load('s1'),
      getJson: () => view.getJson('s1'),
      summary: () => view.summary('s1'),
      delete: () => view.delete('s1'),
    };
    for (const [operation, call] of Object.entries(calls)) {
      const error = await failure(call());
      expect(error, operation).toBeInstanceOf(UnavailableError);
      expect(error, operation).toMatchObject({
        code: 'UNAVAILABLE',
        retryable: true,
        details: { id: 's1', lock: '/var/chatstate/locks/s1#write' },
      });
      expect(error.message, operation).toContain('"s1"');
      expect(error.message, operation).not.toContain('acme.s1');
      expect(JSON.stringify(error.details), operation).not.toContain('acme.s1');
      // The store's own error, with the store's names, stays inside as the cause (for the server's log).
      expect((error.cause as Error).message, operation).toContain('acme.s1');
    }
  });

  it('a CONFLICT stays a ConflictError, told with the tenant’s id', async () => {
    const { view } = await viewOfFailingStore();
    const error = await failure(view.append('s1', [Message.user('late')], { expectedVersion: 99 }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.message).not.toContain('acme.s1');
    expect(error.details).toMatchObject({ id: 's1' });
  });
});

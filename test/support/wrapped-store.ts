/**
 * A store that forwards every call to a real one, except those a test overrides (to count calls,
 * inject a failure, or let another writer in): one place to follow when `SessionStore` grows.
 */
import type { SessionStore } from '../../src/store/session-store-types.js';

/** `inner` with `overrides` in place of its own members. */
export function wrappedStore(inner: SessionStore, overrides: Partial<SessionStore> = {}): SessionStore {
  return {
    name: inner.name,
    load: (id) => inner.load(id),
    get: (id) => inner.get(id),
    getJson: (id) => inner.getJson(id),
    getJsonBytes: (id) => inner.getJsonBytes(id),
    save: (session, options) => inner.save(session, options),
    append: (id, messages, options) => inner.append(id, messages, options),
    readMessages: (id, range) => inner.readMessages(id, range),
    ...(inner.readMessagesAt === undefined ? {} : { readMessagesAt: inner.readMessagesAt.bind(inner) }),
    list: (query) => inner.list(query),
    summary: (id) => inner.summary(id),
    delete: (id) => inner.delete(id),
    purgeExpired: (options) => inner.purgeExpired(options),
    ping: () => inner.ping(),
    forgetUser: (userId) => inner.forgetUser(userId),
    values: inner.values,
    searchText: inner.searchText,
    ...(inner.changes === undefined ? {} : { changes: inner.changes }),
    close: () => inner.close(),
    ...overrides,
  };
}

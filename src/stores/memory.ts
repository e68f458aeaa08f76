/**
 * The in-memory store: for tests and short-lived processes. Records are immutable strings and
 * frozen heads, so nothing a caller holds can change what is stored.
 * @module
 */
import { NotFoundError } from '../errors.js';
import { createSessionStore, type SessionStoreOptions } from '../store/session-store.js';
import type { AppendCommit, AppendOutcome, HeadRecord, MessageRange, MessageRecord, ReplaceCommit, SessionStore, StoreDriver } from '../store/types.js';
import { appendToHead, checkVersion, rangeOf, sortAndPage } from '../store/driver-helpers.js';

interface Entry {
  head: HeadRecord;
  messages: MessageRecord[];
  ids: Set<string>;
}

/** The in-memory driver. */
export function memoryDriver(): StoreDriver {
  const sessions = new Map<string, Entry>();
  return {
    name: 'memory',
    async readHead(id) {
      return sessions.get(id)?.head;
    },
    async readAll(id) {
      const entry = sessions.get(id);
      return entry === undefined ? undefined : { head: entry.head, messages: entry.messages.slice() };
    },
    async readRange(id, range: MessageRange) {
      const entry = sessions.get(id);
      return entry === undefined ? undefined : rangeOf(entry.messages, range);
    },
    async append(id, commit: AppendCommit): Promise<AppendOutcome> {
      const entry = sessions.get(id);
      if (entry === undefined) throw new NotFoundError(`memory: no session ${JSON.stringify(id)}`, { details: { id } });
      checkVersion('memory', id, entry.head.version, commit.expectedVersion);
      const { head, appended, duplicates } = appendToHead(entry.head, commit, (messageId) => entry.ids.has(messageId));
      for (const record of appended) {
        entry.messages.push(record);
        entry.ids.add(record.id);
      }
      entry.head = head;
      return { version: head.version, appended, duplicates };
    },
    async replace(id, commit: ReplaceCommit) {
      const entry = sessions.get(id);
      if (commit.expectedVersion !== undefined) {
        checkVersion('memory', id, entry?.head.version ?? 0, commit.expectedVersion);
      }
      const messages = commit.messages.map((record) => Object.freeze({ ...record }));
      sessions.set(id, { head: Object.freeze({ ...commit.head }), messages, ids: new Set(messages.map((record) => record.id)) });
    },
    async list(query) {
      return sortAndPage([...sessions.values()].map((entry) => entry.head), query);
    },
    async remove(id) {
      return sessions.delete(id);
    },
    async purgeExpired(now) {
      let purged = 0;
      for (const [id, entry] of sessions) {
        if (entry.head.expiresAt !== undefined && entry.head.expiresAt <= now) {
          sessions.delete(id);
          purged += 1;
        }
      }
      return purged;
    },
    async close() {
      sessions.clear();
    },
  };
}

/** An in-memory `SessionStore`. */
export function memoryStore(options: SessionStoreOptions = {}): SessionStore {
  return createSessionStore(memoryDriver(), options);
}


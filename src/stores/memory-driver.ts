/**
 * The in-memory store: for tests and short-lived processes. Records are immutable strings and
 * frozen heads, so nothing a caller holds can change what is stored. The store core keeps the
 * (frozen) message each record stands for beside it, so loads parse nothing; the price is the
 * memory of both forms. Active memory's values are a map of namespaces; a session's namespaces go
 * with it.
 * @module
 */
import type { DriverChange, DriverChangeSink } from '../store/change-types.js';
import type {
  AppendCommit,
  AppendOutcome,
  DriverRange,
  HeadRecord,
  MessageRecord,
  ReplaceCommit,
  StoreDriver,
  TailCommit,
  ValueRecord,
} from '../store/driver-types.js';
import { VECTOR_KEY_PREFIX, isUserNamespace, namespaceSession } from '../store/values.js';
import { MEMORY_DRIVER_SHAPE } from './memory-store.js';
import {
  appendToHead,
  checkKeys,
  checkVersion,
  countBelow,
  isExpired,
  marksOfHeads,
  noSessionError,
  rangeOf,
  reusedIdError,
  sortAndPage,
  storeName,
} from '../store/driver-helpers.js';

/** Options of `memoryDriver`. */
export interface MemoryDriverOptions {
  /** Name of the store in error messages. @default 'memory' */
  name?: string;
}

interface Entry {
  head: HeadRecord;
  messages: MessageRecord[];
  ids: Set<string>;
}

/** The in-memory driver. */
export function memoryDriver(options: MemoryDriverOptions = {}): StoreDriver {
  const name = storeName(options.name, 'memory');
  const sessions = new Map<string, Entry>();
  const values = new Map<string, Map<string, string>>();
  /** Drops session `id`'s namespaces; returns how many values they held, and how many were vectors. */
  const dropValues = (id: string): { values: number; vectors: number } => {
    const dropped = { values: 0, vectors: 0 };
    for (const [ns, stored] of [...values]) {
      if (namespaceSession(ns) !== id) continue;
      dropped.values += stored.size;
      for (const key of stored.keys()) if (key.startsWith(VECTOR_KEY_PREFIX)) dropped.vectors += 1;
      values.delete(ns);
    }
    return dropped;
  };
  const removeSession = (id: string): boolean => {
    dropValues(id);
    const entry = sessions.get(id);
    if (entry === undefined) return false;
    sessions.delete(id);
    tell({ kind: 'delete', id, version: entry.head.version, ...owner(entry.head) });
    return true;
  };
  // Every store over this driver hears every write (the conformance suite puts two over one).
  const sinks = new Set<DriverChangeSink>();
  const tell = (change: DriverChange): void => {
    for (const sink of [...sinks]) sink.change(change);
  };
  const owner = (head: HeadRecord): { userId?: string } => (head.userId === undefined ? {} : { userId: head.userId });
  return {
    name,
    capabilities: MEMORY_DRIVER_SHAPE.capabilities,
    async readHead(id) {
      return sessions.get(id)?.head;
    },
    async readAll(id) {
      const entry = sessions.get(id);
      return entry === undefined ? undefined : { head: entry.head, messages: entry.messages.slice() };
    },
    async readRange(id, range: DriverRange) {
      const entry = sessions.get(id);
      return entry === undefined || isExpired(entry.head.expiresAt, range.now)
        ? undefined
        : rangeOf(entry.messages, range);
    },
    async readRecordsAt(refs, now) {
      return refs.map(({ sessionId, seq }) => {
        const entry = sessions.get(sessionId);
        if (entry === undefined || isExpired(entry.head.expiresAt, now)) return undefined;
        const record = entry.messages[countBelow(entry.messages, seq + 1) - 1];
        return record?.seq === seq ? record : undefined;
      });
    },
    async append(id, commit: AppendCommit): Promise<AppendOutcome> {
      const entry = sessions.get(id);
      if (entry === undefined || isExpired(entry.head.expiresAt, commit.now)) throw noSessionError(name, id);
      checkKeys(name, id, entry.head.keys, commit.keys?.expected);
      checkVersion(name, id, entry.head.version, commit.expectedVersion);
      const { head, appended, duplicates } = appendToHead(entry.head, commit, (messageId) => entry.ids.has(messageId));
      for (const record of appended) {
        entry.messages.push(record);
        entry.ids.add(record.id);
      }
      entry.head = head;
      if (appended.length > 0) tell({ kind: 'append', id, version: head.version, ...owner(head) });
      return { version: head.version, appended, duplicates };
    },
    async replace(id, commit: ReplaceCommit) {
      const entry = sessions.get(id);
      if (entry !== undefined) checkKeys(name, id, entry.head.keys, commit.expectedKeys);
      if (commit.expectedVersion !== undefined) {
        checkVersion(name, id, entry?.head.version ?? 0, commit.expectedVersion);
      }
      const messages = commit.messages.map((record) =>
        Object.isFrozen(record) ? record : Object.freeze({ ...record }),
      );
      sessions.set(id, {
        head: Object.freeze({ ...commit.head }),
        messages,
        ids: new Set(messages.map((record) => record.id)),
      });
      tell({ kind: 'replace', id, version: commit.head.version, ...owner(commit.head) });
    },
    async replaceTail(id, commit: TailCommit) {
      const entry = sessions.get(id);
      if (entry === undefined) throw noSessionError(name, id);
      checkVersion(name, id, entry.head.version, commit.expectedVersion);
      const keep = countBelow(entry.messages, commit.afterSeq + 1);
      // The ids of the kept messages are the session's less the dropped tail's: found in what the
      // tail costs, not in a new set of the whole session.
      const dropped = new Set(entry.messages.slice(keep).map((record) => record.id));
      const reused = commit.messages.find((record) => entry.ids.has(record.id) && !dropped.has(record.id));
      if (reused !== undefined) throw reusedIdError(name, id, reused.id);
      const added = commit.messages.map((record) =>
        Object.isFrozen(record) && !('text' in record)
          ? record
          : Object.freeze({ seq: record.seq, id: record.id, data: record.data }),
      );
      // The entry is replaced below: its id set passes to the new one, changed in place.
      const ids = entry.ids;
      for (const messageId of dropped) ids.delete(messageId);
      for (const record of added) ids.add(record.id);
      sessions.set(id, {
        head: Object.freeze({ ...commit.head }),
        messages: [...entry.messages.slice(0, keep), ...added],
        ids,
      });
      tell({ kind: 'replace', id, version: commit.head.version, ...owner(commit.head) });
    },
    async list(query) {
      return sortAndPage(
        [...sessions.values()].map((entry) => entry.head),
        query,
      );
    },
    async listMarks(userId, now) {
      return marksOfHeads(
        Array.from(sessions.values(), (entry) => entry.head),
        userId,
        now,
      );
    },
    async remove(id) {
      return removeSession(id);
    },
    async forgetUser(target) {
      const sessionIds: string[] = [];
      let messages = 0;
      let sessionValues = 0;
      let vectors = 0;
      for (const [id, entry] of [...sessions]) {
        if (entry.head.userId !== target.userId) continue;
        messages += entry.messages.length;
        const dropped = dropValues(id);
        sessionValues += dropped.values;
        vectors += dropped.vectors;
        removeSession(id);
        sessionIds.push(id);
      }
      let userValues = 0;
      for (const [ns, stored] of [...values]) {
        if (!isUserNamespace(ns, target)) continue;
        userValues += stored.size;
        values.delete(ns);
      }
      return {
        sessionIds,
        sessions: sessionIds.length,
        messages,
        values: userValues,
        sessionValues,
        vectors,
        textRows: 0,
        files: 0,
      };
    },
    async purgeExpired(now, idPrefix) {
      let purged = 0;
      for (const [id, entry] of sessions) {
        if (isExpired(entry.head.expiresAt, now) && (idPrefix === undefined || id.startsWith(idPrefix))) {
          removeSession(id);
          purged += 1;
        }
      }
      return purged;
    },
    async readValues(ns, keys) {
      const stored = values.get(ns);
      if (stored === undefined) return [];
      const records: ValueRecord[] =
        keys === undefined
          ? [...stored].map(([key, data]) => ({ key, data }))
          : keys.flatMap((key) => {
              const data = stored.get(key);
              return data === undefined ? [] : [{ key, data }];
            });
      return records.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async writeValues(ns, entries) {
      // Applied to a copy that replaces the namespace in one step: all the entries land, or none.
      const next = new Map(values.get(ns));
      for (const entry of entries) {
        if (entry.data === null) next.delete(entry.key);
        else next.set(entry.key, entry.data);
      }
      if (next.size === 0) values.delete(ns);
      else values.set(ns, next);
    },
    async watchChanges(sink) {
      sinks.add(sink);
      // Nothing to connect: live at once, and never interrupted.
      sink.live(false);
      return async () => void sinks.delete(sink);
    },
    async close() {
      sinks.clear();
      sessions.clear();
      values.clear();
    },
  };
}

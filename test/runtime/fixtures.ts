/**
 * Stores for runtime tests: real memory, file and SQLite stores (the file and SQLite ones in a
 * fresh temporary directory), closed and removed after each test; and snapshots of what a store
 * holds, to prove a failed turn left it exactly as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Conversation } from '../../src/runtime/conversation.js';
import type { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore } from '../../src/stores/file/index.js';
import { memoryStore } from '../../src/stores/memory.js';
import { sqliteStore } from '../../src/stores/sqlite/index.js';

/** A store kind the runtime tests run against. */
export type StoreKind = 'memory' | 'file' | 'sqlite';

/** Every kind, for `describe.each`. */
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'file', 'sqlite'];

/** An open store and a way to open the same data again (a process restart); memory cannot. */
export interface OpenedStore {
  readonly store: SessionStore;
  /** Closes `store` and opens a new store on the same file or directory. */
  reopen(): Promise<SessionStore>;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** Closes `conversation` after the test. */
export function closeAfterTest(conversation: Conversation): Conversation {
  cleanups.push(() => conversation.close());
  return conversation;
}

async function openAt(kind: StoreKind, directory: string): Promise<SessionStore> {
  switch (kind) {
    case 'memory':
      return memoryStore();
    case 'file':
      return fileStore(directory);
    case 'sqlite':
      return sqliteStore(join(directory, 'sessions.db'));
    default:
      return kind satisfies never;
  }
}

/** A fresh store of `kind`, closed and removed after the test. */
export async function openStoreOf(kind: StoreKind): Promise<OpenedStore> {
  const directory = mkdtempSync(join(tmpdir(), `chatstate-runtime-${kind}-`));
  const opened: SessionStore[] = [await openAt(kind, directory)];
  cleanups.push(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
  });
  const first = opened[0] as SessionStore;
  return {
    store: first,
    async reopen() {
      if (kind === 'memory') throw new Error('a memory store cannot be reopened');
      for (const store of opened) await store.close();
      const next = await openAt(kind, directory);
      opened.push(next);
      return next;
    },
  };
}

/** What a store holds for session `id`, as JSON (every field), or `undefined` when it has none. */
export async function snapshot(store: SessionStore, id: string): Promise<unknown> {
  const session = await store.get(id);
  return session === undefined ? undefined : (JSON.parse(JSON.stringify(session)) as unknown);
}

/** A session as JSON without `updatedAt` (a store stamps its own time): to compare a returned session with the stored one. */
export function shape(session: Session): unknown {
  const { updatedAt: _updatedAt, ...rest } = session.toJSON();
  return JSON.parse(JSON.stringify(rest)) as unknown;
}

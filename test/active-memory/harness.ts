/**
 * What the active-memory spec runs on: a store under test (fresh store, a second store over the
 * same data, cleanup), one per backend, and the deterministic embedding function the recall tests
 * give as the caller's collaborator.
 */
import { expect } from 'vitest';
import { Message } from '../../src/message/message.js';
import { Session } from '../../src/session/session.js';
import {
  fileSubject,
  memorySubject,
  postgresSubject,
  redisSubject,
  sqliteSubject,
  storesOf,
  type Stores,
  type StoreUnderTest,
} from '../support/stores-under-test.js';
import type { SessionStore } from '../../src/store/session-store-types.js';

export { EMBED_DIMENSIONS, hashedEmbed } from '../support/hashed-embed.js';
export { fileSubject, memorySubject, postgresSubject, redisSubject, sqliteSubject, storesOf };
export type { Stores, StoreUnderTest };

/** Awaits `promise` and checks that it rejects with a `kind` error of `code`. */
export async function expectRejection(
  promise: Promise<unknown>,
  kind: abstract new (...args: never[]) => Error,
  code: string,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, `expected a ${kind.name} with code ${code}`).toBeInstanceOf(kind);
  expect((error as { code?: unknown }).code).toBe(code);
}

/** Saves session `id` of `userId` with one message per text (user and assistant in turn); returns the stored session. */
export async function seedSession(
  store: SessionStore,
  id: string,
  userId: string | undefined,
  texts: readonly string[],
): Promise<Session> {
  const messages = texts.map((text, index) => (index % 2 === 0 ? Message.user(text) : Message.assistant(text)));
  return store.save(Session.create({ id, ...(userId === undefined ? {} : { userId }), messages }));
}

/**
 * What the active-memory spec runs on: a store under test (fresh store, a second store over the
 * same data, cleanup), one per backend, and the deterministic embedding function the recall tests
 * give as the caller's collaborator.
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { Embed } from '../../src/active-memory/types.js';
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

export { fileSubject, memorySubject, postgresSubject, redisSubject, sqliteSubject, storesOf };
export type { Stores, StoreUnderTest };

// Words the test embedding treats as one meaning: what a real embedding model does and a text index cannot.
const SYNONYMS: Readonly<Record<string, string>> = {
  canine: 'dog',
  puppy: 'dog',
  hound: 'dog',
  automobile: 'car',
  vehicle: 'car',
};

/** Dimensions of `hashedEmbed`'s vectors. */
export const EMBED_DIMENSIONS = 64;

/**
 * A deterministic embedding (the caller's collaborator in these tests): hashed bag of words, with
 * a few synonyms folded together, so that "canine" lands near "dog". `calls` records every batch.
 */
export function hashedEmbed(): Embed & { calls: string[][] } {
  const calls: string[][] = [];
  const embed = async (texts: readonly string[]): Promise<number[][]> => {
    calls.push([...texts]);
    return texts.map((text) => {
      const vector = new Array<number>(EMBED_DIMENSIONS).fill(0);
      for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
        const word = SYNONYMS[raw] ?? raw;
        const digest = createHash('sha256').update(word).digest();
        const slot = (digest[0] as number) % EMBED_DIMENSIONS;
        vector[slot] = (vector[slot] as number) + ((digest[1] as number) % 2 === 0 ? 1 : -1);
      }
      return vector;
    });
  };
  return Object.assign(embed, { calls });
}

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

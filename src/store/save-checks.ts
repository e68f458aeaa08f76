/**
 * What `save` and `replaceTail` check of what they are given, before anything else: one owner for
 * every store (the core store and the remote one), so bad input is refused alike everywhere.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { assertOwnerId, assertValidId } from '../ids.js';
import { Message } from '../message/message.js';
import { Session } from '../session/session.js';
import { checkHeadState, type HeadData } from './codec.js';
import type { ReplaceTailInput } from './session-store-types.js';

/** `value` when it is a non-negative integer (a positive one with `positive`) of at most `max`; `INVALID_ARGUMENT` naming `what` otherwise. */
export function nonNegativeInteger(
  value: unknown,
  what: string,
  { positive = false, max = Number.MAX_SAFE_INTEGER } = {},
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < (positive ? 1 : 0) || value > max) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${what} must be ${positive ? 'a positive' : 'a non-negative'} integer${max < Number.MAX_SAFE_INTEGER ? ` of at most ${max}` : ''}`,
    );
  }
  return value;
}

/** A `replaceTail` input checked, its messages given ids (each once); `INVALID_ARGUMENT` otherwise. */
export function checkReplaceTail(
  input: unknown,
  store: string,
): {
  readonly afterSeq: number;
  readonly expectedVersion: number;
  readonly messages: Message[];
  readonly state: HeadData | undefined;
} {
  if (typeof input !== 'object' || input === null)
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `${store}: replaceTail needs { afterSeq, messages, expectedVersion }`,
    );
  const given = input as Partial<Record<keyof ReplaceTailInput, unknown>>;
  const expectedVersion = nonNegativeInteger(given.expectedVersion, 'expectedVersion');
  const afterSeq = nonNegativeInteger(given.afterSeq, 'afterSeq');
  if (!Array.isArray(given.messages))
    throw new InvalidInputError('INVALID_ARGUMENT', `${store}: replaceTail needs an array of messages`);
  const messages = given.messages.map((message: unknown) => Message.from(message as Message));
  const ids = new Set<string>();
  for (const message of messages) {
    if (ids.has(message.id))
      throw new InvalidInputError('INVALID_ARGUMENT', `${store}: replaceTail gives message id ${message.id} twice`);
    ids.add(message.id);
  }
  const state = given.state === undefined ? undefined : checkHeadState(given.state);
  return { afterSeq, expectedVersion, messages, state };
}

/**
 * Refuses what store `store` cannot save: not a `Session` (`INVALID_SESSION`), a hostile id or
 * owner (`INVALID_ID`, checked before the next so a hostile one is refused as such, as in every
 * other call), or a look-alike built on the prototype (`INVALID_SESSION`: only a session `Session`
 * made holds what it checked — version, dates, messages, JSON state).
 */
export function assertSaveable(session: unknown, store: string): asserts session is Session {
  if (!(session instanceof Session)) throw new InvalidInputError('INVALID_SESSION', `${store}: save needs a Session`);
  assertValidId(session.id, 'session id');
  if (session.userId !== undefined) assertOwnerId(session.userId, 'userId');
  if (session.agentId !== undefined) assertOwnerId(session.agentId, 'agentId');
  if (!Session.is(session)) {
    throw new InvalidInputError(
      'INVALID_SESSION',
      `${store}: save needs a Session made by Session (create, fromJSON or one of its methods), not a look-alike`,
    );
  }
}

/**
 * What `save` checks of the session it is given, before anything else: one owner for every store
 * (the core store and the remote one), so a bad session is refused alike everywhere.
 * @module
 */
import { InvalidInputError } from '../errors.js';
import { assertOwnerId, assertValidId } from '../ids.js';
import { Session } from '../session/session.js';

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

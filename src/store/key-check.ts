/**
 * The key check stored with each session: which encryption keys its records may be sealed with,
 * each with a fingerprint of its secret (`k1:<fp>,k2:<fp>`, key ids ascending; absent for a
 * session of plain records). A writer proves it can read back everything the session holds by
 * holding every one of those keys with the same fingerprint — without decrypting a single record
 * — and a store refuses, before writing anything, a write that would fail that test: a wrong
 * secret under a known key id, a key id the writer does not hold, or no key at all on an
 * encrypted session. Otherwise one writer with a wrong key would make the session unreadable for
 * everyone.
 *
 * Drivers compare the stored check with the one a commit expects (a string comparison inside
 * their atomic commit) and store the next one; the core decides what a check allows.
 * @module
 */
import { InvalidInputError } from '../errors.js';

/**
 * What a writer holds: its current key (`undefined` without encryption) and every key's
 * fingerprint. A user's own key (`user-keyring.ts`) is named `u.<slot>.<gen>` (ring key ids hold
 * no dot); `userKeys` says whether the writer has a user key store to find such keys in.
 */
export interface KeyHolding {
  readonly current: string | undefined;
  readonly fingerprints: ReadonlyMap<string, string>;
  readonly userKeys?: boolean;
}

/** True when `id` names a user's own key rather than a key of the store's ring. */
export function isUserKeyId(id: string): boolean {
  return id.startsWith('u.');
}

/** The stored check as id → fingerprint (`''` or `undefined`: a session of plain records). */
function parse(stored: string | undefined): Map<string, string> {
  const keys = new Map<string, string>();
  if (stored === undefined || stored === '') return keys;
  for (const entry of stored.split(',')) {
    const colon = entry.indexOf(':');
    keys.set(entry.slice(0, colon), entry.slice(colon + 1));
  }
  return keys;
}

function format(keys: ReadonlyMap<string, string>): string {
  return [...keys]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, fingerprint]) => `${id}:${fingerprint}`)
    .join(',');
}

/** Why `holding` cannot read back a session with check `stored`; `undefined` when it can. */
export function keyProblem(stored: string | undefined, holding: KeyHolding): string | undefined {
  const needed = parse(stored);
  if (needed.size === 0) return undefined;
  if (holding.current === undefined)
    return `the session is encrypted (keys ${[...needed.keys()].join(', ')}) and this store has no encryption key`;
  for (const [id, fingerprint] of needed) {
    const held = holding.fingerprints.get(id);
    if (held === undefined && isUserKeyId(id))
      return holding.userKeys === true
        ? "the session is sealed with its user's own key, which is not in the user key store: it was destroyed when the user was forgotten (or this is another user key store)"
        : "the session is sealed with its user's own key, and this store has no user key store (userKeys)";
    if (held === undefined) return `the session uses key ${JSON.stringify(id)}, which is not in this store's key ring`;
    if (held !== fingerprint)
      return `key ${JSON.stringify(id)} of this store's key ring is not the key the session was written with`;
  }
  return undefined;
}

/** The check of a session after `holding` appended to it: what it had, and the writer's current key. */
export function keysAfterAppend(stored: string | undefined, holding: KeyHolding): string {
  if (holding.current === undefined) return stored ?? '';
  const keys = parse(stored);
  keys.set(holding.current, holding.fingerprints.get(holding.current) as string);
  return format(keys);
}

/** The check of a session `holding` wrote whole: only its current key. */
export function keysAfterReplace(holding: KeyHolding): string {
  return holding.current === undefined
    ? ''
    : format(new Map([[holding.current, holding.fingerprints.get(holding.current) as string]]));
}

/** `WRONG_KEY`: the write was refused before anything was written. */
export function wrongKey(store: string, id: string, problem: string): InvalidInputError {
  return new InvalidInputError(
    'WRONG_KEY',
    `${store}: refusing to write session ${JSON.stringify(id)}: ${problem}; nothing was written (a write this store could not read back would make the session unreadable)`,
    {
      details: { id },
    },
  );
}

/** `WRONG_KEY` on a read: the session's key check says this store cannot open its records (damage stays `CORRUPT`). */
export function unreadableKey(store: string, id: string, problem: string): InvalidInputError {
  return new InvalidInputError('WRONG_KEY', `${store}: cannot read session ${JSON.stringify(id)}: ${problem}`, {
    details: { id },
  });
}

/**
 * The session bundle: one session with the active-memory values that belong to it, read from a
 * store and written to one. Export, import and migrate all read and write sessions through here.
 *
 * "Its values" are those of the owners the session names: the `session` scope of its id, the
 * `user` scope of its `userId`, and the `agent` scope of its `agentId` and `userId`. The `app`
 * scope belongs to no session (see `readAppValues`); values of a user with no session are not
 * reachable from any session and are not carried.
 * @module
 */
import { ChatstateError, ConflictError } from '../errors.js';
import type { JsonValue } from '../message/schema.js';
import type { Session } from '../session/session.js';
import type { SessionStore, SessionSummary, ValueOwner } from '../store/session-store-types.js';
import { valueNamespace } from '../store/values.js';
import { BoundedMap } from '../internal/bounded-map.js';
import { canonicalJson } from '../internal/canonical-json.js';
import { defineField } from '../internal/define-field.js';

/** Values of one owner, by key. */
export type ValueMap = Readonly<Record<string, JsonValue>>;

/** The values a session carries, by scope (a scope with no values is absent). */
export interface BundleValues {
  readonly session?: ValueMap;
  /** The `user` scope of the session's `userId`. */
  readonly user?: ValueMap;
  /** The `agent` scope of the session's `agentId` and `userId`. */
  readonly agent?: ValueMap;
}

/** The scopes a bundle carries, in the order they are read and written. */
export const BUNDLE_SCOPES = ['session', 'user', 'agent'] as const;

/** A scope a bundle carries. */
export type BundleScope = (typeof BUNDLE_SCOPES)[number];

/** One session as export, import and migrate move it. */
export interface SessionBundle {
  readonly session: Session;
  readonly values: BundleValues;
  /** When the session expires (ISO-8601): an import gives it the retention left. */
  readonly expiresAt?: string;
}

/** What names a session's value owners: its id and owners (a `Session` or a `SessionSummary`). */
export type SessionOwners = Pick<Session, 'id' | 'userId' | 'agentId'>;

/** The owner of `scope` for `session`, or `undefined` when the session names no such owner. */
export function ownerOf(scope: BundleScope, session: SessionOwners): ValueOwner | undefined {
  switch (scope) {
    case 'session':
      return { scope: 'session', sessionId: session.id };
    case 'user':
      return session.userId === undefined ? undefined : { scope: 'user', userId: session.userId };
    case 'agent':
      return session.userId === undefined || session.agentId === undefined
        ? undefined
        : { scope: 'agent', agentId: session.agentId, userId: session.userId };
    default: {
      const never: never = scope;
      return never;
    }
  }
}

/** Every value of `owner`, or `{}` when the store keeps no values (`UNSUPPORTED`). */
export async function valuesOf(store: SessionStore, owner: ValueOwner): Promise<Record<string, JsonValue>> {
  try {
    return await store.values.getAll(owner);
  } catch (error) {
    if (ChatstateError.hasCode(error, 'UNSUPPORTED')) return {};
    throw error;
  }
}

/** Shared owners (user, agent scopes) remembered at most, per run. */
const MAX_SHARED = 10_000;

/**
 * The values of shared owners (the user and agent scopes, which many sessions carry) in one run
 * of export or migrate: each is read once from the source, and checked or written once in the
 * target, instead of once a session. Bounded, the oldest out first: forgotten entries are only
 * read again.
 */
export class SharedValues {
  private readonly reads = new BoundedMap<string, Promise<Record<string, JsonValue>>>({ max: MAX_SHARED });
  private readonly confirmed = new BoundedMap<string, true>({ max: MAX_SHARED });

  /** The values of `owner` in `store`, read once per run. */
  read(store: SessionStore, owner: ValueOwner): Promise<Record<string, JsonValue>> {
    const key = `${store.name}\n${valueNamespace(owner)}`;
    let found = this.reads.get(key);
    if (found === undefined) {
      const reading = valuesOf(store, owner);
      // A failed read is not remembered: the next session tries again.
      reading.catch(() => {
        if (this.reads.get(key) === reading) this.reads.delete(key);
      });
      this.reads.set(key, reading);
      found = reading;
    }
    return found;
  }

  /** True when `values` of `owner` were already found equal in, or written to, `store` in this run. */
  isConfirmed(store: SessionStore, owner: ValueOwner, values: ValueMap): boolean {
    return this.confirmed.has(confirmKey(store, owner, values));
  }

  /** Remembers that `store` holds `values` of `owner`. */
  confirm(store: SessionStore, owner: ValueOwner, values: ValueMap): void {
    this.confirmed.set(confirmKey(store, owner, values), true);
  }
}

function confirmKey(store: SessionStore, owner: ValueOwner, values: ValueMap): string {
  return `${store.name}\n${valueNamespace(owner)}\n${canonicalJson(values)}`;
}

/** The values of `session`'s owners in `store` (the user and agent scopes through `shared`, when given). */
export async function readValues(
  store: SessionStore,
  session: SessionOwners,
  shared?: SharedValues,
): Promise<BundleValues> {
  const values: Record<string, ValueMap> = {};
  for (const scope of BUNDLE_SCOPES) {
    const owner = ownerOf(scope, session);
    if (owner === undefined) continue;
    const found =
      shared !== undefined && scope !== 'session' ? await shared.read(store, owner) : await valuesOf(store, owner);
    if (Object.keys(found).length > 0) values[scope] = found;
  }
  return values;
}

/** The app scope's values (shared by every user: they belong to no session). */
export async function readAppValues(store: SessionStore): Promise<Record<string, JsonValue>> {
  return valuesOf(store, { scope: 'app' });
}

/**
 * Session `id` of `store` with its values, or `undefined` when there is none. `summary`, when the
 * caller has it from `list`, saves a read for the expiry.
 */
export async function readBundle(
  store: SessionStore,
  id: string,
  summary?: SessionSummary,
  shared?: SharedValues,
): Promise<SessionBundle | undefined> {
  const session = await store.get(id);
  if (session === undefined) return undefined;
  const head = summary ?? (await store.summary(id));
  return {
    session,
    values: await readValues(store, session, shared),
    ...(head?.expiresAt === undefined ? {} : { expiresAt: head.expiresAt }),
  };
}

/**
 * The session as compared: its JSON without `updatedAt`. Copies keep it (`keepUpdatedAt`), but a
 * session copied before they did, or changed since in a way that left its data equal, differs
 * only there and is the same conversation.
 */
export function comparableSession(session: Session): string {
  const { updatedAt: _updatedAt, ...rest } = session.toJSON();
  return canonicalJson(rest);
}

/**
 * The session as a store holds it once saved new: sequence numbers given to messages without one
 * (after the one before, as `save` gives them) and a version of at least 1. A session read from
 * a store is already so; one an importer made is not, and compares equal to its stored copy.
 */
export function comparableAsStored(session: Session): string {
  const json = session.toJSON();
  const { updatedAt: _updatedAt, ...rest } = json;
  let previous = 0;
  const messages = (rest.messages as Array<{ seq?: number }>).map((message) => {
    const seq = message.seq !== undefined && message.seq > previous ? message.seq : previous + 1;
    previous = seq;
    return message.seq === seq ? message : { ...message, seq };
  });
  return canonicalJson({ ...rest, messages, version: Math.max(rest.version, 1) });
}

/** True when two sessions hold the same data (everything but `updatedAt`). */
export function sameSession(a: Session, b: Session): boolean {
  return comparableSession(a) === comparableSession(b);
}

/** What `writeBundle` did. */
export type WriteOutcome = 'created' | 'unchanged' | 'replaced' | 'expired';

/** Options of `writeBundle`. */
export interface WriteBundleOptions {
  /**
   * `skip`: a session already there must be equal (it is left as it is) or the write is refused
   * with `CONFLICT`; `replace`: a different session or value is overwritten. @default 'skip'
   */
  readonly mode?: 'skip' | 'replace';
  /** Clock for the retention left. @default Date.now */
  readonly now?: () => number;
  /** Shared owners' values already checked in this run (see `SharedValues`). */
  readonly shared?: SharedValues;
}

/** The differences between a bundle and what a store holds: `session` and `scope.key` names. */
async function differences(
  store: SessionStore,
  bundle: SessionBundle,
  existing: Session | undefined,
  shared: SharedValues | undefined,
): Promise<{
  differ: string[];
  writes: Array<{ owner: ValueOwner; entries: Record<string, JsonValue> }>;
  settled: Array<{ owner: ValueOwner; values: ValueMap }>;
}> {
  const differ: string[] = [];
  const writes: Array<{ owner: ValueOwner; entries: Record<string, JsonValue> }> = [];
  const settled: Array<{ owner: ValueOwner; values: ValueMap }> = [];
  if (existing !== undefined && comparableSession(existing) !== comparableAsStored(bundle.session))
    differ.push('session');
  for (const scope of BUNDLE_SCOPES) {
    const carried = bundle.values[scope];
    const owner = ownerOf(scope, bundle.session);
    if (carried === undefined || owner === undefined || Object.keys(carried).length === 0) continue;
    if (scope !== 'session' && shared?.isConfirmed(store, owner, carried) === true) continue;
    if (scope === 'session' && existing === undefined) {
      // Session values without their session are what a stopped run left (or a deleted session's
      // remains): they belong to no one, so the bundle's are written over them unread.
      writes.push({ owner, entries: { ...carried } });
      continue;
    }
    const stored = await valuesOf(store, owner);
    if (scope !== 'session') settled.push({ owner, values: carried });
    const entries: Record<string, JsonValue> = {};
    for (const key of Object.keys(carried)) {
      const value = carried[key] as JsonValue;
      // A key the target lacks is written (an earlier run may have stopped before it); a key it
      // holds with another value is a difference.
      if (!Object.hasOwn(stored, key)) defineField(entries, key, value);
      else if (canonicalJson(stored[key]) !== canonicalJson(value)) {
        differ.push(`${scope}.${key}`);
        defineField(entries, key, value);
      }
    }
    if (Object.keys(entries).length > 0) writes.push({ owner, entries });
  }
  return { differ, writes, settled };
}

/**
 * Writes `bundle` into `store`. A new session is created with its values (values first: a run
 * stopped between the two finds them equal and creates the session). A session already there is
 * left as it is when equal (values it lacks are added), and otherwise refused with `CONFLICT`
 * naming what differs, unless `mode` is `replace`. Values are merged key by key: a write never
 * deletes a value. A session whose retention ended is not written (`expired`).
 */
export async function writeBundle(
  store: SessionStore,
  bundle: SessionBundle,
  options: WriteBundleOptions = {},
): Promise<WriteOutcome> {
  const { session } = bundle;
  const now = (options.now ?? Date.now)();
  let ttlMs: number | undefined;
  if (bundle.expiresAt !== undefined) {
    ttlMs = Date.parse(bundle.expiresAt) - now;
    if (!(ttlMs > 0)) return 'expired';
  }
  const existing = await store.get(session.id);
  const { differ, writes, settled } = await differences(store, bundle, existing, options.shared);
  if (differ.length > 0 && options.mode !== 'replace') {
    throw new ConflictError(
      `${store.name}: session ${session.id} is already there and differs (${differ.slice(0, 5).join(', ')}${differ.length > 5 ? ', …' : ''}); use replace to overwrite it`,
      { details: { sessionId: session.id, differ: differ.slice(0, 50) } },
    );
  }
  if (existing !== undefined && differ.length === 0) {
    for (const { owner, entries } of writes) await store.values.set(owner, entries);
    for (const { owner, values } of settled) options.shared?.confirm(store, owner, values);
    return 'unchanged';
  }
  if (existing !== undefined) {
    // Replaced as delete then create, so the copy keeps the bundle's version (a save over it would
    // bump past the old one); deleting drops the old session-scope values too. A run stopped in
    // between finds no session and creates it.
    await store.delete(session.id);
    const again = await differences(store, bundle, undefined, undefined);
    writes.splice(0, writes.length, ...again.writes);
  }
  for (const { owner, entries } of writes) await store.values.set(owner, entries);
  // The copy keeps when its conversation last changed, not when it was copied.
  await store.save(session, { expectedVersion: 0, keepUpdatedAt: true, ...(ttlMs === undefined ? {} : { ttlMs }) });
  for (const { owner, values } of settled) options.shared?.confirm(store, owner, values);
  return existing === undefined ? 'created' : 'replaced';
}

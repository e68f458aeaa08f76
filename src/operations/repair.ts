/**
 * `repairSessions`: applies what the store can recover, and says what it did. A store that keeps
 * backups and journals (the file store) repairs a damaged session when it reads it: the damaged
 * files go to lost+found, the session is restored from its backup or cut at the damage, and a
 * recovery notice tells the loss. Reading each session through the store runs that repair and
 * tells notices a session does not tell yet. Optionally, tool calls and results left unpaired are
 * repaired the way importers do (no text is dropped) and the session is saved. A session whose
 * metadata names its kind but whose head does not (saved before heads carried kinds) is saved as
 * it is, so that `list` leaves it out of the conversations.
 * Stores without backups (SQLite, Postgres, Redis) detect damage (`CORRUPT`) but cannot undo it:
 * such a session is reported as not repairable.
 * @module
 */
import { ChatstateError, errorMessage, type ErrorCode } from '../errors.js';
import { repairToolPairs } from '../interchange/repair.js';
import { kindOfMetadata } from '../store/session-kind.js';
import type { SessionStore, SessionSummary } from '../store/session-store-types.js';
import type { Session } from '../session/session.js';
import type { DamageLog } from './damage.js';
import { mapOrdered } from './pool.js';
import { concurrencyOf, report, type LongRunOptions } from './progress.js';
import { selected, selectionOf } from './walk.js';

/** What repair did to one session. */
export interface SessionRepair {
  readonly sessionId: string;
  /** `repaired`: something was changed; `unrepairable`: the store cannot read it and cannot recover it. */
  readonly status: 'repaired' | 'unrepairable';
  /** What was done (or why nothing could be), one sentence each. */
  readonly actions: readonly string[];
  /** The error a session that could not be repaired is read with. */
  readonly code?: ErrorCode;
}

/** The report of `repairSessions`: sessions that needed nothing are only counted. */
export interface RepairReport {
  readonly checked: number;
  readonly repaired: number;
  readonly unrepairable: number;
  /** The sessions repaired or not repairable (the first `maxEntries`). */
  readonly sessions: readonly SessionRepair[];
  readonly omitted: number;
}

/** Options of `repairSessions`. */
export interface RepairOptions extends LongRunOptions {
  readonly ids?: readonly string[];
  readonly all?: boolean;
  /** Damage the store reports while repair reads (the file store's `onDamage`). */
  readonly damage?: DamageLog;
  /** Also pair tool calls and results (orphans kept as context, calls answered) and save. @default false */
  readonly toolPairs?: boolean;
  /** Entries kept in the report. @default 1000 */
  readonly maxEntries?: number;
}

async function repairOne(
  store: SessionStore,
  id: string,
  before: SessionSummary | undefined,
  options: RepairOptions,
): Promise<SessionRepair | undefined> {
  const versionBefore = before?.version;
  const actions: string[] = [];
  let session: Session | undefined;
  let failure: ChatstateError | undefined;
  try {
    session = await store.get(id);
  } catch (error) {
    if (!ChatstateError.isInstance(error)) throw error;
    failure = error;
  }
  for (const damage of options.damage?.take(id) ?? [])
    actions.push(
      `${damage.kind}: ${damage.reason}${damage.keptAside.length === 0 ? '' : ` (damaged files kept in ${damage.keptAside.join(', ')})`}`,
    );
  if (failure !== undefined) {
    const why = ChatstateError.hasCode(failure, 'WRONG_KEY')
      ? 'it is sealed with a key not given (give the key; nothing is damaged)'
      : `${store.name} cannot recover it: ${errorMessage(failure)}`;
    return { sessionId: id, status: 'unrepairable', actions: [...actions, why], code: failure.code };
  }
  if (session === undefined) return actions.length === 0 ? undefined : { sessionId: id, status: 'repaired', actions };
  if (versionBefore !== undefined && session.version > versionBefore && actions.length === 0)
    actions.push(`recovery notices told in the session (version ${versionBefore} → ${session.version})`);
  if (options.toolPairs === true) {
    const paired = repairToolPairs(session.messages);
    if (paired.repairs.length > 0) {
      session = await store.save(session.withMessages(paired.messages), { expectedVersion: session.version });
      actions.push(...paired.repairs.map((each) => `${each.kind}: ${each.message}`));
    }
  }
  // A session saved before heads carried kinds (or last written by appends alone) lists as a
  // conversation until saved again: saving it as it is records its kind, and keeps its place in the list.
  const kind = kindOfMetadata(session.metadata);
  if (kind !== undefined && before !== undefined && before.kind !== kind) {
    await store.save(session, { expectedVersion: session.version, keepUpdatedAt: true });
    actions.push(`kind ${kind} recorded in the head: listed as an internal session from now on`);
  }
  return actions.length === 0 ? undefined : { sessionId: id, status: 'repaired', actions };
}

/** The head of a named session before it is read (`undefined` when it cannot be read: the read says why). */
async function headOf(store: SessionStore, id: string): Promise<SessionSummary | undefined> {
  try {
    return await store.summary(id);
  } catch (error) {
    if (ChatstateError.isInstance(error)) return undefined;
    throw error;
  }
}

/** Reads the sessions selected through the store (running its repairs) and reports what was repaired or cannot be. */
export async function repairSessions(store: SessionStore, options: RepairOptions = {}): Promise<RepairReport> {
  const selection = selectionOf(options.ids === undefined || options.ids.length === 0 ? { all: true } : options);
  const maxEntries = options.maxEntries ?? 1000;
  const sessions: SessionRepair[] = [];
  let checked = 0;
  let repaired = 0;
  let unrepairable = 0;
  let omitted = 0;
  const results = mapOrdered(
    selected(store, selection, options.signal),
    concurrencyOf(options.concurrency),
    async ({ id, summary }) => repairOne(store, id, summary ?? (await headOf(store, id)), options),
    options.signal,
  );
  for await (const result of results) {
    checked += 1;
    if (result !== undefined) {
      if (result.status === 'repaired') repaired += 1;
      else unrepairable += 1;
      if (sessions.length < maxEntries) sessions.push(result);
      else omitted += 1;
    }
    report(options.onProgress, {
      done: checked,
      failed: unrepairable,
      ...(options.total === undefined ? {} : { total: options.total }),
    });
  }
  return { checked, repaired, unrepairable, sessions, omitted };
}

/**
 * Crash consistency of the file store, ALICE / CrashMonkey style: a deterministic workload runs
 * on a real directory through a recording `FileSystem` (`test/support/crash-fs.ts`), which puts
 * every mutating file operation — and every operation the workload began and every
 * acknowledgement it received — into one trace. From the trace, `test/support/crash-states.ts`
 * rebuilds the directory as a crash after each operation could have left it (what barriers made
 * durable, plus every prefix of the rest, with torn writes), and each distinct image is opened by
 * a new store and checked:
 *
 * - reading (`get`, `readMessages`, `list`, values) throws nothing;
 * - every append acknowledged before the crash is there, with its content, in acknowledged order,
 *   its messages contiguous; a save acknowledged is there (or a later one begun); a delete
 *   acknowledged stays deleted; nothing appears that no operation wrote;
 * - sequence numbers increase; the version is at least the highest acknowledged;
 * - acknowledged values are readable;
 * - the store is writable afterwards: one more append per session, read back, version forward.
 *
 * The one promise that must hold everywhere is that nothing acknowledged is lost (and nothing
 * throws, and no version goes backwards): the test fails on any such finding. What a crash should
 * not cause but breaks no promise — `onDamage` reports, recovery sessions and notices — is counted
 * and printed: a crash between the two renames of a fold or replace reads the backup and reports
 * `restored-from-backup` (the store's design). A creation torn inside its first journal line was
 * taken for damage until the harness found it (the regression test at the end). Two negative
 * controls show the harness finds losses when a barrier is taken out of the trace.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatstateError } from '../../src/errors.js';
import { Message } from '../../src/message/message.js';
import type { JsonObject, JsonValue } from '../../src/message/schema.js';
import { Session } from '../../src/session/session.js';
import type { SessionStore } from '../../src/store/session-store-types.js';
import { fileStore, type DamageReport, type FileStoreOptions } from '../../src/stores/file/index.js';
import { CrashRecorder, describeOp, type Trace, type TraceOp } from '../support/crash-fs.js';
import {
  buildState,
  crashStates,
  describeSpec,
  durability,
  materialize,
  threeCuts,
  type CrashStateOptions,
  type DistinctState,
  type StateSpec,
} from '../support/crash-states.js';

// ---------------------------------------------------------------------------------------------
// The workload's events: what it began, and what it was told.

/** A message as the checks compare it. */
interface Expected {
  readonly id: string;
  readonly role: string;
  readonly content: string;
}

interface StateChange {
  readonly metadata: JsonObject;
  readonly variables: Readonly<Record<string, JsonValue>>;
}

type Operation =
  | {
      readonly type: 'save';
      readonly sessionId: string;
      readonly messages: readonly Expected[];
      readonly state: StateChange;
    }
  | {
      readonly type: 'append';
      readonly sessionId: string;
      readonly messages: readonly Expected[];
      readonly state?: StateChange;
    }
  | { readonly type: 'delete'; readonly sessionId: string }
  /** `undefined` deletes the key. */
  | {
      readonly type: 'values';
      readonly userId: string;
      readonly entries: Readonly<Record<string, JsonValue | undefined>>;
    };

type WorkloadEvent =
  | { readonly kind: 'begin'; readonly id: number; readonly op: Operation }
  | { readonly kind: 'ack'; readonly id: number; readonly version?: number };

function expected(message: Message): Expected {
  return { id: message.id, role: message.role, content: JSON.stringify(message.content) };
}

function describeEvent(event: WorkloadEvent): string {
  if (event.kind === 'ack') return `ack #${event.id}${event.version === undefined ? '' : ` v${event.version}`}`;
  const { op } = event;
  switch (op.type) {
    case 'save':
    case 'append':
      return `begin #${event.id} ${op.type} ${op.sessionId} [${op.messages.map((message) => message.id).join(' ')}]${op.type === 'append' && op.state !== undefined ? ' +state' : ''}`;
    case 'delete':
      return `begin #${event.id} delete ${op.sessionId}`;
    case 'values':
      return `begin #${event.id} values ${op.userId} ${JSON.stringify(op.entries)}`;
    default:
      return op satisfies never;
  }
}

/** The store calls of a workload, each put into the trace when begun and when acknowledged. */
class Tracked {
  private next = 0;

  constructor(
    private readonly recorder: CrashRecorder<WorkloadEvent>,
    readonly store: SessionStore,
  ) {}

  private track<T>(op: Operation, run: () => Promise<T>, version: (result: T) => number | undefined): Promise<T> {
    const id = this.next++;
    this.recorder.note({ kind: 'begin', id, op });
    // Noted as soon as the promise resolves: the moment the caller is told.
    return run().then((result) => {
      this.recorder.note({ kind: 'ack', id, version: version(result) });
      return result;
    });
  }

  save(session: Session, expectedVersion: number): Promise<Session> {
    const op: Operation = {
      type: 'save',
      sessionId: session.id,
      messages: session.messages.map(expected),
      state: { metadata: session.metadata, variables: session.variables },
    };
    return this.track(
      op,
      () => this.store.save(session, { expectedVersion }),
      (saved) => saved.version,
    );
  }

  append(sessionId: string, messages: readonly Message[], state?: StateChange): Promise<unknown> {
    const op: Operation = {
      type: 'append',
      sessionId,
      messages: messages.map(expected),
      ...(state === undefined ? {} : { state }),
    };
    return this.track(
      op,
      () => this.store.append(sessionId, messages, state === undefined ? {} : { state }),
      (result) => result.version,
    );
  }

  delete(sessionId: string): Promise<boolean> {
    return this.track(
      { type: 'delete', sessionId },
      () => this.store.delete(sessionId),
      () => undefined,
    );
  }

  setValues(userId: string, entries: Readonly<Record<string, JsonValue | undefined>>): Promise<void> {
    return this.track(
      { type: 'values', userId, entries },
      () => this.store.values.set({ scope: 'user', userId }, entries),
      () => undefined,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Workloads.

/** A user message with a body of about `size` characters (so folds come sooner). */
function filler(id: string, size: number): Message {
  const words = `${id} `.repeat(Math.ceil(size / (id.length + 1))).slice(0, size);
  return Message.user(words, { id });
}

/** Renames of `sessions/<name>/snapshot` to its backup: rotations by folds and replaces. */
function rotations(trace: Trace<WorkloadEvent>, name: string): number {
  return trace.ops.filter((op) => op.kind === 'rename' && op.to === `sessions/${name}/snapshot.bak`).length;
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const until = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`workload: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Workload {
  readonly name: string;
  readonly sessionIds: readonly string[];
  readonly userIds: readonly string[];
  readonly options: FileStoreOptions;
  /** Sessions whose snapshot the workload's folds must have rotated at least this often. */
  readonly folds: Readonly<Record<string, number>>;
  run(tracked: Tracked, recorder: CrashRecorder<WorkloadEvent>): Promise<void>;
}

const FOLD_BYTES = 2048;

/** The full workload: creations, single and grouped appends, state, folds, a replace, a delete and re-creation, values. */
const plainWorkload: Workload = {
  name: 'plain',
  sessionIds: ['alpha', 'beta', 'gamma'],
  userIds: ['u1'],
  options: { foldBytes: FOLD_BYTES },
  folds: { gamma: 2 },
  async run(w, recorder) {
    const { store } = w;
    await w.save(
      Session.create({
        id: 'alpha',
        userId: 'u1',
        messages: [Message.system('Be brief.', { id: 'a-sys' }), Message.user('hello', { id: 'a-1' })],
      }),
      0,
    );
    // Two creations at once.
    await Promise.all([
      w.save(Session.create({ id: 'beta', userId: 'u1', messages: [Message.user('beta one', { id: 'b-1' })] }), 0),
      w.save(Session.create({ id: 'gamma', userId: 'u2', messages: [Message.user('gamma one', { id: 'g-1' })] }), 0),
    ]);
    await w.append('alpha', [Message.assistant('hi there', { id: 'a-2' })]);
    // Group commit: three appends to one session in one tick (one of two messages).
    await Promise.all([
      w.append('alpha', [Message.user('q3', { id: 'a-3' })]),
      w.append('alpha', [Message.assistant('r4', { id: 'a-4' }), Message.user('q5', { id: 'a-5' })]),
      w.append('alpha', [Message.assistant('r6', { id: 'a-6' })]),
    ]);
    // Appends to every session at once.
    await Promise.all([
      w.append('alpha', [Message.user('q7', { id: 'a-7' })]),
      w.append('beta', [Message.user('beta two', { id: 'b-2' })]),
      w.append('gamma', [Message.user('gamma two', { id: 'g-2' })]),
    ]);
    // State travels with an append.
    await w.append('beta', [Message.assistant('beta three', { id: 'b-3' })], {
      metadata: { topic: 'crash' },
      variables: { turns: 1 },
    });
    await w.setValues('u1', { theme: 'dark', lang: 'en' });
    await store.list();
    // Enough appends to gamma that its journal is folded twice, folds running beside appends.
    for (let round = 0; round < 4; round += 1) {
      if (round === 1)
        await Promise.all([
          w.append('gamma', [filler(`g-f${round}a`, 700)]),
          w.append('gamma', [filler(`g-f${round}b`, 700)]),
        ]);
      else await w.append('gamma', [filler(`g-f${round}`, 700)]);
    }
    await waitFor(() => rotations(recorder.trace, 'gamma') >= 1, 'the first fold of gamma');
    for (let round = 4; round < 7; round += 1)
      await w.append(
        'gamma',
        [filler(`g-f${round}`, 800)],
        round === 5 ? { metadata: { folded: true }, variables: { round } } : undefined,
      );
    await waitFor(() => rotations(recorder.trace, 'gamma') >= 2, 'the second fold of gamma');
    // A replace with fewer messages: the backup then differs from the snapshot.
    const alpha = await store.load('alpha');
    await w.save(
      alpha.withMessages([...alpha.messages.slice(0, 2), Message.user('replaced', { id: 'a-r1' })]),
      alpha.version,
    );
    await w.append('alpha', [Message.assistant('after replace', { id: 'a-r2' })]);
    // Delete, and create the same id again.
    await w.delete('beta');
    await w.save(
      Session.create({ id: 'beta', userId: 'u1', messages: [Message.user('beta again', { id: 'b2-1' })] }),
      0,
    );
    await Promise.all([
      w.append('beta', [Message.assistant('reborn', { id: 'b2-2' })]),
      w.append('gamma', [Message.user('last', { id: 'g-last' })]),
    ]);
    await w.setValues('u1', { theme: 'light', lang: undefined });
    await store.list();
  },
};

const KEY = { current: 'k1', keys: { k1: 'x'.repeat(32) } };

/** A smaller run encrypted at rest: creation, grouped appends, state, a fold, a replace, values. */
const encryptedWorkload: Workload = {
  name: 'encrypted',
  sessionIds: ['delta', 'eps'],
  userIds: ['u3'],
  options: { foldBytes: FOLD_BYTES, encryption: KEY },
  folds: { delta: 1 },
  async run(w, recorder) {
    await Promise.all([
      w.save(Session.create({ id: 'delta', userId: 'u3', messages: [Message.user('secret one', { id: 'd-1' })] }), 0),
      w.save(Session.create({ id: 'eps', userId: 'u3', messages: [Message.user('eps one', { id: 'e-1' })] }), 0),
    ]);
    await Promise.all([
      w.append('delta', [Message.assistant('secret two', { id: 'd-2' })]),
      w.append('delta', [Message.user('secret three', { id: 'd-3' })]),
      w.append('eps', [Message.user('eps two', { id: 'e-2' })]),
    ]);
    await w.append('eps', [Message.assistant('eps three', { id: 'e-3' })], {
      metadata: { sealed: true },
      variables: { n: 3 },
    });
    await w.setValues('u3', { key: 'value' });
    for (let round = 0; round < 3; round += 1) await w.append('delta', [filler(`d-f${round}`, 800)]);
    await waitFor(() => rotations(recorder.trace, 'delta') >= 1, 'a fold of delta');
    const eps = await w.store.load('eps');
    await w.save(eps.withMessages([Message.user('eps replaced', { id: 'e-r1' })]), eps.version);
    await w.append('delta', [Message.user('secret last', { id: 'd-last' })]);
  },
};

// ---------------------------------------------------------------------------------------------
// What a crash state must show, given the events before the crash.

interface SessionExpectation {
  /** An acknowledged save created it (and no acknowledged delete removed it since). */
  exists: boolean;
  /** Messages of the last acknowledged save, then the acknowledged appends since, in acknowledged order. */
  base: readonly Expected[];
  groups: Expected[][];
  /** The highest version acknowledged since the last acknowledged save. */
  version: number;
  /** State of the last acknowledged save or append with state. */
  state: StateChange | undefined;
  /** Ids any operation begun on the session could have written (this incarnation's or a later one's). */
  readonly possible: Set<string>;
  /** Ids of incarnations whose delete was acknowledged: they must never come back. */
  readonly dead: Set<string>;
  /** Operations begun and not acknowledged (at the crash they may or may not have reached the disk). */
  readonly inflight: Operation[];
}

interface Expectations {
  readonly sessions: Map<string, SessionExpectation>;
  /** Per user and key: the acknowledged value (`undefined`: deleted or never set) and the values begun since. */
  readonly values: Map<
    string,
    Map<string, { acked: JsonValue | undefined; ackedSet: boolean; pending: Array<JsonValue | undefined> }>
  >;
}

function expectationsAt(events: readonly WorkloadEvent[], sessionIds: readonly string[]): Expectations {
  const sessions = new Map<string, SessionExpectation>();
  for (const id of sessionIds)
    sessions.set(id, {
      exists: false,
      base: [],
      groups: [],
      version: 0,
      state: undefined,
      possible: new Set(),
      dead: new Set(),
      inflight: [],
    });
  const values: Expectations['values'] = new Map();
  const begun = new Map<number, Operation>();
  const slot = (userId: string, key: string) => {
    let user = values.get(userId);
    if (user === undefined) values.set(userId, (user = new Map()));
    let entry = user.get(key);
    if (entry === undefined) user.set(key, (entry = { acked: undefined, ackedSet: false, pending: [] }));
    return entry;
  };
  for (const event of events) {
    if (event.kind === 'begin') {
      begun.set(event.id, event.op);
      const { op } = event;
      if (op.type === 'values') {
        for (const [key, value] of Object.entries(op.entries)) slot(op.userId, key).pending.push(value);
        continue;
      }
      const session = sessions.get(op.sessionId) as SessionExpectation;
      session.inflight.push(op);
      if (op.type !== 'delete') for (const message of op.messages) session.possible.add(message.id);
      continue;
    }
    const op = begun.get(event.id) as Operation;
    if (op.type === 'values') {
      for (const [key, value] of Object.entries(op.entries)) {
        const entry = slot(op.userId, key);
        entry.acked = value;
        entry.ackedSet = true;
        entry.pending.splice(entry.pending.indexOf(value), 1);
      }
      continue;
    }
    const session = sessions.get(op.sessionId) as SessionExpectation;
    session.inflight.splice(session.inflight.indexOf(op), 1);
    switch (op.type) {
      case 'save':
        Object.assign(session, {
          exists: true,
          base: op.messages,
          groups: [],
          version: event.version ?? 0,
          state: op.state,
        });
        break;
      case 'append':
        session.groups.push([...op.messages]);
        session.version = Math.max(session.version, event.version ?? 0);
        if (op.state !== undefined) session.state = op.state;
        break;
      case 'delete':
        for (const message of session.base) session.dead.add(message.id);
        for (const group of session.groups) for (const message of group) session.dead.add(message.id);
        Object.assign(session, { exists: false, base: [], groups: [], version: 0, state: undefined });
        break;
      default:
        op satisfies never;
    }
  }
  return { sessions, values };
}

// ---------------------------------------------------------------------------------------------
// What a store shows on a crash state.

interface ObservedSession {
  readonly kind: 'present';
  readonly version: number;
  /** The messages, without those that tell recovery notices (`notices`). */
  readonly messages: ReadonlyArray<Expected & { readonly seq: number }>;
  /** Every message id, notices included. */
  readonly allIds: readonly string[];
  readonly metadata: JsonObject;
  readonly variables: Readonly<Record<string, JsonValue>>;
  /** A recovery session took the session's place (`metadata.recoveredFrom`). */
  readonly recovered: boolean;
  /** Recovery notices listed in `metadata.recovery`. */
  readonly notices: number;
}

type Observation =
  | ObservedSession
  | { readonly kind: 'absent' }
  | { readonly kind: 'error'; readonly error: string; readonly typed: boolean };

interface Observed {
  readonly sessions: Map<string, Observation>;
  readonly values: Map<string, Record<string, JsonValue> | { readonly error: string }>;
  readonly problems: string[];
  readonly damage: DamageReport[];
  readonly recoveryNotes: number;
}

function errorText(error: unknown): { error: string; typed: boolean } {
  const typed = ChatstateError.isInstance(error);
  return {
    error: `${typed ? (error as ChatstateError).code : 'UNTYPED'}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    typed,
  };
}

/** Metadata without the notes recovery adds (another change is adding them; they are counted, not compared). */
function plainMetadata(metadata: JsonObject): JsonObject {
  const { recovery: _recovery, ...rest } = metadata;
  return rest;
}

async function observe(directory: string, workload: Workload): Promise<Observed> {
  const damage: DamageReport[] = [];
  const problems: string[] = [];
  const sessions = new Map<string, Observation>();
  const values = new Map<string, Record<string, JsonValue> | { error: string }>();
  let recoveryNotes = 0;
  // Node's fs, a short lock timeout, the workload's key; the default fold threshold: the one append
  // per session below folds nothing, which keeps each image to its reads, repairs and that append.
  const store = fileStore(directory, {
    ...workload.options,
    foldBytes: undefined,
    lockTimeoutMs: 2000,
    onDamage: (report) => damage.push(report),
  });
  const fail = (what: string, error: unknown): void => {
    const { error: text, typed } = errorText(error);
    problems.push(`${what} threw ${typed ? 'a typed error' : 'an UNTYPED error'}: ${text}`);
  };
  try {
    for (const id of workload.sessionIds) {
      let session: Session | undefined;
      try {
        session = await store.get(id);
      } catch (error) {
        sessions.set(id, { kind: 'error', ...errorText(error) });
        fail(`get(${id})`, error);
        continue;
      }
      if (session === undefined) {
        sessions.set(id, { kind: 'absent' });
        continue;
      }
      const notices = Array.isArray(session.metadata.recovery)
        ? (session.metadata.recovery as Array<{ id?: unknown }>)
        : [];
      const noticeIds = new Set(notices.map((notice) => notice.id));
      const recovered = session.metadata.recoveredFrom !== undefined;
      if (notices.length > 0 || recovered) recoveryNotes += 1;
      const messages = session.messages
        .filter((message) => !noticeIds.has(message.id))
        .map((message) => ({ ...expected(message), seq: message.seq ?? -1 }));
      const allIds = session.messages.map((message) => message.id);
      sessions.set(id, {
        kind: 'present',
        version: session.version,
        messages,
        allIds,
        metadata: plainMetadata(session.metadata),
        variables: session.variables,
        recovered,
        notices: notices.length,
      });
      try {
        const read = await store.readMessages(id);
        const tail = await store.readMessages(id, { limit: 3 });
        const ids = allIds;
        if (read.map((message) => message.id).join(' ') !== ids.join(' '))
          problems.push(
            `readMessages(${id}) differs from get: ${read.map((message) => message.id).join(' ')} vs ${ids.join(' ')}`,
          );
        if (tail.map((message) => message.id).join(' ') !== ids.slice(-3).join(' '))
          problems.push(`readMessages(${id}, limit 3) is not the tail of get`);
      } catch (error) {
        fail(`readMessages(${id})`, error);
      }
    }
    try {
      const rows = await store.list();
      for (const [id, seen] of sessions) {
        const row = rows.find((candidate) => candidate.id === id);
        if (
          seen.kind === 'present' &&
          (row === undefined || row.version !== seen.version || row.messageCount !== seen.allIds.length)
        ) {
          problems.push(
            `list() shows ${id} as ${row === undefined ? 'absent' : `v${row.version} with ${row.messageCount} messages`}, get as v${seen.version} with ${seen.allIds.length}`,
          );
        }
        if (seen.kind === 'absent' && row !== undefined) problems.push(`list() shows ${id}, which get does not find`);
      }
    } catch (error) {
      fail('list()', error);
    }
    for (const userId of workload.userIds) {
      try {
        values.set(userId, await store.values.getAll({ scope: 'user', userId }));
      } catch (error) {
        values.set(userId, { error: errorText(error).error });
        fail(`values.getAll(${userId})`, error);
      }
    }
    // The store must be writable after recovery, and the version must go forward.
    await Promise.all(
      [...sessions].map(async ([id, seen]) => {
        if (seen.kind !== 'present') return;
        const message = Message.user(`after the crash`, { id: `post-${id}` });
        try {
          const result = await store.append(id, [message]);
          if (result.version <= seen.version)
            problems.push(`append after the crash: ${id} went from v${seen.version} to v${result.version}`);
          const again = await store.load(id);
          const ids = again.messages.map((item) => item.id);
          const before = seen.allIds;
          if (ids.join(' ') !== [...before, message.id].join(' '))
            problems.push(
              `reload after the append to ${id}: ${ids.join(' ')} (expected ${[...before, message.id].join(' ')})`,
            );
          if (again.version < result.version)
            problems.push(`reload after the append to ${id}: v${again.version} < v${result.version}`);
        } catch (error) {
          fail(`append/load(${id}) after the crash`, error);
        }
      }),
    );
  } finally {
    await store.close();
  }
  return { sessions, values, problems, damage, recoveryNotes };
}

// ---------------------------------------------------------------------------------------------
// Checks of an observation against the expectations of one crash context.

interface Verdict {
  /** Broken promises: the test fails on any. */
  readonly problems: string[];
  /** What a crash should not cause but breaks no promise (a recovery session for a creation never acknowledged): counted and shown. */
  readonly anomalies: string[];
  /** Acknowledged appends (and saves) checked, and those not found whole. */
  readonly checked: number;
  readonly lost: number;
}

function sameMessages(actual: readonly Expected[], wanted: readonly Expected[]): boolean {
  return (
    actual.length === wanted.length &&
    actual.every(
      (message, index) =>
        message.id === wanted[index]?.id &&
        message.role === wanted[index]?.role &&
        message.content === wanted[index]?.content,
    )
  );
}

function sameState(seen: ObservedSession, state: StateChange | undefined): boolean {
  if (state === undefined) return true;
  return (
    JSON.stringify(seen.metadata) === JSON.stringify(plainMetadata(state.metadata)) &&
    JSON.stringify(seen.variables) === JSON.stringify(state.variables)
  );
}

/** Problems of a present session under the acknowledged history alone; `lost` counts acknowledged writes not found whole. */
function checkAcknowledged(
  id: string,
  seen: ObservedSession,
  want: SessionExpectation,
): { problems: string[]; lost: number } {
  const problems: string[] = [];
  let lost = 0;
  const ids = seen.messages.map((message) => message.id);
  if (!sameMessages(seen.messages.slice(0, want.base.length), want.base)) {
    problems.push(
      `${id}: does not start with its acknowledged save [${want.base.map((message) => message.id).join(' ')}]: [${ids.join(' ')}]`,
    );
    lost += 1;
  }
  let from = want.base.length;
  for (const group of want.groups) {
    const at = ids.indexOf((group[0] as Expected).id);
    if (at < from || !sameMessages(seen.messages.slice(at, at + group.length), group)) {
      problems.push(
        `${id}: acknowledged append [${group.map((message) => message.id).join(' ')}] ${at < 0 ? 'is lost' : at < from ? 'is out of order' : 'is not whole'}: [${ids.join(' ')}]`,
      );
      lost += 1;
      continue;
    }
    from = at + group.length;
  }
  if (seen.version < want.version)
    problems.push(`${id}: version ${seen.version} below the acknowledged ${want.version}`);
  const allowed = [
    want.state,
    ...want.inflight.flatMap((op) => (op.type === 'append' && op.state !== undefined ? [op.state] : [])),
  ];
  if (want.state !== undefined && !allowed.some((state) => sameState(seen, state)))
    problems.push(
      `${id}: metadata/variables ${JSON.stringify([seen.metadata, seen.variables])} are not the acknowledged ${JSON.stringify(want.state)}`,
    );
  return { problems, lost };
}

/** Problems of a present session as the result of a save begun and not acknowledged. */
function checkInflightSave(id: string, seen: ObservedSession, save: Extract<Operation, { type: 'save' }>): string[] {
  if (!sameMessages(seen.messages.slice(0, save.messages.length), save.messages))
    return [`${id}: not the save in flight either`];
  return [];
}

function check(observed: Observed, want: Expectations, workload: Workload): Verdict {
  const problems: string[] = [];
  const anomalies: string[] = [];
  let checked = 0;
  let lost = 0;
  for (const id of workload.sessionIds) {
    const seen = observed.sessions.get(id) as Observation;
    const expectation = want.sessions.get(id) as SessionExpectation;
    const acknowledged = expectation.exists ? 1 + expectation.groups.length : 0;
    checked += acknowledged;
    if (seen.kind === 'error') {
      lost += acknowledged;
      continue;
    }
    const deleting = expectation.inflight.some((op) => op.type === 'delete');
    const saves = expectation.inflight.filter((op): op is Extract<Operation, { type: 'save' }> => op.type === 'save');
    if (seen.kind === 'absent') {
      if (expectation.exists && !deleting) {
        problems.push(
          `${id}: missing, although its creation and ${expectation.groups.length} appends were acknowledged`,
        );
        lost += acknowledged;
      }
      continue;
    }
    // Present: sequence numbers increase, and every message was written by some operation.
    const seqs = seen.messages.map((message) => message.seq);
    if (!seqs.every((seq, index) => index === 0 || seq > (seqs[index - 1] as number)))
      problems.push(`${id}: sequence numbers do not increase: ${seqs.join(' ')}`);
    if (seen.recovered) {
      // The store could not read the session and put a recovery session in its place: only a
      // loss if something of it had been acknowledged (checked below).
      if (!expectation.exists) {
        anomalies.push(`${id}: a recovery session took the place of a session whose creation was never acknowledged`);
        continue;
      }
    } else {
      const stray = seen.messages.filter(
        (message) => !expectation.possible.has(message.id) || expectation.dead.has(message.id),
      );
      if (stray.length > 0)
        problems.push(`${id}: holds messages no live operation wrote: ${stray.map((message) => message.id).join(' ')}`);
    }
    if (!expectation.exists) {
      // Only a creation begun and not acknowledged can have made it.
      if (!saves.some((save) => checkInflightSave(id, seen, save).length === 0))
        problems.push(
          `${id}: present, but no acknowledged or begun save explains it: [${seen.messages.map((message) => message.id).join(' ')}]`,
        );
      continue;
    }
    const result = checkAcknowledged(id, seen, expectation);
    if (result.problems.length === 0) {
      if (seen.notices > 0 && !seen.recovered)
        anomalies.push(`${id}: a recovery notice although every acknowledged write is there`);
      continue;
    }
    // A replace begun and not acknowledged may have reached the disk: then the session is that save.
    if (saves.some((save) => checkInflightSave(id, seen, save).length === 0)) continue;
    problems.push(...result.problems);
    lost += result.lost;
  }
  for (const userId of workload.userIds) {
    const seen = observed.values.get(userId);
    if (seen === undefined || 'error' in seen) continue;
    for (const [key, entry] of want.values.get(userId) ?? []) {
      const allowed = [...(entry.ackedSet ? [entry.acked] : [undefined]), ...entry.pending];
      const value = (seen as Record<string, JsonValue>)[key];
      if (!allowed.some((candidate) => JSON.stringify(candidate) === JSON.stringify(value)))
        problems.push(
          `values of ${userId}: ${key} is ${JSON.stringify(value)}, acknowledged ${JSON.stringify(entry.acked)}`,
        );
    }
  }
  return { problems, anomalies, checked, lost };
}

// ---------------------------------------------------------------------------------------------
// The harness.

/**
 * The bound on torn writes. The full enumeration (every last write of a prefix torn at three cuts,
 * every earlier un-flushed write torn at half) gives about 2,700 distinct images for the two
 * workloads, two to three minutes on a 2-core machine whose disk discards freed blocks online. Most
 * of them come from writes that no barrier ever makes durable — the store rewrites a session's
 * high-water mark in place after every commit and never flushes it, and the session index is a
 * cache — whose torn variants combine with every later crash point. Such a write is torn only at
 * crash points before the next write to its file (while it is that file's newest content); every
 * write that some barrier flushes is torn as the module says. Every crash point and every prefix
 * length is kept. `CHATSTATE_CRASH_FULL=1` verifies the full enumeration instead.
 */
const FULL = process.env.CHATSTATE_CRASH_FULL === '1';
const BOUND: CrashStateOptions = FULL
  ? {}
  : {
      cuts: (site) => (site.everDurable || site.crashPoint < site.nextWrite ? threeCuts(site.length) : []),
      earlierCuts: (site) =>
        site.everDurable || site.crashPoint < site.nextWrite ? [Math.floor(site.length / 2)] : [],
    };
const BOUND_TEXT = FULL
  ? 'not bounded (CHATSTATE_CRASH_FULL=1)'
  : 'bounded: never-flushed writes torn only until their file is written again';

/** States verified at once: their flushes and removals overlap on the thread pool. */
const CONCURRENCY = 4;

interface Finding {
  readonly spec: StateSpec;
  readonly problems: readonly string[];
  /** Whether the image is found without an earlier torn write. */
  readonly pure: boolean;
}

interface Figures {
  readonly workload: string;
  operations: number;
  mutating: number;
  barriers: number;
  acknowledgements: number;
  /** Snapshot rotations per session, and journal writes that hold several appends (group commits). */
  rotations: Record<string, number>;
  groupCommits: number;
  crashPoints: number;
  generated: number;
  built: number;
  distinct: number;
  untorn: number;
  earlierTearOnly: number;
  verified: number;
  contexts: number;
  ackedChecked: number;
  lost: number;
  damageReports: number;
  damageInPure: number;
  damageKinds: Record<string, number>;
  recoveryNotes: number;
  failures: Finding[];
  anomalies: Finding[];
  recordMs: number;
  enumerateMs: number;
  verifyMs: number;
}

async function recordWorkload(base: string, workload: Workload): Promise<Trace<WorkloadEvent>> {
  const directory = join(base, 'workload');
  mkdirSync(directory);
  const recorder = new CrashRecorder<WorkloadEvent>(directory);
  const store = fileStore(directory, { ...workload.options, fileSystem: recorder.fileSystem, lockTimeoutMs: 5000 });
  await workload.run(new Tracked(recorder, store), recorder);
  // Folds still running finish here: their operations are part of the trace.
  await store.close();
  return recorder.trace;
}

/** Opens a new store on one image and checks it against every context it can be found in. */
async function verifyOne(
  base: string,
  workload: Workload,
  trace: Trace<WorkloadEvent>,
  durableAt: readonly number[],
  state: DistinctState,
  index: number,
  expectationFor: (count: number) => Expectations,
  figures: Figures,
): Promise<void> {
  const directory = join(base, `state-${index}`);
  materialize(buildState(trace, state.spec, durableAt), directory);
  try {
    const observed = await observe(directory, workload);
    figures.verified += 1;
    figures.damageReports += observed.damage.length;
    if (state.pure) figures.damageInPure += observed.damage.length;
    for (const report of observed.damage)
      figures.damageKinds[report.kind] = (figures.damageKinds[report.kind] ?? 0) + 1;
    figures.recoveryNotes += observed.recoveryNotes;
    if (observed.problems.length > 0)
      figures.failures.push({ spec: state.spec, problems: observed.problems, pure: state.pure });
    for (const [count, spec] of state.contexts) {
      figures.contexts += 1;
      const verdict = check(observed, expectationFor(count), workload);
      figures.ackedChecked += verdict.checked;
      figures.lost += verdict.lost;
      if (verdict.problems.length > 0) figures.failures.push({ spec, problems: verdict.problems, pure: state.pure });
      if (verdict.anomalies.length > 0) figures.anomalies.push({ spec, problems: verdict.anomalies, pure: state.pure });
    }
  } finally {
    // Asynchronous: freeing blocks the store flushed is slow on a disk that discards them online.
    await rm(directory, { recursive: true, force: true });
  }
}

/** Records `workload`, rebuilds its crash states (from the trace `alter` makes of the recorded one) and verifies each. */
async function runHarness(
  root: string,
  workload: Workload,
  alter: (trace: Trace<WorkloadEvent>) => Trace<WorkloadEvent> = (trace) => trace,
): Promise<{ figures: Figures; trace: Trace<WorkloadEvent> }> {
  const base = mkdtempSync(join(root, `${workload.name}-`));
  let started = performance.now();
  const trace = alter(await recordWorkload(base, workload));
  const recordMs = performance.now() - started;
  started = performance.now();
  const states = crashStates(trace, BOUND);
  const enumerateMs = performance.now() - started;
  const rotated: Record<string, number> = {};
  for (const id of workload.sessionIds) rotated[id] = rotations(trace, id);
  const figures: Figures = {
    workload: workload.name,
    operations: states.operations,
    mutating: states.mutating,
    barriers: trace.ops.filter((op) => op.kind === 'fsync' || op.kind === 'dirsync').length,
    acknowledgements: trace.ops.filter((op) => op.kind === 'event' && op.event.kind === 'ack').length,
    rotations: rotated,
    groupCommits: trace.ops.filter(
      (op) =>
        op.kind === 'write' &&
        /journal\.[0-9]+$/.test(op.path) &&
        op.data.toString('latin1').split('"k":"add"').length > 2,
    ).length,
    crashPoints: states.crashPoints,
    generated: states.generated,
    built: states.built,
    distinct: states.distinct.length,
    untorn: states.distinct.filter((state) => state.untorn).length,
    earlierTearOnly: states.distinct.filter((state) => !state.pure).length,
    verified: 0,
    contexts: 0,
    ackedChecked: 0,
    lost: 0,
    damageReports: 0,
    damageInPure: 0,
    damageKinds: {},
    recoveryNotes: 0,
    failures: [],
    anomalies: [],
    recordMs,
    enumerateMs,
    verifyMs: 0,
  };
  started = performance.now();
  const durableAt = durability(trace.ops);
  const events = trace.ops.flatMap((op) => (op.kind === 'event' ? [op.event] : []));
  const expectations = new Map<number, Expectations>();
  const expectationFor = (count: number): Expectations => {
    let found = expectations.get(count);
    if (found === undefined)
      expectations.set(count, (found = expectationsAt(events.slice(0, count), workload.sessionIds)));
    return found;
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < states.distinct.length; index = next++) {
      await verifyOne(
        base,
        workload,
        trace,
        durableAt,
        states.distinct[index] as DistinctState,
        index,
        expectationFor,
        figures,
      );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  figures.verifyMs = performance.now() - started;
  return { figures, trace };
}

function summary(figures: Figures): string {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
  const rows: Array<[string, string | number]> = [
    ['operations recorded (events included)', figures.operations],
    [
      '  mutating / barriers / acknowledgements',
      `${figures.mutating} / ${figures.barriers} / ${figures.acknowledgements}`,
    ],
    ['  snapshot rotations / group commits', `${JSON.stringify(figures.rotations)} / ${figures.groupCommits}`],
    ['crash points', figures.crashPoints],
    ['crash states generated', `${figures.generated} (${BOUND_TEXT})`],
    ['  distinct sets of applied operations', figures.built],
    [
      'distinct images',
      `${figures.distinct} (${figures.untorn} without a torn write, ${figures.earlierTearOnly} only with an earlier torn write)`,
    ],
    ['distinct images verified', figures.verified],
    ['checks (image × acknowledgements before the crash)', figures.contexts],
    ['acknowledged appends and saves checked', figures.ackedChecked],
    ['acknowledged appends and saves lost', figures.lost],
    [
      'onDamage reports (in pure crash states)',
      `${figures.damageReports} (${figures.damageInPure}) ${JSON.stringify(figures.damageKinds)}`,
    ],
    ['sessions read with recovery metadata', figures.recoveryNotes],
    ['anomalies (a crash taken for damage)', figures.anomalies.length],
    ['failures', figures.failures.length],
    [
      'time: record / enumerate / verify',
      `${seconds(figures.recordMs)} / ${seconds(figures.enumerateMs)} / ${seconds(figures.verifyMs)}`,
    ],
  ];
  return [
    `crash consistency, ${figures.workload} workload:`,
    ...rows.map(([label, value]) => `  ${label.padEnd(52)} ${value}`),
  ].join('\n');
}

/** The failures, and the anomalies by kind with the earliest crash state that shows them. */
function findings(figures: Figures, trace: Trace<WorkloadEvent>): string {
  const lines: string[] = [];
  for (const failure of figures.failures.slice(0, 3)) {
    lines.push(
      `FAILURE (${failure.pure ? 'pure crash state' : 'earlier torn write'}):`,
      ...failure.problems.map((problem) => `  ${problem}`),
      describeSpec(trace, failure.spec, describeEvent),
    );
  }
  const kinds = new Map<string, Finding>();
  for (const anomaly of figures.anomalies) {
    for (const problem of anomaly.problems) {
      const earliest = kinds.get(problem);
      if (earliest === undefined || anomaly.spec.crashPoint < earliest.spec.crashPoint) kinds.set(problem, anomaly);
    }
  }
  for (const [problem, anomaly] of kinds) {
    const count = figures.anomalies.filter((candidate) => candidate.problems.includes(problem)).length;
    const spec = anomaly.spec;
    const torn =
      spec.tear === undefined
        ? 'no torn write'
        : `torn: ${describeOp(trace.ops[spec.tear.op] as TraceOp<WorkloadEvent>)} cut at ${spec.tear.cut}`;
    lines.push(
      `ANOMALY ×${count}: ${problem} (earliest: crash after op ${spec.crashPoint}, prefix ${spec.prefix}, ${torn})`,
    );
  }
  return lines.join('\n');
}

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chatstate-crash-states-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('file store: every crash state of a recorded workload keeps every acknowledged write', () => {
  for (const workload of [plainWorkload, encryptedWorkload]) {
    it(
      `${workload.name} workload`,
      async () => {
        const { figures, trace } = await runHarness(root, workload);
        console.log(`${summary(figures)}\n${findings(figures, trace)}`);
        for (const [id, folds] of Object.entries(workload.folds))
          expect(figures.rotations[id], `folds of ${id} in the trace`).toBeGreaterThanOrEqual(folds);
        expect(figures.groupCommits, 'a journal write holding several appends').toBeGreaterThan(0);
        expect(figures.verified).toBe(figures.distinct);
        expect(figures.lost).toBe(0);
        expect(figures.failures.map((failure) => failure.problems.join('; '))).toEqual([]);
        // A crash alone is never taken for a loss: no recovery session, no recovery notice.
        expect(figures.anomalies.map((anomaly) => anomaly.problems.join('; '))).toEqual([]);
        expect(figures.recoveryNotes).toBe(0);
      },
      FULL ? 900_000 : 150_000,
    );
  }
});

/** One session, created and appended to three times, one append after the other. */
const controlWorkload: Workload = {
  name: 'control',
  sessionIds: ['solo'],
  userIds: [],
  options: {},
  folds: {},
  async run(w) {
    await w.save(Session.create({ id: 'solo', messages: [Message.user('one', { id: 'c-1' })] }), 0);
    for (let round = 2; round <= 4; round += 1)
      await w.append('solo', [Message.user(`message ${round}`, { id: `c-${round}` })]);
  },
};

describe('the harness itself', () => {
  // A barrier taken out stays in place (indices do not move) but covers nothing: it names no inode.
  const without =
    (drop: (op: TraceOp<WorkloadEvent>) => boolean) =>
    (trace: Trace<WorkloadEvent>): Trace<WorkloadEvent> => ({
      ...trace,
      ops: trace.ops.map((op) =>
        (op.kind === 'fsync' || op.kind === 'dirsync') && drop(op) ? { ...op, inode: -1 } : op,
      ),
    });
  const controls: Array<[string, (op: TraceOp<WorkloadEvent>) => boolean, RegExp]> = [
    [
      'the journal flushes (a store that acknowledged appends before their fdatasync)',
      (op) => op.kind === 'fsync' && /journal\.[0-9]+$/.test(op.path),
      /acknowledged append \[c-[0-9]\] is lost/,
    ],
    [
      'the flushes of the session directory (a store that acknowledged a creation before its renames were durable)',
      (op) => op.kind === 'dirsync' && op.path === 'sessions/solo',
      /solo: missing, although its creation/,
    ],
  ];
  for (const [what, drop, expected] of controls) {
    it(`finds the losses when ${what} are taken out of the trace`, async () => {
      const { figures } = await runHarness(root, controlWorkload, without(drop));
      console.log(
        `negative control without ${what}: ${figures.distinct} images, ${figures.lost} acknowledged appends and saves lost`,
      );
      expect(figures.lost).toBeGreaterThan(0);
      expect(figures.failures.some((failure) => failure.problems.some((problem) => expected.test(problem)))).toBe(true);
    });
  }

  it('finds nothing wrong in the same workload as recorded', async () => {
    const { figures } = await runHarness(root, controlWorkload);
    expect(figures.verified).toBe(figures.distinct);
    expect(figures.lost).toBe(0);
    expect(figures.failures).toEqual([]);
  });
});

describe('file store: crash states the harness found mishandled', () => {
  /**
   * Found by the harness (fixed in session-dir.ts `abandonedCreation`). A first save creates
   * `journal.1` and writes its begin line, then flushes it; a crash before that flush can leave the
   * journal's name on disk (`sessions/<name>` was flushed just before) with only part of the line
   * in it. The store took that for damage: the session came back "unreadable", a recovery session
   * took its place, and the caller's retry of the unacknowledged creation (`save` with
   * `expectedVersion: 0`) failed with CONFLICT. A journal with no complete line, and no snapshot,
   * backup or high-water mark beside it, is a creation that never finished. The smallest image:
   * `sessions/solo/journal.1` holding one byte.
   */
  let state: string;
  let image: string[];

  beforeAll(async () => {
    const directory = join(root, 'torn-creation');
    mkdirSync(directory);
    const recorder = new CrashRecorder<WorkloadEvent>(directory);
    const store = fileStore(directory, { fileSystem: recorder.fileSystem });
    await new Tracked(recorder, store).save(
      Session.create({ id: 'solo', messages: [Message.user('hello', { id: 's-1' })] }),
      0,
    );
    await store.close();
    const { trace } = recorder;
    // The crash: right after the begin line was written, before its flush; its first byte reached the disk.
    const write = trace.ops.findIndex((op) => op.kind === 'write' && op.path === 'sessions/solo/journal.1');
    const spec: StateSpec = { crashPoint: write, prefix: write + 1, tear: { op: write, cut: 1 } };
    const tree = buildState(trace, spec);
    image = [...tree.walk()].map(
      (entry) => `${entry.path}${entry.kind === 'file' ? ` (${entry.data.length} bytes)` : '/'}`,
    );
    state = join(root, 'torn-creation-state');
    materialize(tree, state);
  });

  it('the image is a crash state of one save: the journal named, one byte of its begin line written', () => {
    expect(image).toEqual(['sessions/', 'sessions/solo/', 'sessions/solo/journal.1 (1 bytes)']);
  });

  it('a creation torn inside the begin line of its first journal is not taken for damage', async () => {
    const damage: DamageReport[] = [];
    const reopened = fileStore(state, { onDamage: (report) => damage.push(report) });
    try {
      // The creation was never acknowledged: the session does not exist, and nothing is damaged.
      expect(await reopened.get('solo')).toBeUndefined();
      expect(damage).toEqual([]);
      // The caller retries its creation.
      await reopened.save(Session.create({ id: 'solo', messages: [Message.user('hello', { id: 's-1' })] }), {
        expectedVersion: 0,
      });
    } finally {
      await reopened.close();
    }
  });
});

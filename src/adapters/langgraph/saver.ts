/**
 * `ChatstateSaver`: LangGraph's `BaseCheckpointSaver` over any chatstate `SessionStore`. Each
 * (thread, namespace) is two sessions: the conversation (the messages channel, append-only, as
 * chatstate messages anyone can read) and the checkpoint log (one small entry per checkpoint, in
 * put order, holding the checkpoint's record; the log's session values hold the blobs of the
 * channels a checkpoint changed). A checkpoint's pending writes are the values of an owner of its
 * own, one per task, so tasks never write the same value. A put writes what changed, never the
 * whole thread: the new messages, one log entry, and a blob per other channel changed.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { isBaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  getCheckpointId,
  maxChannelVersion,
  writesSortKey,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
} from '@langchain/langgraph-checkpoint';
import { ChatstateError, InvalidInputError } from '../../errors.js';
import { BoundedMap } from '../../internal/bounded-map.js';
import { KeyedLock } from '../../internal/keyed-lock.js';
import { Message } from '../../message/message.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { Session } from '../../session/session.js';
import type { SessionStore, ValueOwner } from '../../store/session-store-types.js';
import { SESSION_KINDS } from '../../store/session-kind.js';
import { freshCopy } from './compaction.js';
import { prepareList, type ListContext, type PreparedList } from './prepare-list.js';
import { RECORD_KEY, RecordIndex } from './record-index.js';
import { readList, revive, toRanges, type Entry, type Known, type StoredList } from './message-list.js';
import type { ChatstateSaverOptions } from './options.js';
import {
  blobEntries,
  dumpBlob,
  readBlob,
  keys,
  loadBlob,
  readWrites,
  recordJson,
  type BlobRef,
  type CheckpointRecord,
  type MessageRef,
  type StoredBlob,
  type StoredWrite,
  type Version,
  writesOwnerId,
} from './records.js';
import { LOG_SUFFIX, checkKey, checkPrefix, threadPrefix, threadSessions, type ThreadSessions } from './thread-ids.js';

/** Message lists and records remembered per saver (the newest ones: a running thread's parents). */
const CACHE_SIZE = 32;
/** Message lists remembered (each holds a whole list: a running thread needs its parent's). */
const LIST_CACHE_SIZE = 4;

interface Target {
  readonly threadId: string;
  readonly namespace: string;
  readonly sessions: ThreadSessions;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `LangGraph saver: ${message}`);
}

/** Largest blob kept in the checkpoint record itself (characters of its stored text). */
const INLINE_CHARS = 2048;

/** How many first items of `list` are the very objects of `objects` (0 unless all of `objects` are). */
function sharedPrefix(list: readonly unknown[], objects: readonly unknown[] | undefined): number {
  if (objects === undefined || objects.length === 0 || list.length < objects.length) return 0;
  for (let index = 0; index < objects.length; index++) if (list[index] !== objects[index]) return 0;
  return objects.length;
}

/** True when every item of `list` from `from` on is a LangChain message. */
function isMessageList(list: readonly unknown[], from: number): boolean {
  for (let index = from; index < list.length; index++) if (!isBaseMessage(list[index])) return false;
  return true;
}

function logEntryId(checkpointId: string): string {
  return /^[A-Za-z0-9._:-]{1,250}$/.test(checkpointId)
    ? `cp.${checkpointId}`
    : `cp.${Buffer.from(checkpointId).toString('hex').slice(0, 250)}`;
}

/** ✱ A LangGraph checkpoint saver that keeps threads as chatstate sessions in any `SessionStore`. */
export class ChatstateSaver extends BaseCheckpointSaver {
  /** The store the threads live in. */
  readonly store: SessionStore;
  private readonly prefix: string;
  private readonly messageChannels: ReadonlySet<string>;
  private readonly maxRanges: number;
  private readonly options: ChatstateSaverOptions;
  private readonly created = new Set<string>();
  private readonly known = new WeakMap<object, Known>();
  private readonly lists = new BoundedMap<string, StoredList>({ max: LIST_CACHE_SIZE });
  private readonly records: RecordIndex;
  private readonly writeLock = new KeyedLock();

  constructor(store: SessionStore, options: ChatstateSaverOptions = {}) {
    super(options.serde);
    this.store = store;
    this.records = new RecordIndex(store, CACHE_SIZE * 4);
    this.options = options;
    this.prefix = checkPrefix(options.sessionPrefix ?? 'lg');
    this.messageChannels = new Set(options.messageChannels ?? ['messages']);
    this.maxRanges = options.maxRanges ?? 32;
    if (!Number.isSafeInteger(this.maxRanges) || this.maxRanges < 1)
      throw invalid('maxRanges must be a positive integer');
  }

  /** The chatstate session ids of a thread's conversation and checkpoint log (in `namespace`, default the root). */
  sessionsOf(threadId: string, namespace = ''): ThreadSessions {
    return threadSessions(this.prefix, checkKey(threadId, 'thread_id'), checkKey(namespace, 'checkpoint_ns'));
  }

  private listContext(sessions: ThreadSessions): ListContext {
    return {
      store: this.store,
      serde: this.serde,
      known: this.known,
      compaction: this.options.compaction,
      maxRanges: this.maxRanges,
      owner: this.owner(sessions),
    };
  }

  private owner(sessions: ThreadSessions): ValueOwner {
    return { scope: 'session', sessionId: sessions.log };
  }

  private target(config: RunnableConfig, required: boolean): Target | undefined {
    const configurable = config.configurable;
    if (configurable === undefined || configurable === null) {
      if (required) throw invalid('config.configurable with a thread_id is required');
      return undefined;
    }
    const raw = (configurable as Record<string, unknown>)['thread_id'];
    if (raw === undefined) {
      if (required) throw invalid('config.configurable.thread_id is required');
      return undefined;
    }
    const threadId = checkKey(raw, 'thread_id');
    const namespace = checkKey((configurable as Record<string, unknown>)['checkpoint_ns'] ?? '', 'checkpoint_ns');
    return { threadId, namespace, sessions: threadSessions(this.prefix, threadId, namespace) };
  }

  /** Creates the thread's two sessions once (a concurrent creator's session is as good as ours). */
  private async ensureSessions(target: Target): Promise<void> {
    const { sessions, threadId, namespace } = target;
    if (this.created.has(sessions.log)) return;
    const about = { threadId, checkpointNs: namespace };
    // A subgraph's conversation is the saver's own (its messages are the parent thread's too): listed only when asked.
    const conversation = {
      langgraph: about,
      ...(namespace === '' ? {} : { chatstate: SESSION_KINDS.langgraphSubgraph }),
    };
    const made = [
      Session.create({ id: sessions.conversation, metadata: conversation }),
      Session.create({
        id: sessions.log,
        metadata: {
          chatstate: SESSION_KINDS.langgraphCheckpoints,
          title: `LangGraph checkpoints of thread ${threadId.slice(0, 60)}${namespace === '' ? '' : ` (${namespace.slice(0, 30)})`}`,
          langgraph: { ...about, conversation: sessions.conversation },
        },
      }),
    ];
    const fresh: boolean[] = [];
    for (const session of made) {
      try {
        await this.store.save(session, { expectedVersion: 0 });
        fresh.push(true);
      } catch (error) {
        if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
        fresh.push(false);
      }
    }
    // The conversation's metadata (its compaction log) is mirrored here from its creation on:
    // a saver that finds the thread already there must not reset it.
    await this.store.values.set(this.owner(sessions), {
      [keys.thread]: about,
      ...(fresh[0] === true ? { [keys.conversation]: conversation } : {}),
    });
    this.created.add(sessions.log);
  }

  private async messagesOf(
    sessions: ThreadSessions,
    checkpointId: string,
    channel: string,
    ref: MessageRef,
  ): Promise<StoredList> {
    const cacheKey = `${sessions.log}\n${checkpointId}\n${channel}`;
    const cached = this.lists.get(cacheKey);
    if (cached !== undefined) return cached;
    const entries = await readList(ref, (afterSeq, beforeSeq) =>
      this.store.readMessages(sessions.conversation, { afterSeq, beforeSeq }),
    );
    const list: StoredList = { entries, ranges: ref.ranges };
    this.lists.set(cacheKey, list);
    return list;
  }

  /** The value owner holding the pending writes of one checkpoint (one key per task). */
  private writesOwner(sessions: ThreadSessions, checkpointId: string): ValueOwner & { readonly scope: 'session' } {
    return { scope: 'session', sessionId: writesOwnerId(this.prefix, sessions.log, checkpointId) };
  }

  private async pendingWrites(sessions: ThreadSessions, checkpointId: string): Promise<StoredWrite[]> {
    const values = await this.store.values.getAll(this.writesOwner(sessions, checkpointId));
    const writes = Object.values(values).flatMap((value) => readWrites(value, `of ${checkpointId} in ${sessions.log}`));
    return writes
      .map((write) => ({ write, key: writesSortKey(write.path, write.task, write.idx) }))
      .sort((a, b) => compareWritesSortKeys(a.key, b.key))
      .map(({ write }) => write);
  }

  private async tuple(target: Target, record: CheckpointRecord): Promise<CheckpointTuple> {
    const { sessions } = target;
    const channelValues: Record<string, unknown> = {};
    const owner = this.owner(sessions);
    await Promise.all([
      ...Object.entries(record.blobs).map(async ([channel, ref]) => {
        let blob: StoredBlob | undefined;
        if (ref.inline === true) {
          const holder = ref.at === record.id ? record : await this.records.find(sessions, ref.at);
          blob = holder?.inline?.[channel];
        } else blob = await readBlob((key) => this.store.values.get(owner, key), ref.at, channel);
        if (blob === undefined) return;
        channelValues[channel] = await loadBlob(this.serde, blob);
      }),
      ...Object.entries(record.messages).map(async ([channel, ref]) => {
        const list = await this.messagesOf(sessions, record.id, channel, ref);
        const revived = await revive(this.serde, list.entries);
        revived.forEach((item, index) => {
          if (typeof item === 'object' && item !== null)
            this.known.set(item, { conversation: sessions.conversation, entry: list.entries[index] as Entry });
        });
        // The graph goes on from these very objects: the next put finds them by identity.
        this.lists.set(`${sessions.log}\n${record.id}\n${channel}`, { ...list, objects: revived });
        channelValues[channel] = [...revived];
      }),
    ]);
    const checkpoint: Checkpoint = {
      v: record.v,
      id: record.id,
      ts: record.ts,
      channel_values: channelValues,
      channel_versions: { ...record.versions },
      versions_seen: structuredClone(record.seen) as Checkpoint['versions_seen'],
    };
    if (record.v < 4 && record.parent !== undefined) {
      // Checkpoints before format 4 kept pending sends as writes of their parent.
      const sends = (await this.pendingWrites(sessions, record.parent)).filter((write) => write.channel === TASKS);
      checkpoint.channel_values[TASKS] = await Promise.all(sends.map((write) => loadBlob(this.serde, write.value)));
      const versions = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] =
        versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
    }
    const writes = await this.pendingWrites(sessions, record.id);
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      writes.map(async (write): Promise<CheckpointPendingWrite> => [
        write.task,
        write.channel,
        await loadBlob(this.serde, write.value),
      ]),
    );
    const configurable = { thread_id: target.threadId, checkpoint_ns: target.namespace };
    const tuple: CheckpointTuple = {
      config: { configurable: { ...configurable, checkpoint_id: record.id } },
      checkpoint,
      metadata: (await loadBlob(this.serde, record.metadata)) as CheckpointMetadata,
      pendingWrites,
    };
    if (record.parent !== undefined)
      tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: record.parent } };
    return tuple;
  }

  /** The checkpoint `config` names (its `checkpoint_id`, else the thread's newest), with its pending writes. */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const target = this.target(config, false);
    if (target === undefined) return undefined;
    const id = getCheckpointId(config);
    const record =
      id === ''
        ? await this.records.latest(target.sessions)
        : await this.records.find(target.sessions, checkKey(id, 'checkpoint_id'));
    return record === undefined ? undefined : this.tuple(target, record);
  }

  /** The log sessions `config` covers: one namespace, every namespace of a thread, or every thread. */
  private async targets(config: RunnableConfig): Promise<Target[]> {
    const configurable = (config.configurable ?? {}) as Record<string, unknown>;
    if (configurable['thread_id'] !== undefined && configurable['checkpoint_ns'] !== undefined)
      return [this.target(config, true) as Target];
    const threadId =
      configurable['thread_id'] === undefined ? undefined : checkKey(configurable['thread_id'], 'thread_id');
    const base = threadId === undefined ? `${this.prefix}.` : threadPrefix(this.prefix, threadId);
    const logs: string[] = [];
    let after: { updatedAt: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.list({
        idPrefix: base,
        kinds: 'all',
        limit: 100,
        ...(after === undefined ? {} : { after }),
      });
      for (const row of page)
        if (row.id.endsWith(LOG_SUFFIX) && (threadId === undefined || row.id.startsWith(`${base}.`))) logs.push(row.id);
      const last = page.at(-1);
      if (page.length < 100 || last === undefined) break;
      after = { updatedAt: last.updatedAt, id: last.id };
    }
    const targets: Target[] = [];
    for (const log of logs.sort()) {
      const about = (await this.store.values.get({ scope: 'session', sessionId: log }, keys.thread)) as
        JsonObject | undefined;
      const thread = about?.['threadId'];
      const namespace = about?.['checkpointNs'];
      if (typeof thread !== 'string' || typeof namespace !== 'string') continue;
      const sessions = threadSessions(this.prefix, thread, namespace);
      if (sessions.log !== log) continue;
      if (configurable['checkpoint_ns'] !== undefined && configurable['checkpoint_ns'] !== namespace) continue;
      targets.push({ threadId: thread, namespace, sessions });
    }
    return targets;
  }

  /** Checkpoints newest first (per thread and namespace), filtered by `before`, metadata `filter` and `limit`. */
  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let remaining = options.limit;
    if (remaining !== undefined && remaining <= 0) return;
    const beforeId = before === undefined ? undefined : getCheckpointId(before) || undefined;
    const onlyId = getCheckpointId(config) || undefined;
    for (const target of await this.targets(config)) {
      const records: AsyncIterable<CheckpointRecord> =
        onlyId === undefined
          ? this.records.newestFirst(target.sessions)
          : (async function* one(saver: ChatstateSaver) {
              const record = await saver.records.find(target.sessions, onlyId);
              if (record !== undefined) yield record;
            })(this);
      for await (const record of records) {
        if (beforeId !== undefined && !(record.id < beforeId)) continue;
        if (filter !== undefined) {
          const metadata = (await loadBlob(this.serde, record.metadata)) as Record<string, unknown>;
          if (!Object.entries(filter).every(([key, value]) => isDeepStrictEqual(metadata[key], value))) continue;
        }
        yield await this.tuple(target, record);
        if (remaining !== undefined) {
          remaining -= 1;
          if (remaining <= 0) return;
        }
      }
    }
  }

  /** Stores a checkpoint: the messages it adds, the blobs of the other channels it changed, and its record. */
  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const target = this.target(config, true) as Target;
    checkKey(checkpoint.id, 'checkpoint_id');
    const parentRaw = (config.configurable as Record<string, unknown>)['checkpoint_id'];
    const parentId = parentRaw === undefined || parentRaw === '' ? undefined : checkKey(parentRaw, 'checkpoint_id');
    try {
      await this.putOnce(target, checkpoint, metadata, newVersions, parentId);
    } catch (error) {
      // Another saver deleted the thread since this one created it: create it again, once.
      if (!ChatstateError.hasCode(error, 'NOT_FOUND') || !this.created.has(target.sessions.log)) throw error;
      this.created.delete(target.sessions.log);
      await this.putOnce(target, checkpoint, metadata, newVersions, parentId);
    }
    return {
      configurable: { thread_id: target.threadId, checkpoint_ns: target.namespace, checkpoint_id: checkpoint.id },
    };
  }

  private async putOnce(
    target: Target,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    parentId: string | undefined,
  ): Promise<void> {
    const { sessions } = target;
    await this.ensureSessions(target);
    const parent = parentId === undefined ? undefined : await this.records.find(sessions, parentId);
    const versions = checkpoint.channel_versions;
    const blobs: Record<string, BlobRef> = {};
    const inherited: Record<string, MessageRef> = {};
    const entries: Record<string, JsonValue> = {};
    const inline: Record<string, StoredBlob> = {};
    const lists: Array<[string, StoredList]> = [];
    const prepared: Array<[string, Version, PreparedList]> = [];
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      const version: Version | undefined = versions[channel] ?? newVersions[channel];
      if (version === undefined || value === undefined) continue;
      if (!(channel in newVersions)) {
        // Unchanged: the parent's value, when the parent holds this very version.
        const blob = parent?.blobs[channel];
        const list = parent?.messages[channel];
        if (blob !== undefined && blob.v === version) blobs[channel] = blob;
        else if (list !== undefined && list.v === version) {
          inherited[channel] = list;
          const known = this.lists.get(`${sessions.log}\n${parent?.id ?? ''}\n${channel}`);
          if (known !== undefined) lists.push([channel, known]);
        }
        continue;
      }
      const parentRef = parent?.messages[channel];
      const parentList =
        !this.messageChannels.has(channel) || !Array.isArray(value) || parentRef === undefined || parent === undefined
          ? undefined
          : await this.messagesOf(sessions, parent.id, channel, parentRef);
      // The parent's very message objects were checked when they were stored: only the rest is looked at.
      const shared = Array.isArray(value) ? sharedPrefix(value, parentList?.objects) : 0;
      if (this.messageChannels.has(channel) && Array.isArray(value) && isMessageList(value, shared)) {
        prepared.push([
          channel,
          version,
          await prepareList(
            this.listContext(sessions),
            sessions,
            value as object[],
            parentList,
            shared,
            `${checkpoint.id} ${channel}`,
          ),
        ]);
        continue;
      }
      const blob = await dumpBlob(this.serde, value);
      if ((blob.s ?? blob.b ?? '').length <= INLINE_CHARS) {
        blobs[channel] = { v: version, at: checkpoint.id, inline: true };
        inline[channel] = blob;
      } else {
        blobs[channel] = { v: version, at: checkpoint.id };
        Object.assign(entries, blobEntries(checkpoint.id, channel, blob));
      }
    }
    const base = {
      id: checkpoint.id,
      ...(parentId === undefined ? {} : { parent: parentId }),
      ts: checkpoint.ts,
      v: checkpoint.v,
      versions: { ...versions },
      seen: structuredClone(checkpoint.versions_seen),
      metadata: await dumpBlob(this.serde, metadata),
      blobs,
      ...(Object.keys(inline).length > 0 ? { inline } : {}),
    };
    // Blobs first: the write that carries the record is the commit point.
    if (Object.keys(entries).length > 0) await this.store.values.set(this.owner(sessions), entries);
    const appending = prepared.filter(([, , list]) => list.toAppend.length > 0);
    const only = appending.length === 1 ? appending[0] : undefined;
    let record: CheckpointRecord;
    if (only !== undefined && only[2].tail !== undefined) {
      // One write: the new messages, the last one carrying the record (its list ends with them).
      const [channel, version, list] = only;
      const messages: Record<string, MessageRef> = { ...inherited };
      for (const [other, otherVersion, otherList] of prepared) {
        if (other === channel) continue;
        const stored = otherList.finish(new Map());
        lists.push([other, stored]);
        messages[other] = { v: otherVersion, ranges: stored.ranges };
      }
      messages[channel] = { v: version, ranges: list.tail as MessageRef['ranges'], tail: list.toAppend.length };
      record = { ...base, messages };
      const last = list.toAppend.at(-1) as Message;
      const carrier = Message.with(last, { metadata: { ...last.metadata, [RECORD_KEY]: recordJson(record) } });
      const seqOf = await this.appendList(sessions, [...list.toAppend.slice(0, -1), carrier], list.state);
      seqOf.set(last.id, seqOf.get(carrier.id) ?? 0);
      const stored = list.finish(seqOf);
      lists.push([channel, stored]);
      record = { ...record, messages: { ...messages, [channel]: { v: version, ranges: stored.ranges } } };
    } else {
      const messages: Record<string, MessageRef> = { ...inherited };
      for (const [channel, version, list] of prepared) {
        const seqOf =
          list.toAppend.length === 0
            ? new Map<string, number>()
            : await this.appendList(sessions, list.toAppend, list.state);
        const stored = await this.scattered(sessions, list.finish(seqOf));
        lists.push([channel, stored]);
        messages[channel] = { v: version, ranges: stored.ranges };
      }
      record = { ...base, messages };
      await this.store.append(sessions.log, [
        Message.create({
          id: logEntryId(checkpoint.id),
          role: 'system',
          category: 'context',
          content: `checkpoint ${checkpoint.id}`,
          metadata: { [RECORD_KEY]: recordJson(record) },
        }),
      ]);
    }
    this.records.remember(sessions, record);
    for (const [channel, list] of lists) this.lists.set(`${sessions.log}\n${checkpoint.id}\n${channel}`, list);
  }

  private async appendList(
    sessions: ThreadSessions,
    messages: readonly Message[],
    state: PreparedList['state'],
  ): Promise<Map<string, number>> {
    const result = await this.store.append(sessions.conversation, messages, state === undefined ? {} : { state });
    return new Map(result.appended.map((message) => [message.id, message.seq ?? 0]));
  }

  /** `list` itself, or, when it spans more than `maxRanges` ranges, one fresh copy of it appended whole. */
  private async scattered(sessions: ThreadSessions, list: StoredList): Promise<StoredList> {
    if (list.ranges.length <= this.maxRanges) return list;
    const copies = list.entries.map((entry) => freshCopy(entry.message));
    const result = await this.store.append(sessions.conversation, copies);
    const entries = result.appended.map((message) => ({ seq: message.seq ?? 0, message }));
    return { entries, ranges: toRanges(entries.map((entry) => entry.seq)) };
  }

  /**
   * Stores the writes of one task on a checkpoint; a write already stored at the same (task, index)
   * is kept, special channels (errors, interrupts, …) replace theirs. Each task's writes are one
   * value of their own (written atomically), so writes of different tasks never touch the same
   * value: savers in any number of processes may put them at once and none is lost. Two calls for
   * the same task and checkpoint are serialized within one saver; across savers they may race (the
   * later one's value stands, a write only the earlier one held can go), which LangGraph never does:
   * a task runs on one worker, and a retry puts the same writes again.
   */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const target = this.target(config, true) as Target;
    const raw = (config.configurable as Record<string, unknown>)['checkpoint_id'];
    if (raw === undefined || raw === '') throw invalid('putWrites needs config.configurable.checkpoint_id');
    const checkpointId = checkKey(raw, 'checkpoint_id');
    checkKey(taskId, 'task_id');
    if (!Array.isArray(writes)) throw invalid('putWrites needs an array of [channel, value] writes');
    const { sessions } = target;
    await this.ensureSessions(target);
    const serialized = await Promise.all(
      writes.map(async (write, index): Promise<StoredWrite> => {
        if (!Array.isArray(write) || typeof write[0] !== 'string')
          throw invalid(`write ${index} is not a [channel, value] pair`);
        const [channel, value] = write;
        return {
          task: taskId,
          idx: WRITES_IDX_MAP[channel] ?? index,
          channel,
          path: taskPath ?? '',
          value: await dumpBlob(this.serde, value),
        };
      }),
    );
    const key = keys.taskWrites(taskId);
    const owner = this.writesOwner(sessions, checkpointId);
    await this.writeLock.run(`${owner.sessionId}\n${key}`, async () => {
      const stored = readWrites(await this.store.values.get(owner, key), `of ${checkpointId} in ${sessions.log}`);
      let changed = false;
      for (const write of serialized) {
        const at = stored.findIndex((old) => old.task === write.task && old.idx === write.idx);
        if (at >= 0 && write.idx >= 0) continue;
        if (at >= 0) stored[at] = write;
        else stored.push(write);
        changed = true;
      }
      if (changed) await this.store.values.set(owner, { [key]: stored as unknown as JsonValue });
    });
  }

  /** Removes the pending writes of every checkpoint `log` (a log session's id) holds. */
  private async deleteWrites(log: string): Promise<void> {
    const sessions: ThreadSessions = { conversation: log.slice(0, -LOG_SUFFIX.length), log };
    for await (const record of this.records.newestFirst(sessions)) {
      const owner = this.writesOwner(sessions, record.id);
      const stored = await this.store.values.getAll(owner);
      if (Object.keys(stored).length > 0)
        await this.store.values.set(owner, Object.fromEntries(Object.keys(stored).map((key) => [key, undefined])));
    }
  }

  /**
   * Deletes every checkpoint, write and message of a thread (all its namespaces). Writes put on a
   * checkpoint id the thread never stored a checkpoint for are not reached (LangGraph never puts them).
   */
  async deleteThread(threadId: string): Promise<void> {
    const base = threadPrefix(this.prefix, checkKey(threadId, 'thread_id'));
    const ids: string[] = [];
    let after: { updatedAt: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.list({
        idPrefix: base,
        kinds: 'all',
        limit: 100,
        ...(after === undefined ? {} : { after }),
      });
      for (const row of page) if (row.id === base || row.id.startsWith(`${base}.`)) ids.push(row.id);
      const last = page.at(-1);
      if (page.length < 100 || last === undefined) break;
      after = { updatedAt: last.updatedAt, id: last.id };
    }
    // The writes first: their owners are found through the log's checkpoints.
    for (const id of ids) if (id.endsWith(LOG_SUFFIX)) await this.deleteWrites(id);
    for (const id of ids) {
      await this.store.delete(id);
      this.created.delete(id);
    }
    this.records.forgetPrefix(base);
    this.lists.deleteWhere((key) => key.startsWith(base));
  }
}

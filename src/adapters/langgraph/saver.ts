/**
 * `ChatstateSaver`: LangGraph's `BaseCheckpointSaver` over any chatstate `SessionStore`. Each
 * (thread, namespace) is two sessions: the conversation (the messages channel, append-only, as
 * chatstate messages anyone can read) and the checkpoint log (one small entry per checkpoint, in
 * put order; its session values hold each checkpoint's record, the blobs of the channels it
 * changed, and its pending writes). A put writes what changed, never the whole thread.
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
import { KeyedLock } from '../../manager/keyed-lock.js';
import { Message } from '../../message/message.js';
import type { JsonObject, JsonValue } from '../../message/schema.js';
import { Session } from '../../session/session.js';
import type { SessionStore, ValueOwner } from '../../store/types.js';
import { compactList, freshCopy } from './compaction.js';
import { deltaOf, readList, revive, toRanges, type Entry, type Known } from './message-list.js';
import type { ChatstateSaverOptions } from './options.js';
import {
  dumpBlob,
  keys,
  loadBlob,
  readRecord,
  readWrites,
  recordJson,
  type BlobRef,
  type CheckpointRecord,
  type MessageRef,
  type StoredWrite,
  type Version,
} from './records.js';
import { LOG_SUFFIX, checkKey, checkPrefix, threadPrefix, threadSessions, type ThreadSessions } from './thread-ids.js';

/** Checkpoints read from the log at a time by `list` and `getTuple`. */
const LOG_PAGE = 64;
/** Message lists and records remembered per saver (the newest ones: a running thread's parents). */
const CACHE_SIZE = 32;

interface Target {
  readonly threadId: string;
  readonly namespace: string;
  readonly sessions: ThreadSessions;
}

function invalid(message: string): InvalidInputError {
  return new InvalidInputError('INVALID_ARGUMENT', `LangGraph saver: ${message}`);
}

/** A small map that forgets its oldest entries. */
class Recent<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
  }
  forgetPrefix(prefix: string): void {
    for (const key of [...this.map.keys()]) if (key.startsWith(prefix)) this.map.delete(key);
  }
}

function logEntryId(checkpointId: string): string {
  return /^[A-Za-z0-9._:-]{1,250}$/.test(checkpointId) ? `cp.${checkpointId}` : `cp.${Buffer.from(checkpointId).toString('hex').slice(0, 250)}`;
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
  private readonly lists = new Recent<Entry[]>(CACHE_SIZE);
  private readonly records = new Recent<CheckpointRecord>(CACHE_SIZE * 4);
  private readonly writeLock = new KeyedLock();

  constructor(store: SessionStore, options: ChatstateSaverOptions = {}) {
    super(options.serde);
    this.store = store;
    this.options = options;
    this.prefix = checkPrefix(options.sessionPrefix ?? 'lg');
    this.messageChannels = new Set(options.messageChannels ?? ['messages']);
    this.maxRanges = options.maxRanges ?? 32;
    if (!Number.isSafeInteger(this.maxRanges) || this.maxRanges < 1) throw invalid('maxRanges must be a positive integer');
  }

  /** The chatstate session ids of a thread's conversation and checkpoint log (in `namespace`, default the root). */
  sessionsOf(threadId: string, namespace = ''): ThreadSessions {
    return threadSessions(this.prefix, checkKey(threadId, 'thread_id'), checkKey(namespace, 'checkpoint_ns'));
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
    const made = [
      Session.create({ id: sessions.conversation, metadata: { langgraph: about } }),
      Session.create({
        id: sessions.log,
        metadata: {
          title: `LangGraph checkpoints of thread ${threadId.slice(0, 60)}${namespace === '' ? '' : ` (${namespace.slice(0, 30)})`}`,
          langgraph: { ...about, conversation: sessions.conversation },
        },
      }),
    ];
    for (const session of made) {
      try {
        await this.store.save(session, { expectedVersion: 0 });
      } catch (error) {
        if (!ChatstateError.hasCode(error, 'CONFLICT')) throw error;
      }
    }
    await this.store.values.set(this.owner(sessions), {
      [keys.thread]: about,
      [keys.conversation]: { langgraph: about },
    });
    this.created.add(sessions.log);
  }

  private async record(sessions: ThreadSessions, checkpointId: string): Promise<CheckpointRecord | undefined> {
    const cacheKey = `${sessions.log}\n${checkpointId}`;
    const cached = this.records.get(cacheKey);
    if (cached !== undefined) return cached;
    const value = await this.store.values.get(this.owner(sessions), keys.record(checkpointId));
    const record = readRecord(value, `${checkpointId} of ${sessions.log}`);
    if (record !== undefined) this.records.set(cacheKey, record);
    return record;
  }

  /** Checkpoint ids of the log, newest first, a page at a time. */
  private async *logIds(sessions: ThreadSessions): AsyncGenerator<string[]> {
    let beforeSeq: number | undefined;
    for (;;) {
      let page: Message[];
      try {
        page = await this.store.readMessages(sessions.log, {
          limit: LOG_PAGE,
          ...(beforeSeq === undefined ? {} : { beforeSeq }),
        });
      } catch (error) {
        if (ChatstateError.hasCode(error, 'NOT_FOUND')) return;
        throw error;
      }
      if (page.length === 0) return;
      const ids: string[] = [];
      for (const entry of [...page].reverse()) {
        const about = entry.metadata['langgraph'] as JsonObject | undefined;
        const id = about?.['checkpoint'];
        if (typeof id === 'string') ids.push(id);
      }
      yield ids;
      if (page.length < LOG_PAGE) return;
      beforeSeq = page[0]?.seq;
    }
  }

  private async latest(sessions: ThreadSessions): Promise<CheckpointRecord | undefined> {
    for await (const ids of this.logIds(sessions)) {
      for (const id of ids) {
        const record = await this.record(sessions, id);
        if (record !== undefined) return record;
      }
    }
    return undefined;
  }

  private async messagesOf(sessions: ThreadSessions, checkpointId: string, channel: string, ref: MessageRef): Promise<Entry[]> {
    const cacheKey = `${sessions.log}\n${checkpointId}\n${channel}`;
    const cached = this.lists.get(cacheKey);
    if (cached !== undefined) return cached;
    const entries = await readList(ref, (afterSeq, beforeSeq) =>
      this.store.readMessages(sessions.conversation, { afterSeq, beforeSeq }),
    );
    this.lists.set(cacheKey, entries);
    return entries;
  }

  private async pendingWrites(sessions: ThreadSessions, checkpointId: string): Promise<StoredWrite[]> {
    const value = await this.store.values.get(this.owner(sessions), keys.writes(checkpointId));
    const writes = readWrites(value, `of ${checkpointId} in ${sessions.log}`);
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
        const blob = await this.store.values.get(owner, keys.blob(ref.at, channel));
        if (blob === undefined) return;
        channelValues[channel] = await loadBlob(this.serde, blob as unknown as Parameters<typeof loadBlob>[1]);
      }),
      ...Object.entries(record.messages).map(async ([channel, ref]) => {
        const entries = await this.messagesOf(sessions, record.id, channel, ref);
        const revived = await revive(this.serde, entries);
        revived.forEach((item, index) => {
          if (typeof item === 'object' && item !== null)
            this.known.set(item, { conversation: sessions.conversation, entry: entries[index] as Entry });
        });
        channelValues[channel] = revived;
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
      checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
    }
    const writes = await this.pendingWrites(sessions, record.id);
    const pendingWrites: CheckpointPendingWrite[] = await Promise.all(
      writes.map(async (write): Promise<CheckpointPendingWrite> => [write.task, write.channel, await loadBlob(this.serde, write.value)]),
    );
    const configurable = { thread_id: target.threadId, checkpoint_ns: target.namespace };
    const tuple: CheckpointTuple = {
      config: { configurable: { ...configurable, checkpoint_id: record.id } },
      checkpoint,
      metadata: (await loadBlob(this.serde, record.metadata)) as CheckpointMetadata,
      pendingWrites,
    };
    if (record.parent !== undefined) tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: record.parent } };
    return tuple;
  }

  /** The checkpoint `config` names (its `checkpoint_id`, else the thread's newest), with its pending writes. */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const target = this.target(config, false);
    if (target === undefined) return undefined;
    const id = getCheckpointId(config);
    const record =
      id === '' ? await this.latest(target.sessions) : await this.record(target.sessions, checkKey(id, 'checkpoint_id'));
    return record === undefined ? undefined : this.tuple(target, record);
  }

  /** The log sessions `config` covers: one namespace, every namespace of a thread, or every thread. */
  private async targets(config: RunnableConfig): Promise<Target[]> {
    const configurable = (config.configurable ?? {}) as Record<string, unknown>;
    if (configurable['thread_id'] !== undefined && configurable['checkpoint_ns'] !== undefined)
      return [this.target(config, true) as Target];
    const threadId = configurable['thread_id'] === undefined ? undefined : checkKey(configurable['thread_id'], 'thread_id');
    const base = threadId === undefined ? `${this.prefix}.` : threadPrefix(this.prefix, threadId);
    const logs: string[] = [];
    let after: { updatedAt: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.list({ idPrefix: base, limit: 100, ...(after === undefined ? {} : { after }) });
      for (const row of page)
        if (row.id.endsWith(LOG_SUFFIX) && (threadId === undefined || row.id.startsWith(`${base}.`))) logs.push(row.id);
      const last = page.at(-1);
      if (page.length < 100 || last === undefined) break;
      after = { updatedAt: last.updatedAt, id: last.id };
    }
    const targets: Target[] = [];
    for (const log of logs.sort()) {
      const about = (await this.store.values.get({ scope: 'session', sessionId: log }, keys.thread)) as JsonObject | undefined;
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
      const pages: AsyncIterable<string[]> =
        onlyId === undefined
          ? this.logIds(target.sessions)
          : (async function* one() {
              yield [onlyId];
            })();
      for await (const ids of pages) {
        const wanted = ids.filter((id) => beforeId === undefined || id < beforeId);
        const records = await Promise.all(wanted.map((id) => this.record(target.sessions, id)));
        for (const record of records) {
          if (record === undefined) continue;
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
    return { configurable: { thread_id: target.threadId, checkpoint_ns: target.namespace, checkpoint_id: checkpoint.id } };
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
    const parent = parentId === undefined ? undefined : await this.record(sessions, parentId);
    const versions = checkpoint.channel_versions;
    const blobs: Record<string, BlobRef> = {};
    const messages: Record<string, MessageRef> = {};
    const entries: Record<string, JsonValue> = {};
    const lists: Array<[string, Entry[]]> = [];
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      const version: Version | undefined = versions[channel] ?? newVersions[channel];
      if (version === undefined || value === undefined) continue;
      if (!(channel in newVersions)) {
        // Unchanged: the parent's value, when the parent holds this very version.
        const blob = parent?.blobs[channel];
        const list = parent?.messages[channel];
        if (blob !== undefined && blob.v === version) blobs[channel] = blob;
        else if (list !== undefined && list.v === version) {
          messages[channel] = list;
          const known = this.lists.get(`${sessions.log}\n${parent?.id ?? ''}\n${channel}`);
          if (known !== undefined) lists.push([channel, known]);
        }
        continue;
      }
      if (this.messageChannels.has(channel) && Array.isArray(value) && value.every((item) => isBaseMessage(item))) {
        const parentRef = parent?.messages[channel];
        const parentList =
          parentRef === undefined || parent === undefined ? [] : await this.messagesOf(sessions, parent.id, channel, parentRef);
        const list = await this.storeList(target, value as object[], parentList, `${checkpoint.id} ${channel}`);
        messages[channel] = { v: version, ranges: toRanges(list.map((entry) => entry.seq)) };
        lists.push([channel, list]);
        continue;
      }
      blobs[channel] = { v: version, at: checkpoint.id };
      entries[keys.blob(checkpoint.id, channel)] = (await dumpBlob(this.serde, value)) as unknown as JsonValue;
    }
    const record: CheckpointRecord = {
      id: checkpoint.id,
      ...(parentId === undefined ? {} : { parent: parentId }),
      ts: checkpoint.ts,
      v: checkpoint.v,
      versions: { ...versions },
      seen: structuredClone(checkpoint.versions_seen),
      metadata: await dumpBlob(this.serde, metadata),
      blobs,
      messages,
    };
    entries[keys.record(checkpoint.id)] = recordJson(record);
    await this.store.values.set(this.owner(sessions), entries);
    // The log entry is the commit point: once it is there, the checkpoint is listed.
    await this.store.append(sessions.log, [
      Message.create({
        id: logEntryId(checkpoint.id),
        role: 'system',
        category: 'context',
        content: `checkpoint ${checkpoint.id}`,
        metadata: { langgraph: { checkpoint: checkpoint.id, ...(parentId === undefined ? {} : { parent: parentId }) } },
      }),
    ]);
    this.records.set(`${sessions.log}\n${checkpoint.id}`, record);
    for (const [channel, list] of lists) this.lists.set(`${sessions.log}\n${checkpoint.id}\n${channel}`, list);
  }

  /**
   * Stores a messages channel's list: appends the messages its parent's list does not have (and,
   * at the end of a turn, what compaction adds), and returns the stored list it now is — a fresh
   * copy of every message when the list would otherwise be scattered over too many ranges.
   */
  private async storeList(target: Target, list: readonly object[], parent: readonly Entry[], where: string): Promise<Entry[]> {
    const { sessions } = target;
    const delta = await deltaOf(list, parent, sessions.conversation, this.known, this.serde, where);
    let logical: Array<Entry | Message> = delta.items.map((item) => ('reuse' in item ? item.reuse : item.add));
    const toAppend = [...delta.added];
    let state: { metadata: JsonObject; variables: Record<string, JsonValue> } | undefined;
    if (this.options.compaction !== undefined) {
      const compacted = await compactList(logical, this.options.compaction, this.store, this.owner(sessions));
      if (compacted !== undefined) {
        logical = compacted.list;
        toAppend.push(...compacted.added);
        state = { metadata: compacted.metadata, variables: {} };
      }
    }
    const seqOf = new Map<string, number>();
    if (toAppend.length > 0) {
      const result = await this.store.append(sessions.conversation, toAppend, state === undefined ? {} : { state });
      for (const message of result.appended) seqOf.set(message.id, message.seq ?? 0);
    }
    let stored: Entry[] = logical.map((item) =>
      Message.is(item) ? { seq: seqOf.get(item.id) ?? 0, message: item } : item,
    );
    if (toRanges(stored.map((entry) => entry.seq)).length > this.maxRanges) {
      // Too scattered (many edits, or a fork far back): one fresh copy of the whole list.
      const copies = stored.map((entry) => freshCopy(entry.message));
      const result = await this.store.append(sessions.conversation, copies);
      stored = result.appended.map((message) => ({ seq: message.seq ?? 0, message }));
    }
    delta.items.forEach((item, index) => {
      const object = list[index];
      if (object === undefined) return;
      const entry = 'reuse' in item ? item.reuse : { seq: seqOf.get(item.add.id) ?? 0, message: item.add };
      this.known.set(object, { conversation: sessions.conversation, entry });
    });
    return stored;
  }

  /** Stores the writes of one task on a checkpoint; a write already stored at the same (task, index) is kept, special channels (errors, interrupts, …) replace theirs. */
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
        if (!Array.isArray(write) || typeof write[0] !== 'string') throw invalid(`write ${index} is not a [channel, value] pair`);
        const [channel, value] = write;
        return { task: taskId, idx: WRITES_IDX_MAP[channel] ?? index, channel, path: taskPath ?? '', value: await dumpBlob(this.serde, value) };
      }),
    );
    const key = keys.writes(checkpointId);
    await this.writeLock.run(`${sessions.log}\n${key}`, async () => {
      const owner = this.owner(sessions);
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

  /** Deletes every checkpoint, write and message of a thread (all its namespaces). */
  async deleteThread(threadId: string): Promise<void> {
    const base = threadPrefix(this.prefix, checkKey(threadId, 'thread_id'));
    const ids: string[] = [];
    let after: { updatedAt: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.list({ idPrefix: base, limit: 100, ...(after === undefined ? {} : { after }) });
      for (const row of page) if (row.id === base || row.id.startsWith(`${base}.`)) ids.push(row.id);
      const last = page.at(-1);
      if (page.length < 100 || last === undefined) break;
      after = { updatedAt: last.updatedAt, id: last.id };
    }
    for (const id of ids) {
      await this.store.delete(id);
      this.created.delete(id);
    }
    this.records.forgetPrefix(base);
    this.lists.forgetPrefix(base);
  }
}

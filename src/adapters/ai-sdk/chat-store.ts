/**
 * `createChatStore`: the AI SDK's missing persistence — `loadChat`, `saveChat`, `appendMessages`,
 * `createChat`, `deleteChat` over any chatstate `SessionStore`, one session per chat.
 * @module
 */
import type { UIMessage } from 'ai';
import { ChatstateError, ConflictError, InvalidInputError } from '../../errors.js';
import { newId } from '../../ids.js';
import { BoundedMap } from '../../internal/bounded-map.js';
import type { Message } from '../../message/message.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { planSave, type ChatPlan } from './chat-plan.js';
import { decodeUiMessages, type StoredUiMessage } from './decode.js';
import { handOut } from './handed-out.js';
import { readUiMessages, type UiMessageJson } from './ui-json.js';

/** Options of `createChatStore`. */
export interface ChatStoreOptions {
  /** Where chats are kept: any chatstate store (memory, file, SQLite, Postgres, Redis). */
  readonly store: SessionStore;
  /** Times a write that met a concurrent writer is planned again on what that writer stored. @default 5 */
  readonly retries?: number;
  /** Owner of new chats (`Session.userId`), for `list` and tenant views. */
  readonly userId?: string;
}

/** What `saveChat` takes: the chat's id and its whole message list, as `useChat` and `onFinish` give it. */
export interface SaveChatInput<Ui extends UIMessage = UIMessage> {
  readonly id: string;
  readonly messages: readonly Ui[];
  /**
   * The chat version the list is based on (from `getChat`): the save fails with `CONFLICT` unless
   * it is still the stored one. Without it, an append or a rewrite of a message is retried on a
   * concurrent writer's result, and removing stored messages needs the version this chat store
   * last loaded (`loadChat` / `getChat`) to still be the stored one.
   */
  readonly expectedVersion?: number;
}

/** A stored chat with its version. */
export interface StoredChat<Ui extends UIMessage = UIMessage> {
  readonly id: string;
  readonly messages: Ui[];
  /** The session version: pass it as `expectedVersion` to save only over this very state. */
  readonly version: number;
}

/** What a write did. */
export interface SaveChatResult {
  /** `none`: nothing changed; `append`: new messages were added; `rewrite`: the chat was rewritten atomically. */
  readonly kind: 'none' | 'append' | 'rewrite';
  /** The chat's version after the write. */
  readonly version: number;
}

/** A chat store over a chatstate session store. */
export interface ChatStore<Ui extends UIMessage = UIMessage> {
  /** The chat's messages; `[]` for a chat that does not exist yet (`useChat` makes ids on the client). */
  loadChat(id: string): Promise<Ui[]>;
  /** The chat with its version, or `undefined` when there is none. */
  getChat(id: string): Promise<StoredChat<Ui> | undefined>;
  /**
   * Stores the chat's whole list, writing only what changed (see `SaveChatInput`). Resolves to
   * nothing, so it fits `onFinish: ({ messages }) => saveChat({ id, messages })` as it is.
   */
  saveChat(input: SaveChatInput<Ui>): Promise<void>;
  /** `saveChat`, telling what it wrote and the chat's version after it. */
  commitChat(input: SaveChatInput<Ui>): Promise<SaveChatResult>;
  /** Adds messages after the stored ones; a message whose id is stored replaces that message. */
  appendMessages(id: string, messages: readonly Ui[]): Promise<SaveChatResult>;
  /** Creates an empty chat and returns its id (`id` when given; `CONFLICT` when it exists). */
  createChat(id?: string): Promise<string>;
  /** Deletes a chat; false when there was none. */
  deleteChat(id: string): Promise<boolean>;
}

/** A save the chat store refused because the chat changed under it (`CONFLICT`): reload and apply again. */
export class ChatConflictError extends ConflictError {
  constructor(message: string, details: Readonly<Record<string, unknown>>) {
    super(message, { details });
  }
}

/** How many chats' loaded versions a chat store remembers. */
const LOADED_VERSIONS = 10_000;

/** How many chats' decoded messages a chat store keeps, to plan a save by reading only the head (see `read`). */
const KNOWN_CHATS = 64;

/** Marks sessions written by a chat store (for people browsing the store). */
const SESSION_METADATA = { aiSdk: { kind: 'ui-chat' } } as const;

/** Creates a chat store for the AI SDK's `UIMessage`s over `options.store`. */
export function createChatStore<Ui extends UIMessage = UIMessage>(options: ChatStoreOptions): ChatStore<Ui> {
  const { store, userId } = options;
  const retries = options.retries ?? 5;
  if (!Number.isSafeInteger(retries) || retries < 0)
    throw new InvalidInputError('INVALID_ARGUMENT', 'retries must be a non-negative integer');
  // The version of each chat this store last read for a caller: a save may remove stored messages
  // only when they are what that caller saw (see `SaveChatInput.expectedVersion`). Bounded, oldest
  // read first out: a chat that dropped out only makes such a save ask for a load again.
  const loaded = new BoundedMap<string, number>({ max: LOADED_VERSIONS });

  // The last chats this store read or wrote, decoded, at their version: while the stored version is
  // still that one (one head read tells), a save plans over them without reading every message.
  const known = new BoundedMap<string, { readonly session: Session; readonly entries: StoredUiMessage[] }>({
    max: KNOWN_CHATS,
  });

  const read = async (id: string): Promise<{ session: Session; entries: StoredUiMessage[] } | undefined> => {
    const cached = known.get(id);
    if (cached !== undefined) {
      const row = await store.summary(id);
      if (row?.version === cached.session.version) return cached;
    }
    const session = await store.get(id);
    if (session === undefined) {
      known.delete(id);
      return undefined;
    }
    const current = { session, entries: decodeUiMessages(session.messages) };
    known.set(id, current);
    return current;
  };

  /**
   * A rewrite that keeps a prefix of the stored chat, as a tail replace (pop, regenerate, edit of
   * the last messages): its cost is the tail's. `undefined` when the store has no `replaceTail` or
   * nothing is kept (the chat is saved whole then).
   */
  const replaceTailOf = async (
    id: string,
    session: Session,
    entries: readonly StoredUiMessage[],
    saving: Extract<ChatPlan, { kind: 'rewrite' }>,
  ): Promise<SaveChatResult | undefined> => {
    const replaceTail = store.replaceTail?.bind(store);
    if (replaceTail === undefined) return undefined;
    const afterSeq = (saving.messages[saving.kept - 1] as Message | undefined)?.seq;
    if (afterSeq === undefined) return undefined;
    const result = await replaceTail(id, {
      afterSeq,
      messages: saving.messages.slice(saving.kept),
      expectedVersion: session.version,
    });
    remember(id, session, entries.slice(0, saving.prefix), result.messages, result.version);
    return { kind: 'rewrite', version: result.version };
  };

  /**
   * Keeps the chat as `session`'s first messages — those of `kept`, the stored messages of its
   * entries — followed by `added`, at `version`, without reading it back. Each group `encode` lays
   * out decodes on its own, so the new messages are decoded alone.
   */
  const remember = (
    id: string,
    session: Session,
    kept: readonly StoredUiMessage[],
    added: readonly Message[],
    version: number,
  ): void => {
    const messages: Message[] = [];
    for (const entry of kept) for (const message of entry.stored) messages.push(message);
    for (const message of added) messages.push(message);
    known.set(id, {
      session: session.withStored({ messages, version }),
      entries: [...kept, ...decodeUiMessages(added)],
    });
  };

  const write = async (
    id: string,
    plan: (entries: readonly StoredUiMessage[]) => readonly UiMessageJson[],
    expectedVersion: number | undefined,
  ): Promise<SaveChatResult> => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await writeOnce(id, plan, expectedVersion);
      } catch (error) {
        // A concurrent writer got there first: plan again over what it stored (unless the caller
        // pinned the version, or the plan itself refused).
        if (error instanceof ChatConflictError) throw error;
        if (!ChatstateError.hasCode(error, 'CONFLICT') || expectedVersion !== undefined || attempt >= retries)
          throw error;
      }
    }
  };

  const writeOnce = async (
    id: string,
    plan: (entries: readonly StoredUiMessage[]) => readonly UiMessageJson[],
    expectedVersion: number | undefined,
  ): Promise<SaveChatResult> => {
    const current = await read(id);
    if (current === undefined) {
      if (expectedVersion !== undefined && expectedVersion !== 0)
        throw new ChatConflictError(`Chat ${id} does not exist (expected version ${expectedVersion})`, { id });
      const next = plan([]);
      const saving = planSave([], next);
      const messages = saving.kind === 'append' ? saving.messages : [];
      const saved = await store.save(
        Session.create({ id, messages, metadata: SESSION_METADATA, ...(userId === undefined ? {} : { userId }) }),
        { expectedVersion: 0 },
      );
      return { kind: messages.length === 0 ? 'none' : 'append', version: saved.version };
    }
    const { session, entries } = current;
    if (expectedVersion !== undefined && expectedVersion !== session.version)
      throw new ChatConflictError(
        `Chat ${id} is at version ${session.version}, not ${expectedVersion}: reload it and apply the change again`,
        { id, version: session.version, expectedVersion },
      );
    const next = plan(entries);
    const saving = planSave(entries, next);
    switch (saving.kind) {
      case 'none':
        return { kind: 'none', version: session.version };
      case 'append': {
        const result = await store.append(id, saving.messages, { expectedVersion: session.version });
        // A retried append whose messages were already there: what is stored is read again next time.
        if (result.duplicates.length === 0) remember(id, session, entries, result.appended, result.version);
        else known.delete(id);
        return { kind: 'append', version: result.version };
      }
      case 'rewrite': {
        if (saving.removed.length > 0 && expectedVersion === undefined && loaded.get(id) !== session.version)
          throw new ChatConflictError(
            `Saving chat ${id} would remove ${saving.removed.length} stored message(s) this chat store did not load ` +
              `(stored version ${session.version}): another writer may have added them. Load the chat and save again, ` +
              'or pass expectedVersion',
            { id, version: session.version, removed: saving.removed },
          );
        const tail = await replaceTailOf(id, session, entries, saving);
        if (tail !== undefined) return tail;
        known.delete(id);
        const saved = await store.save(session.withMessages(saving.messages), { expectedVersion: session.version });
        return { kind: 'rewrite', version: saved.version };
      }
      default: {
        const unreachable: never = saving;
        throw new Error(`unknown plan ${JSON.stringify(unreachable)}`);
      }
    }
  };

  const getChat = async (id: string): Promise<StoredChat<Ui> | undefined> => {
    const current = await read(id);
    if (current === undefined) return undefined;
    loaded.set(id, current.session.version);
    return {
      id,
      messages: current.entries.map((entry) => handOut(entry.message) as Ui),
      version: current.session.version,
    };
  };

  const commitChat = async (input: SaveChatInput<Ui>): Promise<SaveChatResult> => {
    if (typeof input !== 'object' || input === null)
      throw new InvalidInputError('INVALID_ARGUMENT', 'saveChat needs { id, messages }');
    const { expectedVersion } = input;
    if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0))
      throw new InvalidInputError('INVALID_ARGUMENT', 'expectedVersion must be a non-negative integer');
    // The stored messages last seen are what the list most likely starts with: an item that reads
    // as the one at its place is taken as it, uncopied (a hint only: the plan compares with the stored chat).
    const likely = known.get(input.id)?.entries;
    const next = readUiMessages(input.messages, 'messages', (index) => likely?.[index]?.message);
    return write(input.id, () => next, expectedVersion);
  };

  return Object.freeze({
    getChat,
    async loadChat(id: string) {
      return (await getChat(id))?.messages ?? [];
    },
    commitChat,
    async saveChat(input: SaveChatInput<Ui>) {
      await commitChat(input);
    },
    async appendMessages(id: string, messages: readonly Ui[]) {
      const added = readUiMessages(messages);
      return write(
        id,
        (entries) => {
          const byId = new Map(added.map((message) => [message.id, message]));
          const kept = entries.map((entry) => byId.get(entry.message.id) ?? entry.message);
          const storedIds = new Set(entries.map((entry) => entry.message.id));
          return [...kept, ...added.filter((message) => !storedIds.has(message.id))];
        },
        undefined,
      );
    },
    async createChat(id?: string) {
      const chatId = id ?? newId('chat');
      await store.save(
        Session.create({ id: chatId, metadata: SESSION_METADATA, ...(userId === undefined ? {} : { userId }) }),
        { expectedVersion: 0 },
      );
      return chatId;
    },
    async deleteChat(id: string) {
      loaded.delete(id);
      known.delete(id);
      return store.delete(id);
    },
  });
}

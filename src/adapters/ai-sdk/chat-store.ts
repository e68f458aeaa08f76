/**
 * `createChatStore`: the AI SDK's missing persistence — `loadChat`, `saveChat`, `appendMessages`,
 * `createChat`, `deleteChat` over any chatstate `SessionStore`, one session per chat.
 * @module
 */
import type { UIMessage } from 'ai';
import { ChatstateError, ConflictError, InvalidInputError } from '../../errors.js';
import { newId } from '../../ids.js';
import { BoundedMap } from '../../internal/bounded-map.js';
import { Session } from '../../session/session.js';
import type { SessionStore } from '../../store/session-store-types.js';
import { planSave, type ChatPlan } from './chat-plan.js';
import type { StoredUiMessage } from './decode.js';
import { keptChat, knownChat, readOver, shownChat, storedOf, type KnownChat } from './known-chat.js';
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
  /**
   * A new array of deep-frozen messages, the same objects on every load while they are stored:
   * a save given them back recognises them without reading them. Edit a copy, not a message.
   */
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
  /** The chat's messages (deep-frozen, see `StoredChat`); `[]` for a chat that does not exist yet (`useChat` makes ids on the client). */
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
  const known = new BoundedMap<string, KnownChat>({ max: KNOWN_CHATS });

  const read = async (id: string): Promise<KnownChat | undefined> => {
    const cached = known.get(id);
    if (cached !== undefined) {
      const row = await store.summary(id);
      if (row?.version === cached.version) return cached;
    }
    const session = await store.get(id);
    if (session === undefined) {
      known.delete(id);
      return undefined;
    }
    const current = knownChat(session);
    known.set(id, current);
    return current;
  };

  /** Keeps `chat` as what `id` is now, unless another call of this store replaced `was` meanwhile. */
  const keep = (id: string, was: KnownChat, chat: KnownChat): void => {
    if (known.get(id) === was) known.set(id, chat);
  };

  /**
   * A rewrite that keeps a prefix of the stored chat, as a tail replace (pop, regenerate, edit of
   * the last messages): its cost is the tail's. `undefined` when the store has no `replaceTail` or
   * nothing is kept (the chat is saved whole then).
   */
  const replaceTailOf = async (
    id: string,
    chat: KnownChat,
    saving: Extract<ChatPlan, { kind: 'rewrite' }>,
  ): Promise<SaveChatResult | undefined> => {
    const replaceTail = store.replaceTail?.bind(store);
    if (replaceTail === undefined) return undefined;
    const afterSeq = chat.entries[saving.prefix - 1]?.stored.at(-1)?.seq;
    if (afterSeq === undefined) return undefined;
    const result = await replaceTail(id, {
      afterSeq,
      messages: saving.tail,
      expectedVersion: chat.version,
    });
    keep(id, chat, keptChat(chat, saving.prefix, result.messages, result.version));
    return { kind: 'rewrite', version: result.version };
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
      const saving = planSave({ entries: [], messages: [] }, next);
      const messages = saving.kind === 'append' ? saving.messages : [];
      const saved = await store.save(
        Session.create({ id, messages, metadata: SESSION_METADATA, ...(userId === undefined ? {} : { userId }) }),
        { expectedVersion: 0 },
      );
      return { kind: messages.length === 0 ? 'none' : 'append', version: saved.version };
    }
    const { version, entries } = current;
    if (expectedVersion !== undefined && expectedVersion !== version)
      throw new ChatConflictError(
        `Chat ${id} is at version ${version}, not ${expectedVersion}: reload it and apply the change again`,
        { id, version, expectedVersion },
      );
    const next = plan(entries);
    const saving = planSave(current, next);
    switch (saving.kind) {
      case 'none':
        return { kind: 'none', version };
      case 'append': {
        const result = await store.append(id, saving.messages, { expectedVersion: version });
        // A retried append whose messages were already there: what is stored is read again next time.
        if (result.duplicates.length === 0)
          keep(id, current, keptChat(current, entries.length, result.appended, result.version));
        else known.delete(id);
        return { kind: 'append', version: result.version };
      }
      case 'rewrite': {
        if (saving.removed.length > 0 && expectedVersion === undefined && loaded.get(id) !== version)
          throw new ChatConflictError(
            `Saving chat ${id} would remove ${saving.removed.length} stored message(s) this chat store did not load ` +
              `(stored version ${version}): another writer may have added them. Load the chat and save again, ` +
              'or pass expectedVersion',
            { id, version, removed: saving.removed },
          );
        const tail = await replaceTailOf(id, current, saving);
        if (tail !== undefined) return tail;
        known.delete(id);
        // The session as read, over the chat's messages now (the same but for its own tail replaces and appends).
        const session =
          current.read.version === version
            ? current.read
            : current.read.withStored({ messages: storedOf(current), version });
        const saved = await store.save(session.withMessages([...storedOf(current, saving.prefix), ...saving.tail]), {
          expectedVersion: version,
        });
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
    const chat = shownChat(current);
    keep(id, current, chat);
    loaded.set(id, chat.version);
    // A new array (the caller may add to it) of the frozen messages, the same objects every load.
    return { id, messages: [...chat.shown] as Ui[], version: chat.version };
  };

  const commitChat = async (input: SaveChatInput<Ui>): Promise<SaveChatResult> => {
    if (typeof input !== 'object' || input === null)
      throw new InvalidInputError('INVALID_ARGUMENT', 'saveChat needs { id, messages }');
    const { expectedVersion } = input;
    if (expectedVersion !== undefined && (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0))
      throw new InvalidInputError('INVALID_ARGUMENT', 'expectedVersion must be a non-negative integer');
    const next = readOver(input.messages, known.get(input.id));
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

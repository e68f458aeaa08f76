/**
 * A chat as a chat store last read or wrote it, kept to plan the next save without reading every
 * message again, and the list a save gives read over it: the messages the store handed out for the
 * chat's first messages cost one identity check each, so a save costs what it changes.
 *
 * What is done per message of a long chat is kept to comparing two pointer arrays: touching 4,000
 * message objects (even to read an id) costs more than the store's write of a tail.
 * @module
 */
import type { Message } from '../../message/message.js';
import type { Session } from '../../session/session.js';
import { decodeUiMessages, type StoredUiMessage } from './decode.js';
import { handOut } from './handed-out.js';
import { readUiMessages, usedTwice, type UiMessageJson } from './ui-json.js';

/**
 * Where each UI id of a chat is: shared by the chats derived from one another, extended in place by
 * the newest only (`owner`), as `MessageLog` shares its backing array. A position is checked
 * against the chat's own entries, so an older chat's answer is never a wrong position; it is only
 * used by its owner, which every position of is right for.
 */
interface IdIndex {
  readonly positions: Map<string, number>;
  owner: KnownChat | undefined;
}

/** A chat at a version, decoded. */
export interface KnownChat {
  readonly version: number;
  /** The session as last read: its fields (id, owner, metadata) are the chat's; its messages may be older. */
  readonly read: Session;
  readonly entries: readonly StoredUiMessage[];
  /** `entries[i].message`, as an array of its own (see the module note). */
  readonly messages: readonly UiMessageJson[];
  /** `handOut(messages[i])`, once the chat was loaded. */
  readonly shown: readonly object[] | undefined;
  /** True when no two entries have one UI id (always so for chats this store wrote). */
  readonly unique: boolean;
  readonly ids: IdIndex;
}

/** An index of `chat`'s ids owned by it. */
function indexOf(messages: readonly UiMessageJson[]): IdIndex {
  const positions = new Map<string, number>();
  messages.forEach((message, index) => positions.set(message.id, index));
  return { positions, owner: undefined };
}

function owned(chat: Omit<KnownChat, 'ids'>, ids: IdIndex): KnownChat {
  const known: KnownChat = { ...chat, ids };
  ids.owner = known;
  return known;
}

/** The chat of a session just read from the store. */
export function knownChat(session: Session): KnownChat {
  const entries = decodeUiMessages(session.messages);
  const messages = entries.map((entry) => entry.message);
  const ids = indexOf(messages);
  const chat = { version: session.version, read: session, entries, messages, shown: undefined };
  return owned({ ...chat, unique: ids.positions.size === entries.length }, ids);
}

/** `chat` with its messages handed out (`handOut` each, the same objects every time). */
export function shownChat(chat: KnownChat): KnownChat & { readonly shown: readonly object[] } {
  if (chat.shown !== undefined) return chat as KnownChat & { readonly shown: readonly object[] };
  const shown = chat.messages.map((message) => handOut(message));
  const ids = chat.ids.owner === chat ? chat.ids : indexOf(chat.messages);
  return owned({ ...chat, shown }, ids) as KnownChat & { readonly shown: readonly object[] };
}

/**
 * `chat` after a write kept its first `prefix` entries and stored `added` after them, at
 * `version`. The groups `encode` lays out decode on their own, so only `added` is decoded.
 */
export function keptChat(chat: KnownChat, prefix: number, added: readonly Message[], version: number): KnownChat {
  const tail = decodeUiMessages(added);
  const entries = [...chat.entries.slice(0, prefix), ...tail];
  const messages = [...chat.messages.slice(0, prefix), ...tail.map((entry) => entry.message)];
  let ids: IdIndex;
  if (chat.ids.owner === chat) {
    ids = chat.ids;
    tail.forEach((entry, at) => ids.positions.set(entry.message.id, prefix + at));
  } else ids = indexOf(messages);
  const shown = chat.shown?.slice(0, prefix);
  return owned(
    {
      version,
      read: chat.read,
      entries,
      messages,
      // The list written was refused if a new message reused a kept id.
      unique: chat.unique,
      shown: shown === undefined ? undefined : [...shown, ...tail.map((entry) => handOut(entry.message))],
    },
    ids,
  );
}

/** The position of the message with UI id `id` in `chat`, if it has one. */
function positionOf(chat: KnownChat, id: string): number | undefined {
  if (chat.ids.owner !== chat) {
    const index = chat.messages.findIndex((message) => message.id === id);
    return index === -1 ? undefined : index;
  }
  const index = chat.ids.positions.get(id);
  return index !== undefined && chat.messages[index]?.id === id ? index : undefined;
}

/** The stored messages of `chat`'s first `count` entries, in order. */
export function storedOf(chat: KnownChat, count = chat.entries.length): Message[] {
  const messages: Message[] = [];
  for (const entry of chat.entries.slice(0, count)) for (const message of entry.stored) messages.push(message);
  return messages;
}

/**
 * The list a save gives (see `readUiMessages`), read over `chat` (a hint only: it may be out of
 * date, the plan compares with the stored chat): the items that are the objects handed out for
 * its first messages are those messages; the rest are read.
 */
export function readOver(value: unknown, chat: KnownChat | undefined): UiMessageJson[] {
  const known = chat?.messages ?? [];
  const likely = (index: number): UiMessageJson | undefined => known[index];
  const shown = chat?.shown;
  if (chat === undefined || !Array.isArray(value) || shown === undefined || !chat.unique)
    return readUiMessages(value, { likely });
  let prefix = 0;
  while (prefix < value.length && prefix < shown.length && value[prefix] === shown[prefix]) prefix += 1;
  if (prefix === 0) return readUiMessages(value, { likely });
  const rest = readUiMessages(value.slice(prefix), { offset: prefix, likely });
  // The prefix's ids are unique (`chat.unique`) and so are the rest's among themselves: a later
  // message must not reuse one of the prefix's.
  rest.forEach((message, at) => {
    const position = positionOf(chat, message.id);
    if (position !== undefined && position < prefix) throw usedTwice('messages', prefix + at, message.id);
  });
  return [...known.slice(0, prefix), ...rest];
}

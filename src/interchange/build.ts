/**
 * What every importer does once a source's messages are mapped: validate each message (an empty
 * one is skipped and kept in session metadata, one chatstate cannot hold is kept as a context
 * message holding its JSON text), repair tool pairing, and build the session — never dropping text.
 * @module
 */
import { createHash } from 'node:crypto';
import { ChatstateError, errorMessage } from '../errors.js';
import { isValidId } from '../ids.js';
import { Message, type MessageInput } from '../message/message.js';
import { isEmptyContent } from '../message/rules.js';
import { MESSAGE_ID_PATTERN, type Content, type JsonObject, type JsonValue } from '../message/schema.js';
import { SESSION_FORMAT_VERSION } from '../session/schema.js';
import { Session } from '../session/session.js';
import { repairToolPairs } from './repair.js';
import type { ImportItem, ImportRepair, SourcePlace } from './types.js';

/** A message mapped from a source, not validated yet, with the source's own value for when it cannot be. */
export interface Draft {
  readonly input: MessageInput;
  /** The source's message, verbatim. */
  readonly original: unknown;
}

/** Hex SHA-256 of `text`, cut to `length` digits: deterministic ids for sources that have none. */
export function digest(text: string, length = 12): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** `raw` when it is a valid message id; otherwise `fallback` (which the caller derived deterministically). */
export function messageIdOr(raw: unknown, fallback: string): { id: string; derived: boolean } {
  return typeof raw === 'string' && MESSAGE_ID_PATTERN.test(raw)
    ? { id: raw, derived: false }
    : { id: fallback, derived: true };
}

/** `raw` when it is a valid session id; otherwise a safe id made from it (or from `seed`) and a hash. */
export function sessionIdOr(raw: unknown, seed: string): { id: string; derived: boolean } {
  if (isValidId(raw)) return { id: raw, derived: false };
  const base = (typeof raw === 'string' ? raw : '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  const id = `${base.length > 0 ? `${base}-` : 'imported-'}${digest(typeof raw === 'string' ? raw : seed)}`;
  return { id, derived: true };
}

/** A JSON value read by `JSON.parse` (already JSON), typed as such. */
export function json(value: unknown): JsonValue {
  return value as JsonValue;
}

/** Drops `undefined` fields, so that metadata stays JSON. */
export function compact(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/** True when `input` carries nothing chatstate can hold (only tool messages and calls may be empty). */
function isEmpty(input: MessageInput): boolean {
  if (input.role === 'tool' || (input.toolCalls?.length ?? 0) > 0) return false;
  return isEmptyContent(input.content as Content);
}

/**
 * Validated messages of `drafts`. An empty message (nothing to keep) is left out and listed in
 * `skipped`; one chatstate refuses is kept as a context message whose content is the source's JSON.
 * Each change is reported in `repairs`; `system` names the metadata key that holds the original.
 */
export function materialize(
  drafts: readonly Draft[],
  system: string,
  repairs: ImportRepair[],
): { messages: Message[]; skipped: JsonValue[] } {
  const messages: Message[] = [];
  const skipped: JsonValue[] = [];
  drafts.forEach((draft, index) => {
    if (isEmpty(draft.input)) {
      skipped.push(json(draft.original ?? null));
      repairs.push({
        kind: 'empty_message',
        message: `Skipped message ${index}: it has no content (kept in metadata)`,
      });
      return;
    }
    try {
      messages.push(Message.create(draft.input));
    } catch (error) {
      if (!ChatstateError.isInstance(error)) throw error;
      const kept = Message.context(JSON.stringify(draft.original) ?? 'null', {
        ...(draft.input.id === undefined ? {} : { id: draft.input.id }),
        ...(draft.input.timestamp === undefined ? {} : { timestamp: draft.input.timestamp }),
        metadata: { [system]: { unreadable: errorMessage(error) } },
      });
      messages.push(kept);
      repairs.push({
        kind: 'unreadable_message',
        message: `Kept message ${index} as a context message holding its JSON: ${errorMessage(error)}`,
        messageId: kept.id,
      });
    }
  });
  return { messages, skipped };
}

/** The fields of an imported session. */
export interface SessionFields {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly agentId?: string;
  readonly userId?: string;
  readonly variables?: JsonObject;
  readonly metadata: JsonObject;
}

/**
 * `messages` with each id used once: stores take an append's ids as its idempotency keys, so a
 * repeated id (a hand-edited file, a copy) would silently drop a message. Later copies are renamed.
 */
function uniqueIds(messages: readonly Message[], repairs: ImportRepair[]): Message[] {
  const seen = new Set<string>();
  return messages.map((message, index) => {
    if (!seen.has(message.id)) {
      seen.add(message.id);
      return message;
    }
    let id = `${message.id}.${index}`;
    while (seen.has(id)) id = `${id}.${index}`;
    seen.add(id);
    repairs.push({
      kind: 'duplicate_message_id',
      message: `Message ${index} repeats id ${message.id}: imported as ${id}`,
      messageId: id,
    });
    return Message.with(message, { id });
  });
}

/** The session item of `fields` over `messages`, tool pairs repaired (each repair reported). */
export function sessionItem(
  fields: SessionFields,
  messages: readonly Message[],
  repairs: readonly ImportRepair[],
  source: SourcePlace,
): ImportItem {
  const paired = repairToolPairs(messages);
  const unique = uniqueIds(paired.messages, paired.repairs);
  const session = Session.fromJSON({
    formatVersion: SESSION_FORMAT_VERSION,
    id: fields.id,
    ...(fields.agentId === undefined ? {} : { agentId: fields.agentId }),
    ...(fields.userId === undefined ? {} : { userId: fields.userId }),
    createdAt: fields.createdAt,
    updatedAt: fields.updatedAt,
    version: 0,
    messages: unique,
    variables: fields.variables ?? {},
    metadata: fields.metadata,
  });
  return { kind: 'session', session, repairs: [...repairs, ...paired.repairs], source };
}

/** A problem item for `source`, from a thrown error (a chatstate error keeps its code; anything else is `CORRUPT`). */
export function problemFrom(error: unknown, source: SourcePlace): ImportItem {
  const code = ChatstateError.isInstance(error) ? error.code : 'CORRUPT';
  return { kind: 'problem', code, message: errorMessage(error), source };
}

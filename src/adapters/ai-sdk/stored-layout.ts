/**
 * How a UI message is laid out in chatstate messages: the names of the metadata that ties a
 * message's chatstate messages together and keeps what has no chatstate field.
 *
 * A UI message becomes a group of consecutive chatstate messages: a user or system message; or,
 * for an assistant message, one assistant message per step (text, reasoning, files and the tool
 * calls that have an outcome) each followed by the tool messages with those outcomes. The group's
 * first message (its head) carries `metadata.aiSdkUi` = `GroupHead`; the others carry `{ of }`.
 * @module
 */
import { createHash } from 'node:crypto';
import type { ContentPart, JsonObject, JsonValue } from '../../message/schema.js';
import { MESSAGE_ID_PATTERN } from '../../message/schema.js';

/** The metadata key of the layout. */
export const LAYOUT_KEY = 'aiSdkUi';

/** Fields of a part that live in chatstate fields instead of the part's stored copy. */
export type MovedField =
  'text' | 'url' | 'providerMetadata' | 'input' | 'output' | 'errorText' | 'callProviderMetadata';

/**
 * One part of the UI message as stored: the part without its moved fields, which step (assistant
 * message of the group, 0 when absent) holds them, and which fields moved.
 */
export interface StoredPart {
  readonly part: JsonObject;
  readonly step?: number;
  readonly moved?: readonly MovedField[];
}

/** `metadata.aiSdkUi` of a group's head. */
export interface GroupHead {
  /** The UI message id (the chatstate id is derived from it). */
  readonly id: string;
  /** How many chatstate messages the group has, the head included. */
  readonly count: number;
  readonly parts: readonly StoredPart[];
  /** The UI message's metadata, when it has some. */
  readonly metadata?: JsonValue;
  /** Other top-level fields of the UI message. */
  readonly extra?: JsonObject;
}

/** `metadata.aiSdkUi` of a group's other messages. */
export interface GroupMember {
  /** The chatstate id of the group's head. */
  readonly of: string;
}

/**
 * Content of a message that has nothing chatstate can show (a user message of data parts, an
 * assistant message stopped before its first tool result): a chatstate message needs content.
 * `aiSdk.to` leaves it out of prompts.
 */
export const PLACEHOLDER: ContentPart = Object.freeze({
  type: 'raw',
  provider: 'aiSdk',
  value: Object.freeze({ type: 'ui-message-parts-in-metadata' }),
}) as ContentPart;

/** True for `PLACEHOLDER`. */
export function isPlaceholder(part: ContentPart): boolean {
  return (
    part.type === 'raw' &&
    part.provider === 'aiSdk' &&
    typeof part.value === 'object' &&
    part.value !== null &&
    !Array.isArray(part.value) &&
    (part.value as JsonObject)['type'] === 'ui-message-parts-in-metadata'
  );
}

/**
 * The chatstate id of a UI message's head: the UI id itself when chatstate accepts it and it has
 * no `:` (members are `<head>:<n>`); otherwise `ui-` and a hash of it (the UI id stays in the head).
 */
export function headId(uiId: string): string {
  if (MESSAGE_ID_PATTERN.test(uiId) && !uiId.includes(':') && uiId.length <= 200) return uiId;
  return `ui-${createHash('sha256').update(uiId).digest('hex').slice(0, 40)}`;
}

/** The chatstate id of the `index`-th member (1-based) of the group headed by `head`. */
export function memberId(head: string, index: number): string {
  return `${head}:${index}`;
}

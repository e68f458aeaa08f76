/**
 * One Penguin message (seed-formats.md §1.3–1.4) as a chatstate message draft: category names,
 * tool calls from `metadata.tool_calls`, results from `metadata.tool_call_id`, naive local
 * timestamps. What chatstate has no field for is kept under `metadata.penguin`, verbatim.
 * @module
 */
import type { MessageInput } from '../../message/message.js';
import type { Category, ContentPart, JsonObject, JsonValue, ToolCallInput } from '../../message/schema.js';
import { TOOL_CALL_ID_PATTERN } from '../../message/schema.js';
import { imageFromUrl } from '../../formats/media-url.js';
import { compact, json, messageIdOr, type Draft } from '../build.js';
import { isObject } from '../json-text.js';
import { readNaiveLocal } from '../timestamps.js';
import type { ImportRepair } from '../types.js';

/** Penguin's category names, in the enum's order (§1.3). */
export const PENGUIN_CATEGORIES = [
  'SYSTEM',
  'CONTEXT',
  'DIALOG',
  'SYSTEM_OUTPUT',
  'ERROR',
  'INTERNAL',
  'UNKNOWN',
] as const;
/** A Penguin category name. */
export type PenguinCategory = (typeof PENGUIN_CATEGORIES)[number];

// The enum's numeric values: a file can hold one (it loads, then breaks every later save).
const BY_NUMBER: Readonly<Record<number, PenguinCategory>> = {
  1: 'SYSTEM',
  2: 'CONTEXT',
  3: 'DIALOG',
  4: 'SYSTEM_OUTPUT',
  5: 'ERROR',
};

/** The chatstate category of each Penguin name that has one (the other three map by role). */
export const TO_CHATSTATE: Readonly<Partial<Record<PenguinCategory, Category>>> = {
  SYSTEM: 'system',
  CONTEXT: 'context',
  DIALOG: 'dialog',
  SYSTEM_OUTPUT: 'tool_output',
};

/** The ten message keys Penguin writes (HEAD); any other key makes Penguin refuse the file. */
export const MESSAGE_KEYS = [
  'role',
  'content',
  'category',
  'id',
  'timestamp',
  'metadata',
  'tokens',
  'agent_id',
  'recipient_id',
  'message_type',
] as const;

const ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** What mapping a message needs from its session. */
export interface MessageContext {
  /** The session's chatstate id (derived message ids start with it). */
  readonly sessionId: string;
  readonly index: number;
  readonly timeZone: string;
  /** The timestamp a message without a readable one gets (the previous message's, or the session's creation). */
  readonly fallbackTime: string;
  readonly repairs: ImportRepair[];
}

/** The category a role gets when the file has none Penguin knows (quirk 3). */
function categoryByRole(role: string): Category {
  return role === 'system' ? 'system' : role === 'tool' ? 'tool_output' : 'dialog';
}

/** The Penguin name of a raw category: names case-insensitively, the numbers 1–5; undefined otherwise. */
export function penguinCategoryOf(raw: unknown): PenguinCategory | undefined {
  if (typeof raw === 'number') return BY_NUMBER[raw];
  if (typeof raw !== 'string') return undefined;
  const upper = raw.trim().toUpperCase();
  return (PENGUIN_CATEGORIES as readonly string[]).includes(upper) ? (upper as PenguinCategory) : undefined;
}

function readPart(part: unknown, index: number, extras: Record<string, JsonValue>): ContentPart {
  if (isObject(part) && part.type === 'text' && typeof part.text === 'string') {
    const { type: _type, text, ...rest } = part;
    // The trimmer's placeholder carries metadata on the part: kept beside it, by position.
    if (Object.keys(rest).length > 0) extras[String(index)] = json(rest);
    return { type: 'text', text };
  }
  if (isObject(part) && part.type === 'image_url' && Object.keys(part).length === 2 && isObject(part.image_url)) {
    const image = part.image_url;
    if (typeof image.url === 'string' && image.url.length > 0 && Object.keys(image).length === 1) {
      return imageFromUrl(image.url);
    }
  }
  // Penguin's own `image_path` form, adapter parts, non-object items: kept verbatim.
  return { type: 'raw', provider: 'openaiChat', value: json(part) };
}

function readToolCalls(value: unknown): { calls: ToolCallInput[]; left: JsonValue[] } {
  const calls: ToolCallInput[] = [];
  const left: JsonValue[] = [];
  const seen = new Set<string>();
  for (const call of Array.isArray(value) ? value : []) {
    const fn = isObject(call) ? call.function : undefined;
    const id = isObject(call) ? call.id : undefined;
    if (
      typeof id === 'string' &&
      id.length <= 256 &&
      TOOL_CALL_ID_PATTERN.test(id) &&
      !seen.has(id) &&
      isObject(fn) &&
      typeof fn.name === 'string' &&
      fn.name.length > 0 &&
      fn.name.length <= 256 &&
      (typeof fn.arguments === 'string' || fn.arguments === undefined)
    ) {
      seen.add(id);
      calls.push({ id, name: fn.name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '{}' });
    } else {
      left.push(json(call));
    }
  }
  return { calls, left };
}

/** A Penguin message as a draft; `raw` is one element of the file's `messages`. */
export function penguinDraft(raw: unknown, context: MessageContext): Draft {
  const { index, repairs } = context;
  const entry = isObject(raw) ? raw : { content: json(raw) };
  const penguin: Record<string, JsonValue | undefined> = {};
  const extra = Object.fromEntries(
    Object.entries(entry).filter(([key]) => !(MESSAGE_KEYS as readonly string[]).includes(key)),
  );
  if (Object.keys(extra).length > 0) penguin.extra = json(extra);

  // Role.
  const rawRole = entry.role;
  let role = typeof rawRole === 'string' && ROLES.has(rawRole) ? (rawRole as MessageInput['role']) : undefined;
  if (role === undefined) {
    penguin.role = json(rawRole ?? null);
    repairs.push({
      kind: 'unknown_role',
      message: `Message ${index} has role ${JSON.stringify(rawRole ?? null)}: imported as context`,
    });
  }

  // Metadata, with the tool fields taken out into chatstate's own.
  const metadata: Record<string, JsonValue> = isObject(entry.metadata) ? { ...(entry.metadata as JsonObject) } : {};
  if (entry.metadata !== undefined && !isObject(entry.metadata)) penguin.metadata = json(entry.metadata);
  const chatstate = isObject(metadata.chatstate) ? metadata.chatstate : {};
  delete metadata.chatstate;
  let toolCalls: ToolCallInput[] = [];
  if (role === 'assistant' && metadata.tool_calls !== undefined) {
    const read = readToolCalls(metadata.tool_calls);
    toolCalls = read.calls;
    if (read.left.length > 0) metadata.tool_calls = read.left;
    else delete metadata.tool_calls;
  }
  let toolCallId: string | undefined;
  if (role === 'tool') {
    const id = metadata.tool_call_id;
    if (typeof id === 'string' && id.length > 0 && id.length <= 256 && TOOL_CALL_ID_PATTERN.test(id)) {
      toolCallId = id;
      delete metadata.tool_call_id;
    } else {
      // A result without a usable call id cannot be paired: its text stays, as context.
      role = undefined;
      metadata.imported = { was: 'tool', why: 'orphan_tool_result' };
      repairs.push({
        kind: 'orphan_tool_result',
        message: `Kept tool result ${index} as a context message: it has no usable tool_call_id`,
      });
    }
  }

  // Category (quirk 2 and 3).
  const name = penguinCategoryOf(entry.category);
  if (entry.category === undefined) {
    repairs.push({ kind: 'missing_category', message: `Message ${index} has no category: inferred from its role` });
  } else if (name === undefined) {
    penguin.categoryRaw = json(entry.category);
    repairs.push({
      kind: 'unknown_category',
      message: `Message ${index} has category ${JSON.stringify(entry.category)}: inferred from its role`,
    });
  } else if (entry.category !== name) {
    penguin.categoryRaw = json(entry.category);
  }
  const category: Category =
    role === undefined
      ? 'context'
      : role === 'tool'
        ? 'tool_output'
        : ((name === undefined ? undefined : TO_CHATSTATE[name]) ?? categoryByRole(role));
  if (role === undefined) role = 'system';
  if (name !== undefined && TO_CHATSTATE[name] !== category) penguin.category = name;

  // Content.
  let content: MessageInput['content'];
  const partExtras: Record<string, JsonValue> = {};
  if (typeof entry.content === 'string') content = entry.content;
  else if (Array.isArray(entry.content)) content = entry.content.map((part, at) => readPart(part, at, partExtras));
  else {
    if (entry.content === undefined)
      repairs.push({ kind: 'missing_content', message: `Message ${index} has no content: imported as empty` });
    else penguin.content = json(entry.content);
    content = entry.content === undefined || entry.content === null ? '' : JSON.stringify(entry.content);
  }
  if (Object.keys(partExtras).length > 0) penguin.parts = partExtras;

  // Id and timestamp (quirks 4 and 5).
  const id = messageIdOr(entry.id, `${context.sessionId}.${index}`);
  if (id.derived) {
    penguin.idDerived = true;
    if (entry.id !== undefined) penguin.id = json(entry.id);
  }
  const read = typeof entry.timestamp === 'string' ? readNaiveLocal(entry.timestamp, context.timeZone) : undefined;
  if (typeof entry.timestamp === 'string') penguin.timestamp = entry.timestamp;
  else if (entry.timestamp !== undefined) penguin.timestamp = json(entry.timestamp);
  if (read === undefined) penguin.timestampDerived = true;

  // Fields chatstate has no place for, when they differ from what Penguin writes by default.
  if (entry.tokens !== undefined && entry.tokens !== 0) penguin.tokens = json(entry.tokens);
  if (entry.agent_id !== undefined && entry.agent_id !== null) penguin.agentId = json(entry.agent_id);
  if (entry.recipient_id !== undefined && entry.recipient_id !== null) penguin.recipientId = json(entry.recipient_id);
  const defaultType = entry.role === 'tool' ? 'action' : 'message';
  if (entry.message_type !== undefined && entry.message_type !== defaultType)
    penguin.messageType = json(entry.message_type);

  const toolName =
    typeof chatstate.name === 'string'
      ? chatstate.name
      : role === 'tool' && typeof metadata.action_type === 'string'
        ? metadata.action_type
        : undefined;
  const penguinFields = compact(penguin);
  const input: MessageInput = {
    id: id.id,
    role,
    category,
    content,
    timestamp: read?.iso ?? context.fallbackTime,
    metadata: Object.keys(penguinFields).length > 0 ? { ...metadata, penguin: penguinFields } : metadata,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(toolCallId === undefined ? {} : { toolCallId }),
    ...(toolName === undefined || toolName.length === 0 || toolName.length > 256 ? {} : { name: toolName }),
    ...(isObject(chatstate.tokens) ? { tokens: chatstate.tokens as Record<string, number> } : {}),
  };
  return { input, original: raw };
}

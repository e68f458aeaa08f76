/**
 * The fast path of `Message.fromStored`: builds, without zod, the very message `Message.create`
 * would return for plain data such as a store record after `JSON.parse`, or gives up (returns
 * `undefined`) whenever it is not certain; the caller then runs `Message.create`, so what is
 * accepted, and every error, stay exactly zod's. A stored record is never trusted: a file can be
 * edited or damaged, so every field is checked as the schema checks it.
 *
 * It reads a value the way zod does: the schema's keys by property access, unknown keys of a
 * strict object by `for…in`; JSON values (metadata, raw values, provider options, token counts)
 * are read by `./json-value.ts`, as the schema reads them. What it returns is a fresh, frozen copy
 * in the key order zod gives: nothing aliases the input and nothing of the input is frozen or
 * changed. Anything unusual — another prototype, a part's key present with the value `undefined`,
 * a missing id or timestamp, tool arguments that are not JSON text, a value that throws while it
 * is read — is left to `create` rather than reasoned about here.
 * @module
 */
import { EMPTY_OBJECT, readJson, readJsonRecord } from './json-value.js';
import type { Message } from './message.js';
import {
  DEFAULT_CATEGORY,
  MAX_MESSAGE_CHARS,
  MESSAGE_FIELDS,
  contentSize,
  isEmptyContent,
  messageSizeOf,
} from './rules.js';
import {
  MESSAGE_ID_PATTERN,
  TOOL_CALL_ID_PATTERN,
  readProviderOptions,
  readTokenCounts,
  timestampSchema,
  type Category,
  type Content,
  type ContentPart,
  type FilePart,
  type ImagePart,
  type JsonObject,
  type ProviderName,
  type RawPart,
  type ReasoningPart,
  type Role,
  type TextPart,
  type ToolCall,
} from './schema.js';

type Writable<T> = { -readonly [K in keyof T]: T[K] };
/** A plain object read field by field. */
type Fields = Readonly<Record<string, unknown>>;
/** Provider options as the schema outputs them. */
type ProviderOptions = Readonly<Record<string, JsonObject>>;

// Longest name and tool call id (the schema's `.max(256)`).
const MAX_NAME = 256;

// The pattern zod itself tests timestamps with, so that both agree on every string; should a zod
// version not expose it (or make it stateful), timestamps are checked by the schema (slower, exact).
const zodPattern: RegExp | undefined = timestampSchema._zod.def.pattern;
const TIMESTAMP_PATTERN = zodPattern !== undefined && !zodPattern.global && !zodPattern.sticky ? zodPattern : undefined;

// One frozen empty object stands for every empty one (most messages have no metadata): equal to a
// fresh `{}`, and nothing can tell them apart since neither can change.
const EMPTY: JsonObject = EMPTY_OBJECT;

const MESSAGE_KEYS: ReadonlySet<string> = new Set([...MESSAGE_FIELDS, 'seq']);
const TEXT_KEYS: ReadonlySet<string> = new Set(['type', 'text', 'providerOptions']);
const IMAGE_KEYS: ReadonlySet<string> = new Set(['type', 'url', 'data', 'mediaType', 'detail', 'providerOptions']);
const FILE_KEYS: ReadonlySet<string> = new Set([
  'type',
  'url',
  'data',
  'fileId',
  'mediaType',
  'filename',
  'providerOptions',
]);
const REASONING_KEYS: ReadonlySet<string> = new Set(['type', 'text', 'signature', 'provider', 'providerOptions']);
const RAW_KEYS: ReadonlySet<string> = new Set(['type', 'provider', 'value']);
const TOOL_CALL_KEYS: ReadonlySet<string> = new Set(['id', 'name', 'arguments', 'providerOptions']);

/** A message as built here: everything in it is frozen, except the message object itself. */
export type BuiltMessage = Writable<Message>;

/**
 * The message `Message.create(value)` would return, its fields deep-frozen but not itself (so
 * that `Message` can mark it as its own first), or `undefined` when this path is not certain that
 * `create` accepts `value`.
 */
export function buildStoredMessage(value: unknown): BuiltMessage | undefined {
  try {
    return build(value);
  } catch {
    // A getter or a Proxy trap threw: `create` reads the value again and says what is wrong.
    return undefined;
  }
}

function build(value: unknown): BuiltMessage | undefined {
  if (!isPlainObject(value) || !hasOnlyKeys(value, MESSAGE_KEYS)) return undefined;
  const { id, role, category, content, toolCalls, toolCallId, name, timestamp, metadata, tokens, seq } = value;
  // Without an id or a timestamp, `create` invents one: that is its job, not a stored record's.
  if (typeof id !== 'string' || !MESSAGE_ID_PATTERN.test(id)) return undefined;
  if (!isRole(role)) return undefined;
  let resolvedCategory: Category;
  if (category === undefined) resolvedCategory = DEFAULT_CATEGORY[role];
  else if (isCategory(category)) resolvedCategory = category;
  else return undefined;
  if (typeof timestamp !== 'string' || !isTimestamp(timestamp)) return undefined;
  if (toolCallId !== undefined && !isToolCallId(toolCallId)) return undefined;
  if (name !== undefined && !isName(name)) return undefined;
  if (seq !== undefined && !(typeof seq === 'number' && Number.isSafeInteger(seq) && seq > 0)) return undefined;

  // The rules `create` applies after the schema; a message breaking one gets `create`'s error.
  if (role === 'tool') {
    if (toolCallId === undefined || resolvedCategory !== 'tool_output') return undefined;
  } else if (toolCallId !== undefined) {
    return undefined;
  }
  let calls: readonly ToolCall[] | undefined;
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls)) return undefined;
    // An empty list is dropped by `create`, as if absent.
    if (toolCalls.length > 0) {
      if (role !== 'assistant') return undefined;
      calls = copyToolCalls(toolCalls);
      if (calls === undefined) return undefined;
    }
  }
  const body = copyContent(content);
  if (body === undefined) return undefined;
  if (role !== 'tool' && calls === undefined && isEmptyContent(body)) return undefined;
  let meta: JsonObject;
  let metaChars = 2;
  if (metadata === undefined) {
    meta = EMPTY;
  } else {
    const copied = readJsonRecord(metadata);
    if (!copied.ok) return undefined;
    meta = copied.value;
    metaChars = copied.size;
  }
  let counts: Readonly<Record<string, number>> | undefined;
  let countChars: number | undefined;
  if (tokens !== undefined) {
    const copied = readTokenCounts(tokens);
    if (!copied.ok) return undefined;
    counts = copied.value;
    countChars = copied.size;
  }

  // The size `create` measures, from what was just read: over the limit, `create` says so.
  const fields = { id, role, category: resolvedCategory, timestamp, toolCalls: calls, toolCallId, name };
  if (messageSizeOf(fields, contentSize(body), metaChars, countChars) > MAX_MESSAGE_CHARS) return undefined;
  // The same fields in the same order as `create` builds them (same shape, same JSON text).
  const message: BuiltMessage = { id, role, category: resolvedCategory, content: body, timestamp, metadata: meta };
  if (calls !== undefined) message.toolCalls = calls;
  if (toolCallId !== undefined) message.toolCallId = toolCallId;
  if (name !== undefined) message.name = name;
  if (counts !== undefined) message.tokens = counts;
  if (seq !== undefined) message.seq = seq;
  return message;
}

/** An object with the ordinary prototype: what `JSON.parse` makes. Anything else is left to zod. */
function isPlainObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** True when every key `for…in` sees is one of `keys`: a strict object's check, as zod runs it. */
function hasOnlyKeys(value: Fields, keys: ReadonlySet<string>): boolean {
  for (const key in value) {
    if (!keys.has(key)) return false;
  }
  return true;
}

/** True when `key` is absent; a key present with `undefined` makes zod output it, so it is left to zod. */
function isAbsent(value: Fields, key: string): boolean {
  return !(key in value);
}

function isRole(value: unknown): value is Role {
  return value === 'user' || value === 'assistant' || value === 'tool' || value === 'system';
}

function isCategory(value: unknown): value is Category {
  return value === 'dialog' || value === 'tool_output' || value === 'system' || value === 'context';
}

function isProvider(value: unknown): value is ProviderName {
  return (
    value === 'openaiChat' ||
    value === 'openaiResponses' ||
    value === 'anthropic' ||
    value === 'gemini' ||
    value === 'aiSdk'
  );
}

function isTimestamp(value: string): boolean {
  return TIMESTAMP_PATTERN !== undefined ? TIMESTAMP_PATTERN.test(value) : timestampSchema.safeParse(value).success;
}

function isToolCallId(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_NAME && TOOL_CALL_ID_PATTERN.test(value);
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_NAME;
}

/** A string of at least one character, or absent (`null` when neither: left to zod). */
function optionalText(part: Fields, key: string): string | undefined | null {
  const value = part[key];
  if (value === undefined) return isAbsent(part, key) ? undefined : null;
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** An image's `detail`, or absent (`null` when neither: left to zod). */
function optionalDetail(part: Fields): ImagePart['detail'] | null {
  const value = part.detail;
  if (value === undefined) return isAbsent(part, 'detail') ? undefined : null;
  return value === 'auto' || value === 'low' || value === 'high' ? value : null;
}

/** A provider name, or absent (`null` when neither: left to zod). */
function optionalProvider(part: Fields): ProviderName | undefined | null {
  const value = part.provider;
  if (value === undefined) return isAbsent(part, 'provider') ? undefined : null;
  return isProvider(value) ? value : null;
}

function copyContent(value: unknown): Content | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return undefined;
  const items: readonly unknown[] = value;
  const parts: ContentPart[] = [];
  for (let i = 0; i < items.length; i++) {
    const part = copyPart(items[i]);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return Object.freeze(parts);
}

function copyPart(value: unknown): ContentPart | undefined {
  if (!isPlainObject(value)) return undefined;
  switch (value.type) {
    case 'text':
      return copyTextPart(value);
    case 'image':
      return copyImagePart(value);
    case 'file':
      return copyFilePart(value);
    case 'reasoning':
      return copyReasoningPart(value);
    case 'raw':
      return copyRawPart(value);
    default:
      return undefined;
  }
}

/** Provider options of a part: `null` when invalid or unsure, `undefined` when absent. */
function partOptions(part: Fields): ProviderOptions | undefined | null {
  const options = part.providerOptions;
  if (options === undefined) return isAbsent(part, 'providerOptions') ? undefined : null;
  const read = readProviderOptions(options);
  return read.ok ? read.value : null;
}

function copyTextPart(part: Fields): TextPart | undefined {
  if (!hasOnlyKeys(part, TEXT_KEYS)) return undefined;
  const text = part.text;
  if (typeof text !== 'string') return undefined;
  const options = partOptions(part);
  if (options === null) return undefined;
  return Object.freeze(
    options === undefined ? { type: 'text', text } : { type: 'text', text, providerOptions: options },
  );
}

function copyImagePart(part: Fields): ImagePart | undefined {
  if (!hasOnlyKeys(part, IMAGE_KEYS)) return undefined;
  const url = optionalText(part, 'url');
  const data = optionalText(part, 'data');
  const mediaType = optionalText(part, 'mediaType');
  const detail = optionalDetail(part);
  if (url === null || data === null || mediaType === null || detail === null) return undefined;
  // The schema's refinement: exactly one source.
  if ((url === undefined) === (data === undefined)) return undefined;
  const options = partOptions(part);
  if (options === null) return undefined;
  const copy: Writable<ImagePart> = { type: 'image' };
  if (url !== undefined) copy.url = url;
  if (data !== undefined) copy.data = data;
  if (mediaType !== undefined) copy.mediaType = mediaType;
  if (detail !== undefined) copy.detail = detail;
  if (options !== undefined) copy.providerOptions = options;
  return Object.freeze(copy);
}

function copyFilePart(part: Fields): FilePart | undefined {
  if (!hasOnlyKeys(part, FILE_KEYS)) return undefined;
  const url = optionalText(part, 'url');
  const data = optionalText(part, 'data');
  const fileId = optionalText(part, 'fileId');
  const mediaType = part.mediaType;
  const filename = optionalText(part, 'filename');
  if (url === null || data === null || fileId === null || filename === null) return undefined;
  if (typeof mediaType !== 'string' || mediaType.length === 0) return undefined;
  // The schema's refinement: exactly one source.
  if ((url === undefined ? 0 : 1) + (data === undefined ? 0 : 1) + (fileId === undefined ? 0 : 1) !== 1)
    return undefined;
  const options = partOptions(part);
  if (options === null) return undefined;
  // Built in the schema's key order (as zod outputs it), so `mediaType` is set in its turn.
  const copy: Partial<Writable<FilePart>> = { type: 'file' };
  if (url !== undefined) copy.url = url;
  if (data !== undefined) copy.data = data;
  if (fileId !== undefined) copy.fileId = fileId;
  copy.mediaType = mediaType;
  if (filename !== undefined) copy.filename = filename;
  if (options !== undefined) copy.providerOptions = options;
  return Object.freeze(copy as FilePart);
}

function copyReasoningPart(part: Fields): ReasoningPart | undefined {
  if (!hasOnlyKeys(part, REASONING_KEYS)) return undefined;
  const text = part.text;
  if (typeof text !== 'string') return undefined;
  const signature = part.signature;
  if (signature === undefined ? !isAbsent(part, 'signature') : typeof signature !== 'string') return undefined;
  const provider = optionalProvider(part);
  if (provider === null) return undefined;
  const options = partOptions(part);
  if (options === null) return undefined;
  const copy: Writable<ReasoningPart> = { type: 'reasoning', text };
  if (typeof signature === 'string') copy.signature = signature;
  if (provider !== undefined) copy.provider = provider;
  if (options !== undefined) copy.providerOptions = options;
  return Object.freeze(copy);
}

function copyRawPart(part: Fields): RawPart | undefined {
  if (!hasOnlyKeys(part, RAW_KEYS)) return undefined;
  const provider = part.provider;
  if (!isProvider(provider)) return undefined;
  const value = part.value;
  // A raw part without its value is left to zod (which refuses it).
  if (value === undefined) return undefined;
  const copied = readJson(value);
  if (!copied.ok) return undefined;
  return Object.freeze({ type: 'raw', provider, value: copied.value });
}

function copyToolCalls(items: readonly unknown[]): readonly ToolCall[] | undefined {
  const calls: ToolCall[] = [];
  for (let i = 0; i < items.length; i++) {
    const call = copyToolCall(items[i]);
    if (call === undefined) return undefined;
    // Ids must be unique within a message (a handful of calls: a scan beats a Set).
    for (let j = 0; j < calls.length; j++) {
      if (calls[j]?.id === call.id) return undefined;
    }
    calls.push(call);
  }
  return Object.freeze(calls);
}

/** A tool call as `create` normalizes it; arguments that are not JSON text are left to `create`. */
function copyToolCall(value: unknown): ToolCall | undefined {
  if (!isPlainObject(value) || !hasOnlyKeys(value, TOOL_CALL_KEYS)) return undefined;
  const { id, name, arguments: args, providerOptions } = value;
  if (!isToolCallId(id) || !isName(name) || typeof args !== 'string') return undefined;
  // `create` drops `providerOptions: undefined`, so here absent and undefined are alike.
  if (providerOptions === undefined) return Object.freeze({ id, name, arguments: args });
  const options = readProviderOptions(providerOptions);
  if (!options.ok) return undefined;
  return Object.freeze({ id, name, arguments: args, providerOptions: options.value });
}

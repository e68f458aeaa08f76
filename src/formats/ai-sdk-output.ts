/**
 * Tool results between chatstate tool-message content and AI SDK `ToolResultOutput`, both
 * directions. Output kinds chatstate has no field for (`error-text`, `execution-denied`, a `text`
 * output that looks like JSON, …) are kept as one text part marked with
 * `providerOptions.aiSdk.outputType`, so the round trip restores them.
 * @module
 */
import type { Message } from '../message/message.js';
import type { Content, ContentPart, JsonValue } from '../message/schema.js';
import type { AiSdkToolOutputContent, AiSdkToolResultOutput } from './ai-sdk-wire.js';
import { UNKNOWN_MEDIA_TYPE, imageMediaType, splitDataUrl } from './media-url.js';
import type { FormatWarning } from './types.js';
import { isRecord, parseJson, rawAs, toJsonValue, toWireJson, unreadable } from './wire-json.js';

/** Output kinds carried as a marked text part. */
type MarkedKind = 'text' | 'json' | 'error-text' | 'error-json' | 'execution-denied';

const MARKED: ReadonlySet<unknown> = new Set<MarkedKind>([
  'text',
  'json',
  'error-text',
  'error-json',
  'execution-denied',
]);

/** The JSON object or array `text` holds when `JSON.stringify` writes it back as exactly `text` (so it reads back identically). */
function roundTripJson(text: string): JsonValue | undefined {
  const parsed = parseJson(text);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return undefined;
  return JSON.stringify(parsed.value) === text ? parsed.value : undefined;
}

function marked(text: string, kind: MarkedKind): ContentPart[] {
  return [{ type: 'text', text, providerOptions: { aiSdk: { outputType: kind } } }];
}

function markedOutput(text: string, kind: MarkedKind): AiSdkToolResultOutput {
  switch (kind) {
    case 'text':
      return { type: 'text', value: text };
    case 'json':
    case 'error-json': {
      const parsed = parseJson(text);
      if (parsed.ok) return { type: kind, value: toWireJson(parsed.value) };
      return { type: kind === 'json' ? 'text' : 'error-text', value: text };
    }
    case 'error-text':
      return { type: 'error-text', value: text };
    case 'execution-denied':
      return text.length > 0 ? { type: 'execution-denied', reason: text } : { type: 'execution-denied' };
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown output kind ${String(unreachable)}`);
    }
  }
}

function outputItem(
  part: ContentPart,
  message: Message,
  warnings: FormatWarning[],
): AiSdkToolOutputContent | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image': {
      const inline =
        part.data !== undefined
          ? { data: part.data, mediaType: imageMediaType(part.data, part.mediaType) }
          : splitDataUrl(part.url ?? '');
      return inline === undefined ? { type: 'image-url', url: part.url ?? '' } : { type: 'image-data', ...inline };
    }
    case 'file': {
      const named = part.filename === undefined ? {} : { filename: part.filename };
      if (part.fileId !== undefined) return { type: 'file-id', fileId: part.fileId };
      if (part.data !== undefined) return { type: 'file-data', data: part.data, mediaType: part.mediaType, ...named };
      return { type: 'file-url', url: part.url ?? '', mediaType: part.mediaType };
    }
    case 'reasoning':
      warnings.push({
        code: 'unsupported_part',
        message: 'Dropped a reasoning part from a tool result',
        messageId: message.id,
      });
      return undefined;
    case 'raw':
      if (part.provider === 'aiSdk' && isRecord(part.value)) return rawAs<AiSdkToolOutputContent>(part.value);
      warnings.push({
        code: 'foreign_raw_part',
        message: `Dropped a raw ${part.provider} part from a tool result`,
        messageId: message.id,
      });
      return undefined;
    default: {
      const unreachable: never = part;
      throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The AI SDK output of a tool message. */
export function toolResultOutput(message: Message, warnings: FormatWarning[]): AiSdkToolResultOutput {
  const content = message.content;
  if (typeof content === 'string') {
    const json = roundTripJson(content);
    return json === undefined ? { type: 'text', value: content } : { type: 'json', value: toWireJson(json) };
  }
  const only = content.length === 1 ? content[0] : undefined;
  const kind = only?.type === 'text' ? only.providerOptions?.['aiSdk']?.['outputType'] : undefined;
  if (only?.type === 'text' && MARKED.has(kind)) return markedOutput(only.text, kind as MarkedKind);
  const value: AiSdkToolOutputContent[] = [];
  for (const part of content) {
    const item = outputItem(part, message, warnings);
    if (item !== undefined) value.push(item);
  }
  return { type: 'content', value };
}

function readOutputItem(item: unknown, path: string): ContentPart {
  if (!isRecord(item) || typeof item['type'] !== 'string') throw unreadable(path, 'a tool output part with a type');
  const raw: ContentPart = { type: 'raw', provider: 'aiSdk', value: toJsonValue(item, path) };
  // Items with options of their own are kept whole, so the options are not lost.
  if (item['providerOptions'] !== undefined) return raw;
  const { type, text, data, mediaType, url, fileId, filename } = item;
  const named = typeof filename === 'string' && filename.length > 0 ? { filename } : {};
  if (type === 'text' && typeof text === 'string') return { type: 'text', text };
  if (type === 'image-data' && typeof data === 'string' && data.length > 0 && typeof mediaType === 'string')
    return { type: 'image', data, mediaType };
  if (type === 'image-url' && typeof url === 'string' && url.length > 0) return { type: 'image', url };
  if (
    type === 'file-data' &&
    typeof data === 'string' &&
    data.length > 0 &&
    typeof mediaType === 'string' &&
    mediaType.length > 0
  ) {
    return { type: 'file', data, mediaType, ...named };
  }
  if (
    type === 'file-url' &&
    typeof url === 'string' &&
    url.length > 0 &&
    typeof mediaType === 'string' &&
    mediaType.length > 0
  )
    return { type: 'file', url, mediaType };
  if (type === 'file-id' && typeof fileId === 'string' && fileId.length > 0)
    return { type: 'file', fileId, mediaType: UNKNOWN_MEDIA_TYPE };
  return raw;
}

/** The content of a tool message read from an AI SDK output; throws `INVALID_ARGUMENT` for an unknown output type. */
export function readToolOutput(output: unknown, path: string, warnings: FormatWarning[]): Content {
  if (!isRecord(output)) throw unreadable(path, 'a tool result output');
  if (output['providerOptions'] !== undefined)
    warnings.push({ code: 'unsupported_field', message: `Ignored ${path}.providerOptions` });
  const { type, value } = output;
  switch (type) {
    case 'text':
      if (typeof value !== 'string') break;
      // Text that `to` would take for JSON stays marked as text.
      return roundTripJson(value) === undefined ? value : marked(value, 'text');
    case 'json': {
      const text = JSON.stringify(toJsonValue(value ?? null, `${path}.value`));
      return typeof value === 'object' && value !== null ? text : marked(text, 'json');
    }
    case 'error-text':
      if (typeof value !== 'string') break;
      return marked(value, 'error-text');
    case 'error-json':
      return marked(JSON.stringify(toJsonValue(value ?? null, `${path}.value`)), 'error-json');
    case 'execution-denied':
      return marked(typeof output['reason'] === 'string' ? output['reason'] : '', 'execution-denied');
    case 'content':
      if (!Array.isArray(value)) break;
      return value.map((item, index) => readOutputItem(item, `${path}.value[${index}]`));
  }
  throw unreadable(path, 'a text, json, error-text, error-json, execution-denied or content output');
}

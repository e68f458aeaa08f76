/**
 * Content parts ↔ Anthropic content blocks, both directions. Turn-level rules (system slot, tool
 * results, merging) live in `anthropic.ts`; this file only maps one part or one block.
 * @module
 */
import type { ContentPart, FilePart, ImagePart, JsonObject, JsonValue, RawPart } from '../message/schema.js';
import type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicTextBlock,
} from './anthropic-wire.js';
import { base64ToUtf8, parseDataUrl, sniffImageType, utf8ToBase64 } from './media-url.js';
import { drop, type PartContext } from './turn-rules.js';
import { cloneJson, hasOnlyKeys, hasText, isRecord, rawAs } from './wire-json.js';

/** Where a block goes; each place accepts different block types. */
export type BlockPlace = 'user' | 'assistant' | 'tool_result' | 'system';

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** Block types the API accepts only in user messages. */
export const USER_ONLY_BLOCKS: ReadonlySet<string> = new Set(['tool_result', 'image', 'document']);
/** Block types the API accepts only in assistant messages. */
export const ASSISTANT_ONLY_BLOCKS: ReadonlySet<string> = new Set(['tool_use', 'thinking', 'redacted_thinking']);

/** Why a raw block cannot be written in `place`, or undefined when it can. */
function rawBlockProblem(type: string, place: BlockPlace): string | undefined {
  // Calls and results are modelled by toolCalls and tool messages; a raw one would break pairing.
  if (type === 'tool_use' || type === 'tool_result') return `a raw ${type} would not be paired`;
  if (place === 'system' && type !== 'text') return 'the system prompt is text only';
  if (place !== 'assistant' && ASSISTANT_ONLY_BLOCKS.has(type)) return `${type} belongs in assistant turns`;
  if (place === 'assistant' && USER_ONLY_BLOCKS.has(type)) return `${type} belongs in user turns`;
  return undefined;
}

function isImageMediaType(value: string | undefined): value is AnthropicImageMediaType {
  return value !== undefined && IMAGE_TYPES.has(value);
}

/**
 * The cache breakpoint in a part's `providerOptions.anthropic.cacheControl` (canonical; `from`
 * writes it) or `…anthropic.cache_control` (the wire spelling, accepted too).
 */
export function cacheControlOf(
  providerOptions: Readonly<Record<string, JsonObject>> | undefined,
): AnthropicCacheControl | undefined {
  const options = providerOptions?.['anthropic'];
  const value = options?.['cacheControl'] ?? options?.['cache_control'];
  if (!isRecord(value) || value['type'] !== 'ephemeral') return undefined;
  const ttl = value['ttl'];
  return ttl === '5m' || ttl === '1h' ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
}

/** `providerOptions` carrying a block's cache breakpoint, for `from`. */
export function cacheOptions(block: { cache_control?: unknown }): { providerOptions?: Record<string, JsonObject> } {
  const control = block.cache_control;
  return isRecord(control) ? { providerOptions: { anthropic: { cacheControl: cloneJson<JsonObject>(control) } } } : {};
}

function withCache<T extends object>(block: T, providerOptions: Readonly<Record<string, JsonObject>> | undefined): T {
  const control = cacheControlOf(providerOptions);
  return control === undefined ? block : { ...block, cache_control: control };
}

function imageBlock(part: ImagePart, context: PartContext): AnthropicImageBlock | undefined {
  const inline =
    part.data !== undefined ? { data: part.data, mediaType: part.mediaType } : parseDataUrl(part.url ?? '');
  if (inline === undefined) {
    return withCache<AnthropicImageBlock>(
      { type: 'image', source: { type: 'url', url: part.url ?? '' } },
      part.providerOptions,
    );
  }
  const mediaType = isImageMediaType(inline.mediaType) ? inline.mediaType : sniffImageType(inline.data);
  if (!isImageMediaType(mediaType)) {
    const given = inline.mediaType ?? 'unknown';
    return drop(
      context,
      'unsupported_part',
      `Dropped an image of type ${given}: Anthropic accepts jpeg, png, gif and webp`,
    );
  }
  const source = { type: 'base64' as const, media_type: mediaType, data: inline.data };
  return withCache<AnthropicImageBlock>({ type: 'image', source }, part.providerOptions);
}

function documentSource(part: FilePart, context: PartContext): AnthropicDocumentBlock['source'] | undefined {
  if (part.fileId !== undefined) return { type: 'file', file_id: part.fileId };
  const inline =
    part.data !== undefined ? { data: part.data, mediaType: part.mediaType } : parseDataUrl(part.url ?? '');
  if (part.mediaType === 'application/pdf') {
    if (inline === undefined) return { type: 'url', url: part.url ?? '' };
    return { type: 'base64', media_type: 'application/pdf', data: inline.data };
  }
  if (part.mediaType.startsWith('text/') && inline !== undefined) {
    const text = base64ToUtf8(inline.data);
    if (text !== undefined) return { type: 'text', media_type: 'text/plain', data: text };
    return drop(context, 'unsupported_part', `Dropped a ${part.mediaType} file whose data is not base64 UTF-8 text`);
  }
  return drop(
    context,
    'unsupported_part',
    `Dropped a ${part.mediaType} file: Anthropic documents are PDF or plain text (by data)`,
  );
}

function fileBlock(part: FilePart, context: PartContext): AnthropicImageBlock | AnthropicDocumentBlock | undefined {
  if (part.mediaType.startsWith('image/')) {
    if (part.fileId !== undefined) {
      return withCache<AnthropicImageBlock>(
        { type: 'image', source: { type: 'file', file_id: part.fileId } },
        part.providerOptions,
      );
    }
    const image: ImagePart =
      part.data !== undefined
        ? { type: 'image', data: part.data, mediaType: part.mediaType }
        : { type: 'image', url: part.url ?? '' };
    return imageBlock(
      { ...image, ...(part.providerOptions === undefined ? {} : { providerOptions: part.providerOptions }) },
      context,
    );
  }
  const source = documentSource(part, context);
  if (source === undefined) return undefined;
  const block: AnthropicDocumentBlock = { type: 'document', source };
  if (part.filename !== undefined) block.title = part.filename;
  return withCache(block, part.providerOptions);
}

/** The text block of `text`, or undefined when it is blank (the API rejects blank text blocks). */
export function textBlock(
  text: string,
  providerOptions?: Readonly<Record<string, JsonObject>>,
): AnthropicTextBlock | undefined {
  return hasText(text) ? withCache<AnthropicTextBlock>({ type: 'text', text }, providerOptions) : undefined;
}

/** A raw part written back verbatim, unless it is another provider's or cannot go in `place`. */
function rawBlock(part: RawPart, place: BlockPlace, context: PartContext): AnthropicContentBlock | undefined {
  if (part.provider !== 'anthropic') {
    return drop(context, 'foreign_raw_part', `Dropped a raw ${part.provider} part: it is only valid there`);
  }
  const value = part.value;
  if (!isRecord(value) || typeof value['type'] !== 'string') {
    return drop(context, 'unsupported_part', 'Dropped a raw Anthropic part that is not a content block');
  }
  const problem = rawBlockProblem(value['type'], place);
  if (problem !== undefined) return drop(context, 'unsupported_part', `Dropped a raw Anthropic block: ${problem}`);
  // Verbatim (a copy: wire output never shares our frozen values): a block type chatstate does not
  // model, trusted because Anthropic produced it.
  return rawAs<AnthropicContentBlock>(value);
}

/** The block for one part in `place`, or undefined (with a warning when content is lost). */
export function partToBlock(
  part: ContentPart,
  place: BlockPlace,
  context: PartContext,
): AnthropicContentBlock | undefined {
  switch (part.type) {
    case 'text':
      return textBlock(part.text, part.providerOptions);
    case 'image':
    case 'file':
      if (place === 'assistant' || place === 'system') {
        const reason = 'Anthropic accepts media only in user turns and tool results';
        return drop(context, 'unsupported_part', `Dropped a ${part.type} part: ${reason}`);
      }
      return part.type === 'image' ? imageBlock(part, context) : fileBlock(part, context);
    case 'reasoning':
      if (place !== 'assistant' || part.provider !== 'anthropic' || part.signature === undefined) {
        const reason = 'only signed Anthropic thinking in an assistant turn can be sent back';
        return drop(context, 'dropped_reasoning', `Dropped reasoning: ${reason}`);
      }
      return { type: 'thinking', thinking: part.text, signature: part.signature };
    case 'raw':
      return rawBlock(part, place, context);
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/** A raw part holding `block` exactly as read, so `to` writes it back unchanged. */
export function rawPart(block: unknown): ContentPart {
  return { type: 'raw', provider: 'anthropic', value: cloneJson<JsonValue>(block) };
}

function readImage(block: Record<string, unknown>): ContentPart | undefined {
  const source = block['source'];
  if (!hasOnlyKeys(block, ['type', 'source', 'cache_control']) || !isRecord(source)) return undefined;
  const options = cacheOptions(block);
  if (source['type'] === 'base64' && hasOnlyKeys(source, ['type', 'media_type', 'data'])) {
    const { data, media_type: mediaType } = source;
    if (hasText(data) && hasText(mediaType)) return { type: 'image', data, mediaType, ...options };
  }
  if (source['type'] === 'url' && hasOnlyKeys(source, ['type', 'url']) && hasText(source['url'])) {
    return { type: 'image', url: source['url'], ...options };
  }
  return undefined;
}

function readDocument(block: Record<string, unknown>): ContentPart | undefined {
  const { source, title } = block;
  if (!hasOnlyKeys(block, ['type', 'source', 'title', 'cache_control']) || !isRecord(source)) return undefined;
  if (title !== undefined && !hasText(title)) return undefined;
  const common = { type: 'file' as const, ...(title === undefined ? {} : { filename: title }), ...cacheOptions(block) };
  const { type, data, media_type: mediaType, url } = source;
  if (
    type === 'base64' &&
    mediaType === 'application/pdf' &&
    hasText(data) &&
    hasOnlyKeys(source, ['type', 'media_type', 'data'])
  ) {
    return { ...common, data, mediaType };
  }
  if (
    type === 'text' &&
    mediaType === 'text/plain' &&
    hasText(data) &&
    hasOnlyKeys(source, ['type', 'media_type', 'data'])
  ) {
    return { ...common, data: utf8ToBase64(data), mediaType };
  }
  if (type === 'url' && hasText(url) && hasOnlyKeys(source, ['type', 'url']))
    return { ...common, url, mediaType: 'application/pdf' };
  return undefined;
}

/**
 * The part for one block read back, or undefined for a blank text block. A block with fields
 * chatstate does not map (citations, file sources, `context`) becomes a raw part instead, so
 * nothing is lost on the way back.
 */
export function blockToPart(block: AnthropicContentBlock): ContentPart | undefined {
  const record: Record<string, unknown> = isRecord(block) ? block : {};
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string' || !hasOnlyKeys(record, ['type', 'text', 'cache_control']))
        return rawPart(block);
      return hasText(block.text) ? { type: 'text', text: block.text, ...cacheOptions(block) } : undefined;
    case 'image':
      return readImage(record) ?? rawPart(block);
    case 'document':
      return readDocument(record) ?? rawPart(block);
    case 'thinking':
      if (
        typeof block.thinking !== 'string' ||
        !hasText(block.signature) ||
        !hasOnlyKeys(record, ['type', 'thinking', 'signature'])
      ) {
        return rawPart(block);
      }
      return { type: 'reasoning', text: block.thinking, signature: block.signature, provider: 'anthropic' };
    case 'tool_use':
    case 'tool_result':
    case 'redacted_thinking':
      return rawPart(block);
    default: {
      // Server-tool blocks and types added after this was written: kept verbatim.
      const unknownBlock: never = block;
      return rawPart(unknownBlock);
    }
  }
}

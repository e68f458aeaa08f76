/**
 * Content parts ↔ Gemini parts, both directions. Turn-level rules (system instruction, function
 * calls and responses, merging) live in `gemini.ts`; this file only maps one part.
 * @module
 */
import type { ContentPart, FilePart, ImagePart, JsonObject, JsonValue } from '../message/schema.js';
import type { GeminiFileDataPart, GeminiInlineDataPart, GeminiPart, GeminiTextPart } from './gemini-wire.js';
import { parseDataUrl, sniffImageType } from './media-url.js';
import { drop, type PartContext } from './turn-rules.js';
import { cloneJson, hasOnlyKeys, hasText, isRecord, rawAs } from './wire-json.js';

/** Where a part goes: the system instruction takes text only. */
export type PartPlace = 'user' | 'model' | 'system';

/** `providerOptions.gemini.thoughtSignature`, where text parts and tool calls keep Gemini's signature. */
export function thoughtSignatureOf(
  providerOptions: Readonly<Record<string, JsonObject>> | undefined,
): string | undefined {
  const signature = providerOptions?.['gemini']?.['thoughtSignature'];
  return typeof signature === 'string' && signature.length > 0 ? signature : undefined;
}

/** `providerOptions` keeping a part's thought signature, for `from`. */
export function signatureOptions(part: { thoughtSignature?: unknown }): {
  providerOptions?: Record<string, JsonObject>;
} {
  return hasText(part.thoughtSignature)
    ? { providerOptions: { gemini: { thoughtSignature: part.thoughtSignature } } }
    : {};
}

const EXTENSION_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
};

/** The image media type implied by a URL's file extension, when it has a known one. */
function imageTypeOfUrl(url: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : EXTENSION_TYPES[extension];
}

function mediaPart(
  part: ImagePart | FilePart,
  context: PartContext,
): GeminiInlineDataPart | GeminiFileDataPart | undefined {
  const inline =
    part.data !== undefined ? { data: part.data, mediaType: part.mediaType } : parseDataUrl(part.url ?? '');
  if (inline !== undefined) {
    const mimeType = inline.mediaType ?? (part.type === 'image' ? sniffImageType(inline.data) : undefined);
    if (mimeType === undefined)
      return drop(context, 'unsupported_part', 'Dropped inline media without a media type: Gemini requires one');
    return { inlineData: { mimeType, data: inline.data } };
  }
  const fileUri = part.type === 'file' ? (part.fileId ?? part.url ?? '') : (part.url ?? '');
  const mimeType = part.mediaType ?? imageTypeOfUrl(fileUri);
  return { fileData: mimeType === undefined ? { fileUri } : { fileUri, mimeType } };
}

/** The Gemini part for one content part in `place`, or undefined (with a warning when content is lost). */
export function partToGemini(part: ContentPart, place: PartPlace, context: PartContext): GeminiPart | undefined {
  switch (part.type) {
    case 'text': {
      const signature = thoughtSignatureOf(part.providerOptions);
      // A blank text part is rejected, unless it only carries a signature the model needs back.
      if (!hasText(part.text) && (signature === undefined || place !== 'model')) return undefined;
      return signature === undefined || place !== 'model'
        ? { text: part.text }
        : { text: part.text, thoughtSignature: signature };
    }
    case 'image':
    case 'file':
      if (place === 'system')
        return drop(context, 'unsupported_part', `Dropped a ${part.type} part: the system instruction is text only`);
      return mediaPart(part, context);
    case 'reasoning': {
      if (place !== 'model' || part.provider !== 'gemini') {
        return drop(
          context,
          'dropped_reasoning',
          'Dropped reasoning: only Gemini thoughts in a model turn can be sent back',
        );
      }
      const signature = part.signature ?? thoughtSignatureOf(part.providerOptions);
      if (!hasText(part.text) && signature === undefined) return undefined;
      const thought: GeminiTextPart = { text: part.text, thought: true };
      return signature === undefined ? thought : { ...thought, thoughtSignature: signature };
    }
    case 'raw':
      if (part.provider !== 'gemini') {
        return drop(context, 'foreign_raw_part', `Dropped a raw ${part.provider} part: it is only valid there`);
      }
      // Calls and responses are modelled by toolCalls and tool messages; a raw one would break pairing.
      if (
        place === 'system' ||
        !isRecord(part.value) ||
        'functionCall' in part.value ||
        'functionResponse' in part.value
      ) {
        return drop(context, 'unsupported_part', 'Dropped a raw Gemini part that cannot go here');
      }
      // Verbatim (a copy: wire output never shares our frozen values): a part kind chatstate does
      // not model, trusted because Gemini produced it.
      return rawAs<GeminiPart>(part.value);
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}

/** A raw part holding `part` exactly as read, so `to` writes it back unchanged. */
export function rawGeminiPart(part: unknown): ContentPart {
  return { type: 'raw', provider: 'gemini', value: cloneJson<JsonValue>(part) };
}

function readMedia(part: Record<string, unknown>): ContentPart | undefined {
  const { inlineData, fileData } = part;
  if (isRecord(inlineData) && hasOnlyKeys(part, ['inlineData']) && hasOnlyKeys(inlineData, ['mimeType', 'data'])) {
    const { mimeType, data } = inlineData;
    if (!hasText(mimeType) || !hasText(data)) return undefined;
    return mimeType.startsWith('image/')
      ? { type: 'image', data, mediaType: mimeType }
      : { type: 'file', data, mediaType: mimeType };
  }
  if (isRecord(fileData) && hasOnlyKeys(part, ['fileData']) && hasOnlyKeys(fileData, ['fileUri', 'mimeType'])) {
    const { fileUri, mimeType } = fileData;
    // Without a media type an image cannot be told from a file: such a part stays raw.
    if (!hasText(fileUri) || !hasText(mimeType)) return undefined;
    if (mimeType.startsWith('image/')) return { type: 'image', url: fileUri, mediaType: mimeType };
    return { type: 'file', url: fileUri, mediaType: mimeType };
  }
  return undefined;
}

/**
 * The content part for one Gemini part read back (function calls and responses are read by the
 * caller), or undefined for blank text. Parts with fields chatstate does not map become raw parts.
 */
export function geminiToPart(part: GeminiPart): ContentPart | undefined {
  const record: unknown = part;
  if (!isRecord(record)) return undefined;
  if (!('text' in record)) return readMedia(record) ?? rawGeminiPart(record);
  const { text, thought, thoughtSignature } = record;
  const mapped = typeof text === 'string' && hasOnlyKeys(record, ['text', 'thought', 'thoughtSignature']);
  if (!mapped || (thought !== undefined && typeof thought !== 'boolean')) return rawGeminiPart(record);
  if (thought === true) {
    if (hasText(thoughtSignature)) return { type: 'reasoning', text, provider: 'gemini', signature: thoughtSignature };
    return hasText(text) ? { type: 'reasoning', text, provider: 'gemini' } : undefined;
  }
  const options = signatureOptions(record);
  return hasText(text) || options.providerOptions !== undefined ? { type: 'text', text, ...options } : undefined;
}

/**
 * The content parts of OpenAI Agents items, in either SDK's spelling, read into chatstate parts:
 * `input_text`/`output_text` and refusals as text, `input_image` (Python's `image_url`, JS's
 * `image`) as images, `input_file` as files. When a part is left out or says more than its chatstate
 * part (annotations, `providerData`, a refusal), the original content is kept beside the parts.
 * @module
 */
import type { Content, ContentPart, ImagePart, JsonValue } from '../../message/schema.js';
import { UNKNOWN_MEDIA_TYPE, splitDataUrl } from '../../formats/media-url.js';
import { isObject } from '../json-text.js';

/** An item the importer cannot read: it becomes a problem with the item's place. */
export class Unreadable extends Error {}

/** A value read by `JSON.parse` (already JSON), typed as such. */
export function json(value: unknown): JsonValue {
  return value as JsonValue;
}

function isEmptyJson(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

function imagePart(url: string, detail: unknown): ImagePart {
  const options: Pick<ImagePart, 'detail'> =
    detail === 'auto' || detail === 'low' || detail === 'high' ? { detail } : {};
  const inline = splitDataUrl(url);
  return inline === undefined
    ? { type: 'image', url, ...options }
    : { type: 'image', data: inline.data, mediaType: inline.mediaType, ...options };
}

function filePart(
  source: { fileId?: unknown; url?: unknown; data?: unknown },
  filename: unknown,
): ContentPart | undefined {
  const named = typeof filename === 'string' && filename.length > 0 ? { filename } : {};
  if (typeof source.fileId === 'string' && source.fileId.length > 0)
    return { type: 'file', fileId: source.fileId, mediaType: UNKNOWN_MEDIA_TYPE, ...named };
  if (typeof source.data === 'string') {
    const inline = splitDataUrl(source.data);
    if (inline !== undefined) return { type: 'file', data: inline.data, mediaType: inline.mediaType, ...named };
  }
  if (typeof source.url === 'string' && source.url.length > 0)
    return { type: 'file', url: source.url, mediaType: UNKNOWN_MEDIA_TYPE, ...named };
  return undefined;
}

/** One content part (either SDK's spelling) as a chatstate part, or undefined when chatstate has none. */
function readPart(part: Record<string, unknown>): ContentPart | undefined {
  const type = part['type'];
  if ((type === 'input_text' || type === 'output_text' || type === 'text') && typeof part['text'] === 'string')
    return { type: 'text', text: part['text'] };
  if (type === 'refusal' && typeof part['refusal'] === 'string') return { type: 'text', text: part['refusal'] };
  if (type === 'input_image' || type === 'image') {
    // Python: `image_url` (or `file_id`); JS: `image`, a URL string or `{ id }`.
    const image = part['image_url'] ?? part['image'];
    if (typeof image === 'string' && image.length > 0) return imagePart(image, part['detail']);
    return undefined;
  }
  if (type === 'input_file' || type === 'file') {
    const file = part['file'];
    if (typeof file === 'string') return filePart({ url: file, data: file }, part['filename']);
    if (isObject(file)) return filePart({ fileId: file['id'], url: file['url'] }, part['filename']);
    return filePart({ fileId: part['file_id'], url: part['file_url'], data: part['file_data'] }, part['filename']);
  }
  return undefined;
}

// Keys a text part may carry and still be read in full: output annotations and logprobs describe
// the output (the API does not read them back), so empty ones say nothing.
const TEXT_KEYS = new Set(['type', 'text']);
const EMPTY_OK = new Set(['annotations', 'logprobs', 'providerData']);

function isExact(part: Record<string, unknown>, read: ContentPart | undefined): boolean {
  if (read === undefined || read.type !== 'text' || part['type'] === 'refusal') return false;
  return Object.entries(part).every(([key, value]) => TEXT_KEYS.has(key) || (EMPTY_OK.has(key) && isEmptyJson(value)));
}

/** Content (a string, one part, or parts) read; `original` is set when something was left out or changed. */
export function readContent(
  content: unknown,
  where: string,
  field: string,
): { content: Content; original?: JsonValue } {
  if (typeof content === 'string') return { content };
  const parts = isObject(content) ? [content] : content;
  if (!Array.isArray(parts)) throw new Unreadable(`${where}: ${field} must be a string or content parts`);
  const out: ContentPart[] = [];
  let exact = !isObject(content);
  for (const part of parts as unknown[]) {
    if (!isObject(part)) {
      exact = false;
      continue;
    }
    const read = readPart(part);
    if (read !== undefined) out.push(read);
    if (!isExact(part, read)) exact = false;
  }
  const only = out.length === 1 ? out[0] : undefined;
  const value: Content = only?.type === 'text' && exact ? only.text : out;
  return exact ? { content: value } : { content: value, original: json(content) };
}

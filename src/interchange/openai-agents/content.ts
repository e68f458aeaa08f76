/**
 * The content parts of OpenAI Agents items, in either SDK's spelling, read into chatstate parts:
 * `input_text`/`output_text` and refusals as text, `input_image` (Python's `image_url`, JS's
 * `image`) as images, `input_file` as files. When a part is left out or says more than its chatstate
 * part (annotations, `providerData`, a refusal), the original content is kept beside the parts.
 * @module
 */
import type { Content, ContentPart, JsonValue } from '../../message/schema.js';
import { UNKNOWN_MEDIA_TYPE, imageFromUrl, isImageDetail, splitDataUrl } from '../../formats/media-url.js';
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
    if (typeof image === 'string' && image.length > 0)
      return imageFromUrl(image, isImageDetail(part['detail']) ? part['detail'] : undefined);
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

/** The part type an item of `role` uses for plain text when its parts say nothing else. */
function defaultTextType(role: string): string {
  return role === 'assistant' ? 'output_text' : 'input_text';
}

/** True for `{ type, text }` with a string text and no other key. */
function isBareText(part: unknown): part is { type: string; text: string } {
  return (
    isObject(part) &&
    typeof part['type'] === 'string' &&
    typeof part['text'] === 'string' &&
    Object.keys(part).length === 2
  );
}

/**
 * Content read so that `writeContent` gives back exactly the same value (the session adapter's
 * reading; the importer keeps `readContent`'s shorter result): a string stays a string, a list of
 * bare text parts stays a list (with `form` naming the part types when they are not the role's
 * usual ones), a single `{ type: 'text', text }` output becomes its text (`form: 'text'`), and
 * anything else is read by `readContent` with the original kept.
 */
export function readExactContent(
  content: unknown,
  role: string,
  where: string,
  field: string,
): { content: Content; form?: JsonValue; original?: JsonValue } {
  if (typeof content === 'string') return { content };
  if (isBareText(content) && content.type === 'text') return { content: content.text, form: 'text' };
  if (Array.isArray(content) && content.length > 0 && content.every(isBareText)) {
    const parts = content as Array<{ type: string; text: string }>;
    const usual = defaultTextType(role);
    const types = parts.map((part) => part.type);
    if (types.every((type) => type === 'input_text' || type === 'output_text' || type === 'text')) {
      const out: ContentPart[] = parts.map((part) => ({ type: 'text', text: part.text }));
      return types.every((type) => type === usual) ? { content: out } : { content: out, form: types };
    }
  }
  const read = readContent(content, where, field);
  // `readContent` calls some parts exact that `writeContent` cannot rebuild (empty annotations, a
  // single part read as a string): here anything it read from parts keeps its original.
  return read.original === undefined ? { content: read.content, original: json(content) } : read;
}

/** The item content `readExactContent` read, from a message's content and what was kept beside it. */
export function writeContent(
  content: Content,
  role: string,
  kept: { readonly form?: JsonValue; readonly original?: JsonValue },
): JsonValue {
  if (kept.original !== undefined) return kept.original;
  const text =
    typeof content === 'string'
      ? content
      : content
          .filter((part): part is Extract<ContentPart, { type: 'text' }> => part.type === 'text')
          .map((part) => part.text)
          .join('\n');
  if (kept.form === 'text') return { type: 'text', text };
  if (typeof content === 'string') return content;
  const types = Array.isArray(kept.form) ? kept.form : [];
  const out: JsonValue[] = [];
  content.forEach((part, index) => {
    if (part.type === 'text') {
      const type = types[index];
      out.push({ type: typeof type === 'string' ? type : defaultTextType(role), text: part.text });
    } else if (part.type === 'raw') out.push(part.value);
    else if (part.type === 'image') {
      const url = part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data ?? ''}`;
      out.push({ type: 'input_image', image: url, ...(part.detail === undefined ? {} : { detail: part.detail }) });
    } else if (part.type === 'file') {
      const file =
        part.fileId !== undefined
          ? { id: part.fileId }
          : (part.url ?? `data:${part.mediaType};base64,${part.data ?? ''}`);
      out.push({ type: 'input_file', file, ...(part.filename === undefined ? {} : { filename: part.filename }) });
    }
    // Reasoning parts of other providers have no place in an item's content: left out.
  });
  return out;
}

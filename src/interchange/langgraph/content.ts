/**
 * LangChain content blocks read into chatstate parts: text, images (`image_url` and the v1
 * `image` block), Anthropic thinking and v1 reasoning. Blocks chatstate has no part for (provider
 * `tool_use` blocks, files, audio, …) are left out of the parts, and the message keeps the
 * original blocks verbatim beside them.
 * @module
 */
import type { Content, ContentPart } from '../../message/schema.js';
import { imageFromUrl, isImageDetail } from '../../formats/media-url.js';
import { isObject } from '../json-text.js';

/** One content block as a chatstate part, or undefined when chatstate has no part for it. */
function readBlock(block: unknown): ContentPart | undefined {
  if (typeof block === 'string') return { type: 'text', text: block };
  if (!isObject(block)) return undefined;
  const type = block['type'];
  if (type === 'text' && typeof block['text'] === 'string') return { type: 'text', text: block['text'] };
  if (type === 'image_url') {
    const source = block['image_url'];
    const url = typeof source === 'string' ? source : isObject(source) ? source['url'] : undefined;
    const detail = isObject(source) ? source['detail'] : undefined;
    if (typeof url !== 'string' || url.length === 0) return undefined;
    return imageFromUrl(url, isImageDetail(detail) ? detail : undefined);
  }
  if (type === 'image') {
    const mediaType = block['mimeType'] ?? block['mime_type'];
    const typed = typeof mediaType === 'string' && mediaType.length > 0 ? { mediaType } : {};
    if (typeof block['url'] === 'string' && block['url'].length > 0)
      return { type: 'image', url: block['url'], ...typed };
    const data = block['data'] ?? block['base64'];
    if (typeof data === 'string' && data.length > 0) return { type: 'image', data, ...typed };
    return undefined;
  }
  if (type === 'thinking' && typeof block['thinking'] === 'string') {
    const signature = block['signature'];
    return typeof signature === 'string'
      ? { type: 'reasoning', text: block['thinking'], signature, provider: 'anthropic' }
      : { type: 'reasoning', text: block['thinking'] };
  }
  if (type === 'reasoning' && typeof block['reasoning'] === 'string')
    return { type: 'reasoning', text: block['reasoning'] };
  return undefined;
}

/** True when `part` says all `block` said (a plain text block): otherwise the original blocks are kept too. */
function isExact(block: unknown, part: ContentPart | undefined): boolean {
  if (part === undefined) return false;
  if (typeof block === 'string') return true;
  return part.type === 'text' && isObject(block) && Object.keys(block).every((key) => key === 'type' || key === 'text');
}

/** Content as chatstate parts, and whether the original must be kept beside them (a block was left out or changed). */
export function readContent(content: unknown): { content: Content; keepOriginal: boolean } {
  if (typeof content === 'string') return { content, keepOriginal: false };
  if (content === undefined || content === null) return { content: '', keepOriginal: false };
  if (!Array.isArray(content)) return { content: '', keepOriginal: true };
  const parts: ContentPart[] = [];
  let keepOriginal = false;
  for (const block of content as unknown[]) {
    const part = readBlock(block);
    if (part !== undefined) parts.push(part);
    if (!isExact(block, part)) keepOriginal = true;
  }
  // Text-only content reads best as one string when the source wrote one block.
  const only = parts.length === 1 ? parts[0] : undefined;
  return { content: only?.type === 'text' && !keepOriginal ? only.text : parts, keepOriginal };
}
